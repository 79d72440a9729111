import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  StructureError,
  ValidationError,
  structureOf,
  symmetryOf,
  symmetryOrNull,
  type StructureRecord,
} from "../../src";
import { cellVolume } from "../../src/structure/cell";
import { loadMoyo } from "../../src/structure/moyo";
import { moyoInput } from "../../src/structure/operations/moyo-input";
import { clearSymmetryCache, moyoAnalyses } from "../../src/structure/symmetry";
import { hasPymatgen, python, recordOf, refOf, type Reference, type RefStructure } from "../support/symmetry-ref";
import { AXES, byAxis } from "./support/axes";
import { at, zip } from "./support/checked";

// Every symmetry matframe finds is compared with pymatgen's SpacegroupAnalyzer and spglib
// (Debian's python3-pymatgen and python3-spglib), references we did not write.

const bundled = JSON.parse(readFileSync(join(__dirname, "../../data/materials.json"), "utf8")) as (StructureRecord & {
  _id: string;
})[];

describe.runIf(hasPymatgen)("symmetry equals pymatgen's and spglib's", () => {
  const ase = hasPymatgen ? (python(["ase"]) as RefStructure[]) : [];
  const records: StructureRecord[] = [...bundled, ...ase.map(recordOf)];
  const refs = hasPymatgen ? (python(["analyze"], JSON.stringify(records.map(refOf))) as Reference[]) : [];

  it(`space group symbol and number, crystal system: all ${bundled.length} bundled materials and ${ase.length} ASE-built structures`, () => {
    expect(ase.map((a) => a.name)).toContain("Si rattled (P1)");
    const ours = records.map((r) => {
      const s = symmetryOf(r);
      return { name: r.name, symbol: s.spaceGroupSymbol, number: s.spaceGroupNumber, crystalSystem: s.crystalSystem };
    });
    const theirs = zip(records, refs, "pymatgen's analyses").map(([r, ref]) => ({
      name: r.name,
      symbol: ref.symbol,
      number: ref.number,
      crystalSystem: ref.crystalSystem,
    }));
    expect(ours).toEqual(theirs);
    // The structures cover more than one group, so the comparison can fail.
    expect(new Set(theirs.map((t) => t.symbol)).size).toBeGreaterThan(8);
    expect(theirs.map((t) => t.symbol)).toEqual(expect.arrayContaining(["P6_3mc", "Fd-3m", "P1", "P6_3/mmc"]));
  });

  it("point group, site symmetries and equivalent atoms equal spglib's dataset; Wyckoff letters too, up to the origin choice", () => {
    const letters: boolean[] = [];
    for (const [r, ref] of zip(records, refs, "pymatgen's analyses")) {
      const s = symmetryOf(r);
      const what = `${r.name}`;
      expect(s.pointGroup, what).toBe(ref.spglib.pointgroup);
      expect(
        s.sites.map((x) => x.siteSymmetry),
        what,
      ).toEqual(ref.spglib.siteSymmetries);
      expect(
        s.sites.map((x) => x.orbit),
        what,
      ).toEqual(ref.spglib.equivalent);
      // moyo and spglib may put the origin at different (equivalent) points of the normalizer,
      // which relabels the Wyckoff positions (WSe2 monolayer: moyo d, g; spglib b, i): the letters
      // must then still group the sites alike and name positions of the same multiplicity.
      const ours = s.sites.map((x) => x.wyckoff);
      const theirs = ref.spglib.wyckoffs;
      letters.push(ours.join() === theirs.join());
      expect(
        ours.map((l) => ours.indexOf(l)),
        what,
      ).toEqual(theirs.map((l) => theirs.indexOf(l)));
    }
    // Most agree letter for letter (bulk Si and hcp Mg do not: moyo 8b/2c where spglib says 8a/2d
    // for one cell and the other way round for another cell of the same crystal).
    expect(letters.filter(Boolean).length).toBeGreaterThanOrEqual(Math.floor(records.length * 0.75));
  });

  it("conventional and primitive standard cells: the volume and atom count of pymatgen's", () => {
    for (const [r, ref] of zip(records, refs, "pymatgen's analyses")) {
      const s = symmetryOf(r);
      const what = `${r.name}`;
      const conv = structureOf(s.conventional);
      const prim = structureOf(s.primitive);
      expect(conv.sites.length, what).toBe(ref.conventional.atoms);
      // Standard cells are idealized (made exactly symmetric), by moyo and spglib alike, within symprec.
      expect(Math.abs(cellVolume(conv.cell)) / ref.conventional.volume, what).toBeCloseTo(1, 3);
      expect(prim.sites.length, what).toBe(ref.primitive.atoms);
      expect(Math.abs(cellVolume(prim.cell)) / ref.primitive.volume, what).toBeCloseTo(1, 3);
      // The standard cells have the symmetry of the structure.
      expect(symmetryOf(s.conventional).spaceGroupNumber, what).toBe(s.spaceGroupNumber);
      expect(symmetryOf(s.primitive).spaceGroupNumber, what).toBe(s.spaceGroupNumber);
    }
  });

  it("each operation maps the structure onto itself, and there are as many as spglib finds", () => {
    for (const [r, ref] of zip(records, refs, "pymatgen's analyses")) {
      const s = symmetryOf(r);
      const { sites } = structureOf(r);
      for (const op of s.operations) {
        for (const site of sites) {
          const [x, y, z] = site.fractional;
          const image = byAxis((k) => {
            const [wx, wy, wz] = op.rotation[k];
            return wx * x + wy * y + wz * z + op.translation[k];
          });
          const hit = sites.some(
            (other) =>
              other.element === site.element &&
              AXES.every((k) => Math.abs(((((image[k] - other.fractional[k] + 0.5) % 1) + 1) % 1) - 0.5) < 0.01),
          );
          expect(hit, `${r.name}: an operation moves a ${site.element} atom off every site`).toBe(true);
        }
      }
      expect(s.operations.length, r.name).toBe(ref.spglib.operations);
    }
  });

  it("symprec is settable and means what it means in pymatgen", () => {
    const si = ase.find((a) => a.name === "Si diamond (cubic)")!;
    const shaken = { ...si, scaled: si.scaled.map((f, i) => f.map((x, k) => x + (k === i % 3 ? 0.002 : 0))) };
    const cases = [1e-4, 0.01, 0.1].map((symprec) => ({ ...shaken, symprec }));
    const theirs = python(["analyze"], JSON.stringify(cases)) as Reference[];
    const ours = cases.map((c) => symmetryOf(recordOf(c), { symprec: c.symprec }).spaceGroupSymbol);
    expect(ours).toEqual(theirs.map((t) => t.symbol));
    expect(new Set(ours).size).toBeGreaterThan(1);
  });

  it("angleTolerance is settable and means what it means in pymatgen (degrees; negative: judged as a distance)", () => {
    // CsCl with its cell sheared by 0.6°: cubic within 5°, not within 0.3° nor as a distance.
    const t = (0.6 * Math.PI) / 180;
    const a = 4.12;
    const sheared = {
      name: "CsCl sheared",
      cell: [
        [a, 0, 0],
        [a * Math.sin(t), a * Math.cos(t), 0],
        [0, 0, a],
      ],
      scaled: [
        [0, 0, 0],
        [0.5, 0.5, 0.5],
      ],
      symbols: ["Cs", "Cl"],
    };
    const cases = [5, 0.3, -1].map((angleTolerance) => ({ ...sheared, angleTolerance }));
    const theirs = python(["analyze"], JSON.stringify(cases)) as Reference[];
    const ours = cases.map((c) => symmetryOf(recordOf(c), { angleTolerance: c.angleTolerance }));
    expect(ours.map((s) => s.spaceGroupSymbol)).toEqual(theirs.map((r) => r.symbol));
    expect(new Set(ours.map((s) => s.spaceGroupSymbol)).size).toBeGreaterThan(1);
    expect(at(ours, 0).angleTolerance).toBe(5);
  });
});

