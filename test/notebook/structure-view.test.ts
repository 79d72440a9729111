import { inspect } from "node:util";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { structureView } from "../../src/notebook";
import { StructureError } from "../../src/errors";
import type { Matrix3, Vector3 } from "../../src/structure/cell";
import { first, three } from "../structure/support/checked";
import materials from "../../data/materials.json";

type Record = (typeof materials)[number];
const find = (formula: string, type?: string) =>
  materials.find((m: Record) => m.formula === formula && (!type || m.lattice.type === type))!;

/** Circles drawn for atoms: element and centre. */
function atomsIn(svg: string) {
  return [...svg.matchAll(/<circle class="atom" data-element="(\w+)" cx="([\d.-]+)" cy="([\d.-]+)" r="([\d.]+)"/g)].map(
    (m) => ({
      element: m[1],
      x: Number(m[2]),
      y: Number(m[3]),
      r: Number(m[4]),
    }),
  );
}

/** A one-element record in a cell given by vectors, sites in crystal coordinates. */
function record(type: string, vectors: Matrix3, sites: [string, Vector3][]) {
  return {
    formula: "X",
    lattice: {
      type,
      a: 0,
      b: 0,
      c: 0,
      alpha: 90,
      beta: 90,
      gamma: 90,
      vectors: { a: vectors[0], b: vectors[1], c: vectors[2], alat: 1, units: "angstrom" },
    },
    basis: {
      units: "crystal",
      elements: sites.map(([value], id) => ({ id, value })),
      coordinates: sites.map(([, value], id) => ({ id, value })),
    },
  };
}

