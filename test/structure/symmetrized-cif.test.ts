import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fromCif, structureOf, symmetryOf, toSymmetrizedCif, type StructureRecord } from "../../src";
import { hasPymatgen, python, recordOf, refOf, type Reference, type RefStructure } from "../support/symmetry-ref";
import { runCli } from "../cli-export/run-cli";
import { at, defined, zip } from "./support/checked";

// The symmetrized CIF and the standard cells, read back by pymatgen and ASE (readers we did not
// write) and compared with the original crystal by pymatgen's StructureMatcher.

interface ReadBack {
  pymatgen: { atoms: number; symbol: string; same: boolean; volume: number };
  ase: { atoms: number; same: boolean; spacegroup: number | null };
}

const bundled = JSON.parse(readFileSync(join(__dirname, "../../data/materials.json"), "utf8")) as (StructureRecord & {
  _id: string;
  name: string;
})[];
const dir = mkdtempSync(join(tmpdir(), "matframe-symcif-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(hasPymatgen)("symmetrized CIF", () => {
  const ase = hasPymatgen ? (python(["ase"]) as RefStructure[]) : [];
  const records: StructureRecord[] = [...bundled, ...ase.map(recordOf)];

  it(`all ${bundled.length} bundled and ${ase.length} ASE-built structures: pymatgen and ASE read back the same crystal, with its space group`, () => {
    const items = records.map((r, i) => {
      const path = join(dir, `${i}.cif`);
      writeFileSync(path, toSymmetrizedCif(r));
      return { structure: refOf(r), path };
    });
    const read = python(["readcif"], JSON.stringify(items)) as ReadBack[];
    zip(records, read, "the CIFs pymatgen and ASE read back").forEach(([r, back], i) => {
      const s = symmetryOf(r);
      const conventionalAtoms = structureOf(s.conventional).sites.length;
      const what = r.name;
      expect(back.pymatgen.same, `${what} (pymatgen)`).toBe(true);
      expect(back.ase.same, `${what} (ASE)`).toBe(true);
      expect(back.pymatgen.symbol, what).toBe(s.spaceGroupSymbol);
      expect(back.ase.spacegroup, what).toBe(s.spaceGroupNumber);
      expect(back.pymatgen.atoms, what).toBe(conventionalAtoms);
      expect(back.ase.atoms, what).toBe(conventionalAtoms);
      // matframe's own reader expands it to the same cell.
      expect(structureOf(fromCif(readFileSync(at(items, i).path, "utf8"))).sites.length, what).toBe(conventionalAtoms);
    });
  });

  it("holds the asymmetric unit, the operations and the true space group", () => {
    const si = bundled.find((r) => r.name.includes("mp-149"))!;
    const text = toSymmetrizedCif(si);
    expect(text).toContain("_space_group_name_H-M_alt 'F d -3 m'");
    expect(text).toContain("_space_group_IT_number 227");
    expect(text.match(/^ {2}\d+ '[^']+'$/gm)).toHaveLength(192);
    expect(text.match(/^ {2}Si\d/gm)).toHaveLength(1);
    const zno = toSymmetrizedCif(bundled.find((r) => r.name.includes("mp-2133"))!);
    expect(zno).toContain("_space_group_name_H-M_alt 'P 6_3 m c'");
    expect(zno).toContain("  2 'x-y, x, z+1/2'");
    expect(zno.match(/^ {2}(Zn|O)\d/gm)).toHaveLength(2);
  });
});

describe.runIf(hasPymatgen)("matframe export --cell conventional|primitive, --format cif-symmetrized", () => {
  const refs: Reference[] = hasPymatgen ? python(["analyze"], JSON.stringify(bundled.map(refOf))) : [];
  const byId = new Map(bundled.map((r, i) => [r._id, i]));
  const indexOf = (id: string): number => defined(byId.get(id), `material ${id} among the bundled ones`);

  for (const cell of ["conventional", "primitive"] as const) {
    it(`--format poscar --cell ${cell}: pymatgen's ${cell} standard cell, the same crystal`, async () => {
      const out = join(dir, `poscar-${cell}`);
      const result = await runCli(["export", "--format", "poscar", "--cell", cell, "--output", out, "--quiet"]);
      expect(result.code, result.stderr).toBe(0);
      const index = readFileSync(join(out, "index.csv"), "utf8")
        .trim()
        .split("\n")
        .slice(1)
        .map((line) => {
          const [file, id] = line.split(",");
          return { file: defined(file, `a file name in "${line}"`), id: defined(id, `an id in "${line}"`) };
        });
      expect(index).toHaveLength(bundled.length);
      const items = index.map(({ file, id }) => ({
        structure: refOf(at(bundled, indexOf(id))),
        path: join(out, file),
        id,
      }));
      const read = python(["readcif"], JSON.stringify(items)) as ReadBack[];
      for (const [item, back] of zip(items, read, "the files pymatgen read back")) {
        const ref = at(refs, indexOf(item.id), "pymatgen's analyses");
        expect(back.pymatgen.same, item.id).toBe(true);
        expect(back.pymatgen.atoms, item.id).toBe(ref[cell].atoms);
        expect(back.pymatgen.volume / ref[cell].volume, item.id).toBeCloseTo(1, 3);
      }
    });
  }

  it("--format cif-symmetrized writes one symmetrized CIF per material", async () => {
    const out = join(dir, "symmetrized");
    const result = await runCli(["export", "--format", "cif-symmetrized", "--output", out, "--quiet"]);
    expect(result.code, result.stderr).toBe(0);
    const files = readdirSync(out).filter((f) => f.endsWith(".cif"));
    expect(files).toHaveLength(bundled.length);
    expect(files.every((f) => readFileSync(join(out, f), "utf8").includes("_space_group_IT_number"))).toBe(true);
  });

  it("answers mistakes in the words of the flags", async () => {
    const cases: [string[], string][] = [
      [
        ["--cell", "standard", "--format", "poscar", "--output", join(dir, "x")],
        '--cell must be conventional or primitive; got "standard"',
      ],
      [
        ["--cell", "primitive", "--output", "-"],
        "--cell applies to the structure formats (poscar, cif, cif-symmetrized, xyz); --format csv writes table columns",
      ],
      [
        ["--cell", "primitive", "--format", "cif-symmetrized", "--output", join(dir, "y")],
        '--cell: format "cif-symmetrized" writes the conventional standard cell',
      ],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(["export", ...args]);
      expect(result.code, args.join(" ")).not.toBe(0);
      expect(result.stderr).toContain(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