describe("symmetry of bad structures", () => {
  const si = bundled.find((r) => r.name!.includes("mp-149"))!;

  it("no atoms, a flat cell, NaN, atoms on top of each other: a StructureError saying what is wrong", () => {
    const flat = { ...si, lattice: { ...si.lattice, vectors: { a: [1, 0, 0], b: [0, 1, 0], c: [1, 1, 0] } } };
    const nan = { ...si, lattice: { ...si.lattice, vectors: undefined, a: Number.NaN } };
    const empty = { ...si, basis: { units: "crystal", elements: [], coordinates: [] } };
    const stacked = {
      ...si,
      basis: {
        units: "crystal",
        elements: [
          { id: 0, value: "Si" },
          { id: 1, value: "Si" },
        ],
        coordinates: [
          { id: 0, value: [0, 0, 0] },
          { id: 1, value: [0, 0, 0.0001] },
        ],
      },
    };
    expect(() => symmetryOf(flat as never)).toThrow(/no volume/);
    expect(() => symmetryOf(nan as never)).toThrow(/lattice a must be a positive length; got NaN/);
    expect(() => symmetryOf(empty as never)).toThrow(/no atoms/);
    expect(() => symmetryOf(stacked as never)).toThrow(/no space group found with symprec 0.01/);
    expect(() => symmetryOf(stacked as never)).toThrow(StructureError);
  });

  it("symmetryOrNull gives null and one warning naming the material instead", () => {
    const warnings: string[] = [];
    const empty = { ...si, basis: { units: "crystal", elements: [], coordinates: [] } };
    expect(symmetryOrNull(empty as never, { onWarning: (m) => warnings.push(m) })).toBeNull();
    expect(warnings).toEqual([expect.stringContaining(`material ${si._id} has no atoms`)]);
    expect(symmetryOrNull(si)?.spaceGroupSymbol).toBe("Fd-3m");
  });

  it("a bad symprec is refused, with pymatgen's default named", () => {
    expect(() => symmetryOf(si, { symprec: -1 })).toThrow(
      /symprec must be a positive distance in Å \(pymatgen's default is 0.01\); got -1/,
    );
    expect(() => symmetryOrNull(si, { symprec: Number.NaN })).toThrow(ValidationError);
    expect(() => symmetryOf(si, { angleTolerance: 0 })).toThrow(
      /angleTolerance must be an angle in degrees between 0 and 90, or negative .*pymatgen's default is 5\); got 0/,
    );
  });

  it("a repeated structure is looked up, not searched again; results are frozen", () => {
    const first = symmetryOf(si);
    const again = symmetryOf(JSON.parse(JSON.stringify(si)));
    expect(again).toBe(first);
    expect(Object.isFrozen(first.sites[0])).toBe(true);
    expect(symmetryOf(si, { symprec: 0.001 })).not.toBe(first);
  });

  it("the group is named from the operations found, without moyo; the sites and cells read later are moyo's analysis", () => {
    // 300 real, distinct Materials Project structures (matminer's set).
    const real = (
      JSON.parse(readFileSync(join(__dirname, "../../data/reference-materials.json"), "utf8")) as StructureRecord[]
    ).slice(0, 300);
    clearSymmetryCache();
    const before = moyoAnalyses();
    const groups = real.map((r) => {
      const s = symmetryOf(r);
      return { number: s.spaceGroupNumber, hallNumber: s.hallNumber, pearson: s.pearsonSymbol };
    });
    expect(moyoAnalyses() - before).toBe(0);
    // Reading the rest runs moyo once per structure, and its dataset names the same group.
    const sites = real.map((r) => symmetryOf(r).sites);
    expect(moyoAnalyses() - before).toBe(real.length);
    const theirs = real.map((r) => {
      const input = moyoInput(r);
      const dataset = loadMoyo().analyze_cell(input.json(), input.exactSymprec, "Spglib");
      return { number: dataset.number, hallNumber: dataset.hall_number, pearson: dataset.pearson_symbol };
    });
    expect(groups).toEqual(theirs);
    expect(zip(sites, real, "the structures").every(([list, r]) => list.length === r.basis.elements.length)).toBe(true);
    expect(new Set(groups.map((g) => g.number)).size).toBeGreaterThan(20);
  });
});

describe("what is not a material", () => {
  it("undefined or null (an index past the end of a list, say) gets a StructureError that says what was expected", () => {
    for (const nothing of [undefined, null, 42]) {
      expect(() => symmetryOf(nothing as never)).toThrow(StructureError);
      expect(() => symmetryOf(nothing as never)).toThrow(/Expected a material \(an object with lattice and basis/);
      expect(() => structureOf(nothing as never)).toThrow(StructureError);
    }
    expect(symmetryOrNull(undefined as never)).toBeNull();
  });
});
