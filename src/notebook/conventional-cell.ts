import { cartesianToFractional, cellVolume, parametersToVectors, vectorsToParameters, type Matrix3, type Vector3 } from "../structure/cell";

/**
 * Centred Bravais lattices whose conventional cell has orthogonal axes, with the number of lattice
 * points in it and the name of its system (Setyawan and Curtarolo, Comput. Mater. Sci. 49, 299
 * (2010), the platform's lattice types).
 */
const CENTRED: Record<string, { points: number; system: string; equal: "all" | "two" | "none" }> = {
  FCC: { points: 4, system: "cubic", equal: "all" },
  BCC: { points: 2, system: "cubic", equal: "all" },
  BCT: { points: 2, system: "tetragonal", equal: "two" },
  ORCF: { points: 4, system: "orthorhombic", equal: "none" },
  ORCI: { points: 2, system: "orthorhombic", equal: "none" },
  ORCC: { points: 2, system: "orthorhombic", equal: "none" },
};

/** A cell to draw: its vectors (a along x, the crystallographic orientation), sites in it, and what it is. */
export interface DrawnCell {
  cell: Matrix3;
  sites: { element: string; fractional: Vector3 }[];
  /** "conventional cubic", or "primitive" (a centred lattice drawn as the record has it) or "unit" (any other). */
  kind: string;
}

const dot = (u: readonly number[], v: readonly number[]) => u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
const combine = (m: readonly number[], cell: Matrix3): Vector3 =>
  [0, 1, 2].map((k) => m[0] * cell[0][k] + m[1] * cell[1][k] + m[2] * cell[2][k]) as Vector3;

/** Every integer vector with entries -1, 0, 1 except zero: the candidate conventional axes. */
const STEPS: number[][] = [];
for (const i of [-1, 0, 1]) for (const j of [-1, 0, 1]) for (const k of [-1, 0, 1]) if (i || j || k) STEPS.push([i, j, k]);

/**
 * The conventional cell of a centred lattice, as integer combinations of the primitive vectors
 * that are orthogonal (and equally long where the system says so), enclosing `points` lattice
 * points. Found by search rather than by one textbook matrix, so that any primitive setting works.
 * Undefined when the vectors are not such a lattice (a record whose type does not fit its cell).
 */
export function conventionalVectors(primitive: Matrix3, type: string): Matrix3 | undefined {
  const centring = CENTRED[type];
  if (!centring) return undefined;
  const volume = Math.abs(cellVolume(primitive));
  const scale = Math.cbrt(volume);
  const tol = 1e-3 * scale * scale;
  const candidates = STEPS.map((m) => ({ m, v: combine(m, primitive) }));
  let best: { cell: Matrix3; score: number } | undefined;
  for (const a of candidates) {
    for (const b of candidates) {
      if (Math.abs(dot(a.v, b.v)) > tol) continue;
      for (const c of candidates) {
        if (Math.abs(dot(a.v, c.v)) > tol || Math.abs(dot(b.v, c.v)) > tol) continue;
        const cell: Matrix3 = [a.v, b.v, c.v];
        const v = cellVolume(cell);
        if (v <= 0 || Math.abs(v - centring.points * volume) > 1e-3 * volume) continue;
        const [la, lb, lc] = cell.map((x) => Math.sqrt(dot(x, x)));
        const same = (x: number, y: number) => Math.abs(x - y) < 1e-3 * scale;
        if (centring.equal === "all" && !(same(la, lb) && same(lb, lc))) continue;
        if (centring.equal === "two" && !same(la, lb)) continue;
        // Prefer a ≤ b ≤ c for orthorhombic cells, and the fewest sign flips, so the choice is stable.
        const score = (la <= lb + 1e-9 ? 0 : 10) + (lb <= lc + 1e-9 ? 0 : 10) + [a, b, c].reduce((s, x) => s + x.m.filter((e) => e < 0).length, 0);
        if (!best || score < best.score) best = { cell, score };
      }
    }
  }
  return best?.cell;
}

/** Fractional coordinates this close to a face count as on it. */
const ON_FACE = 1e-4;

/**
 * The cell a picture shows: the conventional cell of a centred lattice type, its sites generated
 * by the lattice translations, or else the record's own cell. `want` "primitive" keeps the
 * record's cell always.
 */
export function cellToDraw(
  primitive: Matrix3,
  sites: { element: string; fractional: Vector3 }[],
  type: string | undefined,
  want: "conventional" | "primitive",
): DrawnCell {
  const conventional = want === "conventional" && type ? conventionalVectors(primitive, type) : undefined;
  if (!conventional) {
    const kind = type && CENTRED[type] ? "primitive" : "unit";
    return { cell: primitive, sites: sites.map((s) => ({ element: s.element, fractional: s.fractional.map(wrap) as Vector3 })), kind };
  }
  // Re-oriented with a along x, so that a cube is drawn square to the page.
  const upright = parametersToVectors(vectorsToParameters(conventional));
  const points = CENTRED[type!].points;
  const out: DrawnCell["sites"] = [];
  const seen = new Set<string>();
  for (const site of sites) {
    const r = combine(site.fractional, primitive);
    for (let i = -2; i <= 2; i += 1) {
      for (let j = -2; j <= 2; j += 1) {
        for (let k = -2; k <= 2; k += 1) {
          const t = combine([i, j, k], primitive);
          const f = cartesianToFractional([r[0] + t[0], r[1] + t[1], r[2] + t[2]], conventional).map(wrap) as Vector3;
          const key = `${site.element}:${f.map((x) => Math.round(x * 1e4) % 1e4).join(",")}`;
          if (seen.has(key)) continue;
          seen.add(key);
          out.push({ element: site.element, fractional: f });
        }
      }
    }
  }
  if (out.length !== points * sites.length) {
    throw new RangeError(`the ${type} conventional cell should hold ${points * sites.length} atoms but ${out.length} were found`);
  }
  return { cell: upright, sites: out, kind: `conventional ${CENTRED[type!].system}` };
}

/** A fractional coordinate in [0, 1), with values within {@link ON_FACE} of 1 taken as 0. */
function wrap(x: number): number {
  const w = x - Math.floor(x);
  return w > 1 - ON_FACE ? 0 : w < ON_FACE ? 0 : w;
}
