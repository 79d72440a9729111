import { describe, expect, it } from "vitest";
import { structureOf, symmetryOf, type Matrix3, type StructureRecord, type Vector3 } from "../../src";
import { loadMoyo } from "../../src/structure/moyo";
import { moyoInput } from "../../src/structure/operations/moyo-input";
import { toPlatform } from "../../src/structure/structure";
import { clearSymmetryCache, moyoAnalyses } from "../../src/structure/symmetry";
import { hasPymatgen, python, refOf, type Reference } from "../support/symmetry-ref";
import { AXES, byAxes, byAxis } from "./support/axes";
import { at } from "./support/checked";

// symmetryOf names a space group from the operations its tolerance search finds (identify.ts),
// without moyo. Here each of the 230 types is built from its own operations (the International
// Tables' standard setting, as moyo's tables hold it): two species on general positions, the cell
// then given in another basis (a unimodular change of axes, so a primitive cell of a centred
// lattice, skewed) and with its origin moved. The type is known by construction; moyo's analysis
// of the same structure must give the same setting and Pearson symbol.

/** A small seeded generator (the structures are the same on every run). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
    return s / 0x80000000;
  };
}

const SKEWS: Matrix3[] = [
  [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ],
  [
    [1, 1, 0],
    [0, 1, 0],
    [0, 1, 1],
  ],
  [
    [0, 1, 0],
    [0, 0, 1],
    [1, 0, 0],
  ],
  [
    [1, 0, -1],
    [1, 1, 0],
    [0, 0, 1],
  ],
];

/** A structure of type `number`: its conventional cell's general positions, in a skewed basis. */
/** Left-handed changes of axes: a and b swapped, and the same with c doubled (a supercell). */
const LEFT_HANDED: Matrix3[] = [
  [
    [0, 1, 0],
    [1, 0, 0],
    [0, 0, 1],
  ],
  [
    [0, 1, 0],
    [1, 0, 0],
    [0, 0, 2],
  ],
];

/** The 11 enantiomorphic pairs (ITA numbers): the same crystal in a mirror-image cell changes name. */
const ENANTIOMORPHS = [
  76, 78, 91, 95, 92, 96, 144, 145, 151, 153, 152, 154, 169, 170, 171, 172, 178, 179, 180, 181, 212, 213,
];

/**
 * A structure of type `number`: its conventional cell's general positions, given in the basis
 * whose vectors are the columns of `skew` (by default one of the right-handed SKEWS), origin moved.
 */
function structureOfType(
  number: number,
  hallNumber: number,
  rand: () => number,
  skew: Matrix3 = at(SKEWS, number % SKEWS.length, "SKEWS"),
): StructureRecord {
  const moyo = loadMoyo();
  const operations = moyo.operations_from_number(number, { type: "HallNumber", value: hallNumber }, false);
  const system = moyo.space_group_type(number).crystal_system;
  // The conventional cell's lengths and angles as its crystal system allows them, sized for the atoms.
  const atoms = 2 * operations.length;
  const size = Math.cbrt(20 * atoms);
  const [a, b, c] = [size, size * 1.13, size * 1.27];
  const cell: Matrix3 = {
    Triclinic: cellOf(a, b, c, 81, 87, 96),
    Monoclinic: cellOf(a, b, c, 90, 101, 90),
    Orthorhombic: cellOf(a, b, c, 90, 90, 90),
    Tetragonal: cellOf(a, a, c, 90, 90, 90),
    Trigonal: cellOf(a, a, c, 90, 90, 120),
    Hexagonal: cellOf(a, a, c, 90, 90, 120),
    Cubic: cellOf(a, a, a, 90, 90, 90),
  }[system]!;
  const sites: { element: string; fractional: Vector3 }[] = [];
  for (const element of ["Si", "O"]) {
    // A general position: redrawn until no two atoms of the structure are closer than 0.7 Å.
    for (let tries = 0; ; tries++) {
      const orbit = orbitOf([rand(), rand(), rand()], element, operations);
      if (tries < 200 && !apart([...sites, ...orbit], cell, 0.7)) continue;
      sites.push(...orbit);
      break;
    }
  }
  // Another basis (columns of the skew, in the conventional one) and another origin.
  const inverse = invert(skew);
  const shift: Vector3 = [rand(), rand(), rand()];
  const vectors = byAxes((j, k) => skew[0][j] * cell[0][k] + skew[1][j] * cell[1][k] + skew[2][j] * cell[2][k]);
  // Each atom and its images one cell over (the new cell may be a supercell), once each.
  const moved: { element: string; fractional: Vector3 }[] = [];
  for (const s of sites) {
    for (const n of [0, 1, 2, 3, 4, 5, 6, 7].map((m): Vector3 => [m & 1, (m >> 1) & 1, (m >> 2) & 1])) {
      const x = byAxis((k) => s.fractional[k] - shift[k] + n[k]);
      const wrapped = byAxis((i) => wrap(inverse[i][0] * x[0] + inverse[i][1] * x[1] + inverse[i][2] * x[2]));
      const seen = moved.some((m) => m.element === s.element && same(m.fractional, wrapped, 1e-9));
      if (!seen) moved.push({ element: s.element, fractional: wrapped });
    }
  }
  return { name: `type ${number}`, ...toPlatform(vectors, moved) };
}