describe("structureView", () => {
  it("draws silicon's conventional cube (√2 × the 3.867 Å primitive length), 18 atoms with the boundary copies, 16 bonds", () => {
    const si = find("Si", "FCC");
    const view = structureView(si);
    expect(view.cellKind).toBe("conventional cubic");
    expect(view.parameters.a).toBeCloseTo(si.lattice.a * Math.SQRT2, 4);
    expect(view.parameters.b).toBeCloseTo(view.parameters.a, 4);
    expect(view.parameters.alpha).toBeCloseTo(90, 3);
    // Diamond: 8 atoms in the cube; 8 corners + 6 faces + 4 inside drawn; each inside atom has 4 bonds.
    expect(view.atoms).toBe(18);
    expect(view.bonds).toBe(16);
    expect(atomsIn(view.svg)).toHaveLength(18);
    expect(view.svg).toContain("a = b = c = 5.469 Å; α = β = γ = 90.0°");
    expect(view.svg.match(/<line x1/g)).toHaveLength(12 + 3); // cell edges + axes glyph
  });

  it("draws the record's own cell when asked", () => {
    const view = structureView(find("Si", "FCC"), { cell: "primitive" });
    expect(view.cellKind).toBe("primitive");
    expect(view.parameters.a).toBeCloseTo(3.867, 3);
    expect(view.parameters.alpha).toBeCloseTo(60, 3);
  });

  it("colours atoms by element (Jmol colours) with a legend, sized by covalent radius", () => {
    const view = structureView(find("NaCl"));
    expect(view.elements.sort()).toEqual(["Cl", "Na"]);
    expect(view.atoms).toBe(27); // rock salt: 14 of one kind on corners and faces, 13 on edges and centre
    expect(view.svg).toContain('fill="#AB5CF2"'); // Na
    expect(view.svg).toContain('fill="#1FF01F"'); // Cl
    expect(view.svg).toContain("Na  <tspan");
    expect(view.svg).toContain("r = 1.02 Å"); // Cl, Cordero et al. 2008
    const atoms = atomsIn(view.svg);
    const radius = (e: string) => atoms.find((a) => a.element === e)!.r;
    expect(radius("Na") / radius("Cl")).toBeCloseTo(1.66 / 1.02, 2);
  });

  it("repeats an atom at a corner on all eight corners, and finds the BCC conventional cell", () => {
    const a = 2.87;
    const h = a / 2;
    const bcc = record(
      "BCC",
      [
        [-h, h, h],
        [h, -h, h],
        [h, h, -h],
      ],
      [["Fe", [0, 0, 0]]],
    );
    const view = structureView(bcc, { bondTolerance: 0.05 });
    expect(view.cellKind).toBe("conventional cubic");
    expect(view.parameters.a).toBeCloseTo(a, 6);
    expect(view.atoms).toBe(9); // 8 corners + the centre
    expect(view.bonds).toBe(8); // the centre to each corner (2.49 Å); the edges (2.87 Å) are over 2 × 1.32 Å × 1.05
  });

  it("bonds atoms closer than their covalent radii plus the tolerance, and no others", () => {
    // A unit cell (no centring) is drawn as given: these atoms stay inside, with no boundary copies.
    const near = record(
      "CUB",
      [
        [10, 0, 0],
        [0, 10, 0],
        [0, 0, 10],
      ],
      [
        ["C", [0.4, 0.5, 0.5]],
        ["C", [0.55, 0.5, 0.5]],
      ],
    );
    expect(structureView(near).bonds).toBe(1); // 1.5 Å < 2 × 0.76 Å × 1.15
    const far = record(
      "CUB",
      [
        [10, 0, 0],
        [0, 10, 0],
        [0, 0, 10],
      ],
      [
        ["C", [0.4, 0.5, 0.5]],
        ["C", [0.58, 0.5, 0.5]],
      ],
    );
    expect(structureView(far).bonds).toBe(0); // 1.8 Å
    expect(structureView(near, { bonds: false }).bonds).toBe(0);
  });

  it("looks along the lattice direction asked: down c, a cube's eight corners fall on four points", () => {
    const cube = record(
      "CUB",
      [
        [4, 0, 0],
        [0, 4, 0],
        [0, 0, 4],
      ],
      [["Po", [0, 0, 0]]],
    );
    const points = (view: [number, number, number] | undefined) =>
      new Set(atomsIn(structureView(cube, { view }).svg).map((p) => `${Math.round(p.x)},${Math.round(p.y)}`)).size;
    expect(points([0, 0, 1])).toBe(4);
    expect(points(undefined)).toBe(8);
    expect(() => structureView(cube, { view: [0, 0, 0] })).toThrow(/view must be a lattice direction/);
  });

  it("says what is wrong with a record that has no structure", () => {
    expect(() => structureView({ _id: "m1", lattice: find("NaCl").lattice } as never)).toThrow(StructureError);
  });

  it("displays like a chart: a drawn PNG with a text fallback, a one-line summary", () => {
    const view = structureView(find("Si", "FCC"));
    const bundle = view.mimeBundle();
    expect(Object.keys(bundle.data).sort()).toEqual(["image/png", "text/plain"]);
    const png = PNG.sync.read(Buffer.from(bundle.data["image/png"] as string, "base64"));
    let coloured = 0;
    for (let i = 0; i < png.data.length; i += 4) {
      const [r, _g, b] = first(png.data.subarray(i, i + 3), 3, "a pixel's RGB");
      // Silicon's tan (#F0C8A0) and its shades: red above blue by a clear margin.
      if (r - b > 40) coloured += 1;
    }
    expect(coloured).toBeGreaterThan(0.03 * png.width * png.height);
    expect(inspect(view)).toBe(
      "[structure view: Si, conventional cubic cell 5.469 × 5.469 × 5.469 Å, 18 atoms, 16 bonds]",
    );
  });

  it("draws every bundled structure: FCC ones as cubes of four times the primitive volume, rhombohedral and base-centred ones in their conventional cells", () => {
    const kinds = new Map<string, string>();
    for (const material of materials as Record[]) {
      const view = structureView(material);
      expect(view.atoms, material.formula).toBeGreaterThanOrEqual(material.basis.elements.length);
      kinds.set(material.lattice.type, view.cellKind);
      const { a, b, c, alpha, beta, gamma } = view.parameters;
      const rad = Math.PI / 180;
      const drawnVolume =
        a *
        b *
        c *
        Math.sqrt(
          1 -
            Math.cos(alpha * rad) ** 2 -
            Math.cos(beta * rad) ** 2 -
            Math.cos(gamma * rad) ** 2 +
            2 * Math.cos(alpha * rad) * Math.cos(beta * rad) * Math.cos(gamma * rad),
        );
      const ratio = { FCC: 4, RHL: 3, MCLC: 2 }[material.lattice.type as string] ?? 1;
      expect(drawnVolume / Math.abs(volumeOf(material)), material.name).toBeCloseTo(ratio, 3);
      if (material.lattice.type === "FCC") {
        expect(view.cellKind, material.formula).toBe("conventional cubic");
        expect(view.parameters.a / Math.cbrt(4 * Math.abs(volumeOf(material)))).toBeCloseTo(1, 4);
      }
    }
    expect(Object.fromEntries(kinds)).toEqual({
      FCC: "conventional cubic",
      RHL: "conventional trigonal",
      MCLC: "conventional monoclinic",
      HEX: "unit",
      TET: "unit",
      MCL: "unit",
    });
  });
});

/** Volume of a record's own cell, from its vectors. */
function volumeOf(material: Record): number {
  const { vectors } = material.lattice;
  const [a, b, c] = [three(vectors.a, "vector a"), three(vectors.b, "vector b"), three(vectors.c, "vector c")];
  return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
}
