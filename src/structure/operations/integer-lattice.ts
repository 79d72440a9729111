// Integer lattice algebra for naming a space group from its operations (identify.ts): the axis
// of a rotation and the lattice plane across it, a plane basis reduced under a metric, and
// congruences (W - 1)·s ≡ d (mod 1) solved for s. Rotations are integer matrices acting on
// fractional coordinates (column vectors), in the basis of a primitive cell.
import { identity, mul, mulV, type M3, type V3 } from "./linear";

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
  const m = r.map((row, i) => row.map((x, j) => x - (i === j ? 1 : 0)));
  for (const [i, j] of [
    [0, 1],
    [0, 2],
    [1, 2],
  ]) {
    const c = cross(m[i], m[j]);
    const g = gcd(gcd(c[0], c[1]), c[2]);
    if (g !== 0) return c.map((x) => x / g + 0);
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
    sum = sum.map((row, i) => row.map((x, j) => x + power[i][j]));
    power = mul(power, r);
  }
  const row = sum.find((x) => x[0] !== 0 || x[1] !== 0 || x[2] !== 0);
  if (!row) return undefined;
  const div = gcd(gcd(row[0], row[1]), row[2]);
  const normal = row.map((x) => x / div);
  // Column operations take the normal to a single ±1; the other two columns then span its kernel.
  const columns: V3[] = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ];
  for (;;) {
    let pivot = -1;
    for (let i = 0; i < 3; i++)
      if (normal[i] !== 0 && (pivot < 0 || Math.abs(normal[i]) < Math.abs(normal[pivot]))) pivot = i;
    let moved = false;
    for (let j = 0; j < 3; j++) {
      if (j === pivot || normal[j] === 0) continue;
      const q = Math.trunc(normal[j] / normal[pivot]);
      normal[j] -= q * normal[pivot];
      columns[j] = columns[j].map((x, i) => x - q * columns[pivot][i]);
      moved = true;
    }
    if (!moved) {
      const others = [0, 1, 2].filter((i) => i !== pivot);
      return reduced(columns[others[0]], columns[others[1]], g);
    }
  }
}

/** x·g·y. */
const dotG = (g: M3, x: V3, y: V3): number => {
  let s = 0;
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) s += x[i] * g[i][j] * y[j];
  return s;
};

function reduced(u: V3, v: V3, g: M3): [V3, V3] {
  for (let step = 0; step < 100; step++) {
    if (dotG(g, u, u) > dotG(g, v, v)) [u, v] = [v, u];
    const m = Math.round(dotG(g, u, v) / dotG(g, u, u));
    if (m === 0) break;
    v = v.map((x, i) => x - m * u[i]);
  }
  return [u, v];
}

/**
 * A solver of the congruences (W_k - 1)·s ≡ d_k (mod 1), one for each of `rotations`: given the
 * d_k, an s that satisfies them when any does (the caller checks). The stacked W_k - 1 is made
 * diagonal once by unimodular row and column operations, U·A·V = D, so s = V·D⁻¹·U·d (a zero on
 * the diagonal leaves that coordinate free: 0).
 */
export function congruenceSolver(rotations: readonly M3[]): (wanted: readonly V3[]) => V3 {
  const rows = rotations.length * 3;
  const a: number[][] = [];
  for (const w of rotations) {
    for (let i = 0; i < 3; i++)
      a.push([w[i][0] - (i === 0 ? 1 : 0), w[i][1] - (i === 1 ? 1 : 0), w[i][2] - (i === 2 ? 1 : 0)]);
  }
  const u = Array.from({ length: rows }, (_, i) => Array.from({ length: rows }, (_, j) => (i === j ? 1 : 0)));
  const v = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ];
  const diagonal = [0, 0, 0];
  for (let t = 0; t < 3 && t < rows; t++) {
    for (;;) {
      let best = -1;
      let bi = 0;
      let bj = 0;
      for (let i = t; i < rows; i++) {
        for (let j = t; j < 3; j++) {
          const x = Math.abs(a[i][j]);
          if (x !== 0 && (best < 0 || x < best)) {
            best = x;
            bi = i;
            bj = j;
          }
        }
      }
      if (best < 0) break;
      [a[t], a[bi]] = [a[bi], a[t]];
      [u[t], u[bi]] = [u[bi], u[t]];
      for (const row of a) [row[t], row[bj]] = [row[bj], row[t]];
      for (const row of v) [row[t], row[bj]] = [row[bj], row[t]];
      let clean = true;
      for (let i = t + 1; i < rows; i++) {
        const q = Math.trunc(a[i][t] / a[t][t]);
        if (q !== 0) {
          for (let j = 0; j < 3; j++) a[i][j] -= q * a[t][j];
          for (let j = 0; j < rows; j++) u[i][j] -= q * u[t][j];
        }
        if (a[i][t] !== 0) clean = false;
      }
      for (let j = t + 1; j < 3; j++) {
        const q = Math.trunc(a[t][j] / a[t][t]);
        if (q !== 0) {
          for (const row of a) row[j] -= q * row[t];
          for (const row of v) row[j] -= q * row[t];
        }
        if (a[t][j] !== 0) clean = false;
      }
      if (clean) {
        diagonal[t] = a[t][t];
        break;
      }
    }
  }
  return (wanted) => {
    const y = [0, 0, 0];
    for (let t = 0; t < 3; t++) {
      if (diagonal[t] === 0) continue;
      let sum = 0;
      for (let k = 0; k < rotations.length; k++) {
        for (let i = 0; i < 3; i++) sum += u[t][k * 3 + i] * wanted[k][i];
      }
      y[t] = sum / diagonal[t];
    }
    return mulV(v, y);
  };
}