type Operations = ReturnType<ReturnType<typeof loadMoyo>["operations_from_number"]>;

/** A fraction's representative in [0, 1). */
const wrap = (v: number): number => v - Math.floor(v);

/** Whether p and q are the same position up to whole cells, within `tolerance` on each axis. */
function same(p: Vector3, q: Vector3, tolerance: number): boolean {
  return AXES.every((k) => Math.abs(p[k] - q[k] - Math.round(p[k] - q[k])) < tolerance);
}

/** The distinct images of x under the operations (fractions in [0, 1)). */
function orbitOf(x: Vector3, element: string, operations: Operations): { element: string; fractional: Vector3 }[] {
  const orbit: { element: string; fractional: Vector3 }[] = [];
  for (const op of operations) {
    const [a, b, c, d, e, f, g, h, i] = op.rotation; // column-major
    const rows: Matrix3 = [
      [a, d, g],
      [b, e, h],
      [c, f, i],
    ];
    const wrapped = byAxis((k) => wrap(rows[k][0] * x[0] + rows[k][1] * x[1] + rows[k][2] * x[2] + op.translation[k]));
    const seen = orbit.some((s) => same(s.fractional, wrapped, 1e-9));
    if (!seen) orbit.push({ element, fractional: wrapped });
  }
  return orbit;
}

/** Whether every two atoms are at least `limit` Å apart (nearest images of a near-orthogonal cell). */
function apart(sites: readonly { fractional: Vector3 }[], cell: Matrix3, limit: number): boolean {
  for (const [i, { fractional: p }] of sites.entries()) {
    for (const { fractional: q } of sites.slice(i + 1)) {
      const d = byAxis((k) => p[k] - q[k] - Math.round(p[k] - q[k]));
      const r = byAxis((k) => d[0] * cell[0][k] + d[1] * cell[1][k] + d[2] * cell[2][k]);
      if (Math.hypot(r[0], r[1], r[2]) < limit) return false;
    }
  }
  return true;
}

function cellOf(a: number, b: number, c: number, alpha: number, beta: number, gamma: number): Matrix3 {
  const rad = Math.PI / 180;
  const [ca, cb, cg, sg] = [Math.cos(alpha * rad), Math.cos(beta * rad), Math.cos(gamma * rad), Math.sin(gamma * rad)];
  const cx = c * cb;
  const cy = (c * (ca - cb * cg)) / sg;
  return [
    [a, 0, 0],
    [b * cg, b * sg, 0],
    [cx, cy, Math.sqrt(c * c - cx * cx - cy * cy)],
  ];
}

