// 3×3 linear algebra for the symmetry search. Matrices are arrays of rows; a lattice here is a
// matrix whose COLUMNS are the cell vectors (spglib's convention), so Cartesian = lattice · fractional.
import { StructureError } from "../../errors";

/** A 3×3 matrix as rows. */
export type M3 = number[][];
/** A 3-vector. */
export type V3 = number[];

export const identity = (): M3 => [
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
];

export function mul(a: M3, b: M3): M3 {
  const row = (i: number) => [
    a[i][0] * b[0][0] + a[i][1] * b[1][0] + a[i][2] * b[2][0],
    a[i][0] * b[0][1] + a[i][1] * b[1][1] + a[i][2] * b[2][1],
    a[i][0] * b[0][2] + a[i][1] * b[1][2] + a[i][2] * b[2][2],
  ];
  return [row(0), row(1), row(2)];
}

export function mulV(a: M3, v: V3): V3 {
  return [
    a[0][0] * v[0] + a[0][1] * v[1] + a[0][2] * v[2],
    a[1][0] * v[0] + a[1][1] * v[1] + a[1][2] * v[2],
    a[2][0] * v[0] + a[2][1] * v[1] + a[2][2] * v[2],
  ];
}

/** {@link key} of the product a·b of two integer matrices, without building it. */
export function productKey(a: M3, b: M3): number {
  let k = 0;
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 3; j++) k = k * 17 + (a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j] + 8);
  return k;
}

/** Rotations one after the other, each row by row, in one array (for loops over many products). */
export function flatRotations(rotations: readonly M3[]): Float64Array {
  const flat = new Float64Array(9 * rotations.length);
  rotations.forEach((r, i) => {
    for (let k = 0; k < 9; k++) flat[9 * i + k] = r[Math.floor(k / 3)][k % 3];
  });
  return flat;
}

/**
 * The multiplication table of distinct integer rotations (as {@link flatRotations}): entry
 * `a * n + b` is the index of the product of rotations a and b among them, -1 where it is not one
 * of them. Null when two of the rotations are the same.
 */
export function productTable(w: Float64Array): Int32Array | null {
  const n = w.length / 9;
  // Each matrix is named by its image of the probe (1, B, B²): with B above twice the largest entry
  // a product can have, the image of a row gives back the row, so equal images mean equal matrices;
  // the image of a product is read off the factors' images in 9 multiplications instead of 27.
  let largest = 0;
  for (const x of w) largest = Math.max(largest, Math.abs(x));
  const base = 6 * largest * largest + 1;
  if (base ** 3 * largest > Number.MAX_SAFE_INTEGER)
    throw new StructureError("rotation entries too large to compare exactly");
  const image = new Float64Array(3 * n);
  for (let i = 0; i < 3 * n; i++) image[i] = w[3 * i] + base * (w[3 * i + 1] + base * w[3 * i + 2]);
  // Rotations by the image of their first row, chained through `next` when several share it.
  const first = new Map<number, number>();
  const next = new Int32Array(n).fill(-1);
  const find = (x: number, y: number, z: number): number => {
    for (let f = first.get(x) ?? -1; f >= 0; f = next[f])
      if (image[3 * f + 1] === y && image[3 * f + 2] === z) return f;
    return -1;
  };
  for (let i = n - 1; i >= 0; i--) {
    if (find(image[3 * i], image[3 * i + 1], image[3 * i + 2]) >= 0) return null;
    next[i] = first.get(image[3 * i]) ?? -1;
    first.set(image[3 * i], i);
  }
  const table = new Int32Array(n * n);
  for (let a = 0; a < n; a++) {
    const r = 9 * a;
    for (let b = 0; b < n; b++) {
      const [u, v, x] = [image[3 * b], image[3 * b + 1], image[3 * b + 2]];
      table[a * n + b] = find(
        w[r] * u + w[r + 1] * v + w[r + 2] * x,
        w[r + 3] * u + w[r + 4] * v + w[r + 5] * x,
        w[r + 6] * u + w[r + 7] * v + w[r + 8] * x,
      );
    }
  }
  return table;
}

export const transpose = (a: M3): M3 => [0, 1, 2].map((i) => [a[0][i], a[1][i], a[2][i]]);

export function det(a: M3): number {
  return (
    a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
    a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
    a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
  );
}

export function inverse(a: M3): M3 {
  const d = det(a);
  const c = (i: number, j: number) => {
    const r = [0, 1, 2].filter((k) => k !== i);
    const s = [0, 1, 2].filter((k) => k !== j);
    return (a[r[0]][s[0]] * a[r[1]][s[1]] - a[r[0]][s[1]] * a[r[1]][s[0]]) * ((i + j) % 2 ? -1 : 1);
  };
  return [0, 1, 2].map((i) => [0, 1, 2].map((j) => c(j, i) / d));
}

/** The metric (Gram matrix) of a lattice whose columns are the cell vectors. */
export const metric = (lattice: M3): M3 => mul(transpose(lattice), lattice);

export const sub = (a: V3, b: V3): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
export const add = (a: V3, b: V3): V3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
export const norm = (v: V3): number => Math.hypot(v[0], v[1], v[2]);

/** The vector minus its nearest lattice point, component by component (spglib's minimum image). */
export const wrap = (v: V3): V3 => [v[0] - Math.round(v[0]), v[1] - Math.round(v[1]), v[2] - Math.round(v[2])];

/** Within [0, 1). */
export const mod1 = (v: V3): V3 => v.map((x) => x - Math.floor(x)).map((x) => (x >= 1 ? 0 : x));

/** A number naming an integer matrix (entries within ±8), for maps and sets of rotations. */
export function key(m: M3): number {
  let k = 0;
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) k = k * 17 + (m[i][j] + 8);
  return k;
}

export const isInteger = (m: M3, tolerance: number): boolean =>
  m.every((row) => row.every((x) => Math.abs(x - Math.round(x)) < tolerance));

export const round = (m: M3): M3 => m.map((row) => row.map((x) => Math.round(x) + 0));

/** Upper-triangular U with Uᵀ·U = g (Cholesky) of a symmetric positive definite matrix. */
export function cholesky(g: M3): M3 {
  const u: M3 = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ];
  for (let i = 0; i < 3; i++) {
    for (let j = i; j < 3; j++) {
      let s = g[i][j];
      for (let k = 0; k < i; k++) s -= u[k][i] * u[k][j];
      u[i][j] = i === j ? Math.sqrt(s) : s / u[i][i];
    }
  }
  return u;
}
