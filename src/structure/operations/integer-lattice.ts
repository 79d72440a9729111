// Integer lattice algebra for naming a space group from its operations (identify.ts): the axis
// of a rotation and the lattice plane across it, a plane basis reduced under a metric, and
// congruences (W - 1)·s ≡ d (mod 1) solved for s. Rotations are integer matrices acting on
// fractional coordinates (column vectors), in the basis of a primitive cell.
import { identity, type Index3, INDEX3, mapM, mapV, mul, mulV, OTHERS, type M3, type V3 } from "./linear";

/** The order of a proper rotation (1, 2, 3, 4 or 6), from its trace. */
export function rotationOrder(r: M3): number {
  const trace = r[0][0] + r[1][1] + r[2][2];
  return trace === 3 ? 1 : trace === -1 ? 2 : trace === 0 ? 3 : trace === 1 ? 4 : 6;
}

/** The greatest common divisor of two integers (0 for two zeros). */
function gcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}

/** The cross product of two vectors. */
export const cross = (x: V3, y: V3): V3 => [
  x[1] * y[2] - x[2] * y[1],
  x[2] * y[0] - x[0] * y[2],
  x[0] * y[1] - x[1] * y[0],
];

/** The shortest lattice vector along a proper rotation's axis (integer, primitive basis). */
export function axisOf(r: M3): V3 | undefined {
  const m = mapM(r, (x, i, j) => x - (i === j ? 1 : 0));
  for (const [i, j] of [
    [0, 1],
    [0, 2],
    [1, 2],
  ] as const) {
    const c = cross(m[i], m[j]);
    const g = gcd(gcd(c[0], c[1]), c[2]);
    if (g !== 0) return mapV(c, (x) => x / g + 0);
  }
  return undefined;
}

/**
 * A basis of the lattice vectors across a rotation's axis (the kernel of the sum of its powers,
 * whose rows are multiples of the plane's normal), reduced as Lagrange and Gauss reduce a plane
 * lattice under the metric `g`: the first is a shortest vector, the second a shortest independent one.
 */
export function planeBasis(r: M3, g: M3): [V3, V3] | undefined {
  let sum = identity();
  let power = r;
  for (let k = 1; k < rotationOrder(r); k++) {
    const add = power;
    sum = mapM(sum, (x, i, j) => x + add[i][j]);
    power = mul(power, r);
  }
  const row = sum.find((x) => x[0] !== 0 || x[1] !== 0 || x[2] !== 0);
  if (!row) return undefined;
  const div = gcd(gcd(row[0], row[1]), row[2]);
  const normal = mapV(row, (x) => x / div);
  // Column operations take the normal to a single ±1; the other two columns then span its kernel.
  const columns: M3 = identity();
  for (;;) {
    let pivot: Index3 | undefined;
    for (const i of INDEX3)
      if (normal[i] !== 0 && (pivot === undefined || Math.abs(normal[i]) < Math.abs(normal[pivot]))) pivot = i;
    if (pivot === undefined) return undefined;
    const p = pivot;
    let moved = false;
    for (const j of INDEX3) {
      if (j === p || normal[j] === 0) continue;
      const q = Math.trunc(normal[j] / normal[p]);
      normal[j] -= q * normal[p];
      columns[j] = mapV(columns[j], (x, i) => x - q * columns[p][i]);
      moved = true;
    }
    if (!moved) {
      const [i, j] = OTHERS[p];
      return reduced(columns[i], columns[j], g);
    }
  }
}

/** x·g·y. */
const dotG = (g: M3, x: V3, y: V3): number => {
  let s = 0;
  for (const i of INDEX3) for (const j of INDEX3) s += x[i] * g[i][j] * y[j];
  return s;
};

function reduced(u: V3, v: V3, g: M3): [V3, V3] {
  for (let step = 0; step < 100; step++) {
    if (dotG(g, u, u) > dotG(g, v, v)) [u, v] = [v, u];
    const m = Math.round(dotG(g, u, v) / dotG(g, u, u));
    if (m === 0) break;
    const w = u;
    v = mapV(v, (x, i) => x - m * w[i]);
  }
  return [u, v];
}

/** Swaps entries i and j of a list (both within it). */
function swap<T>(list: T[], i: number, j: number): void {
  [list[i], list[j]] = [list[j]!, list[i]!];
}

/** x ← x - q·y, entry by entry, for rows of one length. */
function subtractRow(x: number[], y: readonly number[], q: number): void {
  for (const [j, yj] of y.entries()) x[j] = x[j]! - q * yj;
}

/** A row of the stacked W_k - 1 (`a`) and the same row of U, which records the row operations. */
interface Row {
  a: V3;
  u: number[];
}

/**
 * A solver of the congruences (W_k - 1)·s ≡ d_k (mod 1), one for each of `rotations`: given the
 * d_k, an s that satisfies them when any does (the caller checks). The stacked W_k - 1 is made
 * diagonal once by unimodular row and column operations, U·A·V = D, so s = V·D⁻¹·U·d (a zero on
 * the diagonal leaves that coordinate free: 0).
 */
export function congruenceSolver(rotations: readonly M3[]): (wanted: readonly V3[]) => V3 {
  const count = rotations.length * 3;
  const rows: Row[] = [];
  for (const w of rotations) {
    for (const i of INDEX3) {
      const u = new Array<number>(count).fill(0);
      u[rows.length] = 1;
      rows.push({ a: mapV(w[i], (x, j) => x - (i === j ? 1 : 0)), u });
    }
  }
  const v = identity();
  const diagonal: V3 = [0, 0, 0];
  for (const t of INDEX3) {
    if (t >= count) break;
    for (;;) {
      let best: { row: Row; i: number; j: Index3; size: number } | undefined;
      for (const [i, row] of rows.entries()) {
        if (i < t) continue;
        for (const j of INDEX3) {
          const size = Math.abs(row.a[j]);
          if (j >= t && size !== 0 && (!best || size < best.size)) best = { row, i, j, size };
        }
      }
      if (!best) break;
      const { row: p, i: bi, j: bj } = best;
      swap(rows, t, bi);
      for (const { a } of rows) [a[t], a[bj]] = [a[bj], a[t]];
      for (const row of v) [row[t], row[bj]] = [row[bj], row[t]];
      let clean = true;
      for (const row of rows.slice(t + 1)) {
        const q = Math.trunc(row.a[t] / p.a[t]);
        if (q !== 0) {
          for (const j of INDEX3) row.a[j] -= q * p.a[j];
          subtractRow(row.u, p.u, q);
        }
        if (row.a[t] !== 0) clean = false;
      }
      for (const j of INDEX3) {
        if (j <= t) continue;
        const q = Math.trunc(p.a[j] / p.a[t]);
        if (q !== 0) {
          for (const { a } of rows) a[j] -= q * a[t];
          for (const row of v) row[j] -= q * row[t];
        }
        if (p.a[j] !== 0) clean = false;
      }
      if (clean) {
        diagonal[t] = p.a[t];
        break;
      }
    }
  }
  return (wanted) => {
    const y: V3 = [0, 0, 0];
    for (const t of INDEX3) {
      const row = rows[t];
      if (diagonal[t] === 0 || !row) continue;
      let sum = 0;
      // U has three columns per rotation, and `wanted` one vector per rotation.
      for (const [k, d] of wanted.entries()) for (const i of INDEX3) sum += row.u[k * 3 + i]! * d[i];
      y[t] = sum / diagonal[t];
    }
    return mulV(v, y);
  };
}