function invert(m: Matrix3): Matrix3 {
  const [[a, b, c], [d, e, f], [g, h, i]] = m;
  const det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  return [
    [(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
    [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
    [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det],
  ];
}

describe("the space group named from the operations found", () => {
  const moyo = loadMoyo();
  const hallOf = new Map<number, number>();
  for (let hall = 1; hall <= 530; hall++) {
    const { number } = moyo.hall_symbol_entry(hall);
    if (!hallOf.has(number)) hallOf.set(number, hall);
  }

  it("is each of the 230 types, built from its operations in a skewed basis and a moved origin, without moyo, and moyo agrees", () => {
    const rand = random(20261127);
    clearSymmetryCache();
    const records = [...hallOf].map(([number, hall]) => ({ number, record: structureOfType(number, hall, rand) }));
    expect(records).toHaveLength(230);
    const before = moyoAnalyses();
    const named = records.map(({ record }) => {
      const s = symmetryOf(record);
      return { number: s.spaceGroupNumber, hallNumber: s.hallNumber, pearson: s.pearsonSymbol };
    });
    // No structure needed moyo for its group.
    expect(moyoAnalyses() - before).toBe(0);
    expect(named.map((n) => n.number)).toEqual(records.map((r) => r.number));
    // moyo's own analysis of the same structures (made exactly symmetric) names the same setting and Pearson symbol.
    const theirs = records.map(({ record }) => {
      const input = moyoInput(record);
      const dataset = moyo.analyze_cell(input.json(), input.exactSymprec, "Spglib");
      return { number: dataset.number, hallNumber: dataset.hall_number, pearson: dataset.pearson_symbol };
    });
    expect(named).toEqual(theirs);
  });
  it("names a chiral crystal's own group in a left-handed cell (a mirror-image choice of axes, and a supercell), as spglib and pymatgen do", () => {
    const rand = random(1127);
    clearSymmetryCache();
    const records = ENANTIOMORPHS.flatMap((number) =>
      LEFT_HANDED.map((skew) => structureOfType(number, hallOf.get(number)!, rand, skew)),
    );
    const before = moyoAnalyses();
    const named = records.map((record) => {
      const s = symmetryOf(record);
      return { name: record.name, number: s.spaceGroupNumber, hallNumber: s.hallNumber, pearson: s.pearsonSymbol };
    });
    expect(moyoAnalyses() - before).toBe(0);
    // The crystal's own group (by construction), not its mirror image's (P4_3 for P4_1).
    expect(named.map((n) => n.number)).toEqual(ENANTIOMORPHS.flatMap((n) => [n, n]));
    // moyo, given the cell as matframe gives it (vectors reversed, so right-handed), agrees.
    const theirs = records.map((record) => {
      const input = moyoInput(record);
      const dataset = moyo.analyze_cell(input.json(), input.exactSymprec, "Spglib");
      return {
        name: record.name,
        number: dataset.number,
        hallNumber: dataset.hall_number,
        pearson: dataset.pearson_symbol,
      };
    });
    expect(named).toEqual(theirs);
    // The operations, read back in the cell given, map every atom onto an atom of its species.
    for (const record of records) {
      const { sites } = structureOf(record);
      for (const { rotation: w, translation: t } of symmetryOf(record).operations) {
        for (const site of sites) {
          const x = site.fractional;
          const y = byAxis((i) => w[i][0] * x[0] + w[i][1] * x[1] + w[i][2] * x[2] + t[i]);
          const lands = sites.some((other) => other.element === site.element && same(other.fractional, y, 1e-6));
          expect(lands, `${record.name}: an operation maps an atom nowhere`).toBe(true);
        }
      }
    }
  });

  it.runIf(hasPymatgen)("in a left-handed cell, pymatgen's SpacegroupAnalyzer names the same groups", () => {
    const rand = random(1127);
    const records = ENANTIOMORPHS.flatMap((number) =>
      LEFT_HANDED.map((skew) => structureOfType(number, hallOf.get(number)!, rand, skew)),
    );
    const refs = python(["analyze"], JSON.stringify(records.map(refOf))) as Reference[];
    expect(records.map((r) => symmetryOf(r).spaceGroupNumber)).toEqual(refs.map((r) => r.number));
  });
});
