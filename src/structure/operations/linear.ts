// 3×3 linear algebra for the symmetry search. Matrices are arrays of rows; a lattice here is a
// matrix whose COLUMNS are the cell vectors (spglib's convention), so Cartesian = lattice · fractional.
// Vectors and matrices are tuples, so that `m[i][j]` with `i` and `j` of {@link Index3} is a number
// to the compiler and no bounds check is needed; the many small ones are built by {@link vector}
// and {@link matrix}.
import { StructureError } from "../../errors";

/** A 3-vector. */
export type V3 = [number, number, number];
/** A 3×3 matrix as rows. */
export type M3 = [V3, V3, V3];
/** An index into a {@link V3} or a row of an {@link M3}. */
export type Index3 = 0 | 1 | 2;
/** The indices of a 3-vector, for `for (const i of INDEX3)` over tuples. */
export const INDEX3 = [0, 1, 2] as const;

/** The vector whose k-th entry is f(k). */
export const vector = (f: (k: Index3) => number): V3 => [f(0), f(1), f(2)];
/** The matrix whose (i, j) entry is f(i, j). */
export const matrix = (f: (i: Index3, j: Index3) => number): M3 => [
  [f(0, 0), f(0, 1), f(0, 2)],
  [f(1, 0), f(1, 1), f(1, 2)],
  [f(2, 0), f(2, 1), f(2, 2)],
];
/** Entry by entry: f of each entry and its index. */
export const mapV = (v: V3, f: (x: number, k: Index3) => number): V3 => [f(v[0], 0), f(v[1], 1), f(v[2], 2)];
/** Entry by entry: f of each entry and its row and column. */
export const mapM = (m: M3, f: (x: number, i: Index3, j: Index3) => number): M3 => matrix((i, j) => f(m[i][j], i, j));

/** The matrix whose columns are a, b and c. */
export const columns = (a: V3, b: V3, c: V3): M3 => [
  [a[0], b[0], c[0]],
  [a[1], b[1], c[1]],
  [a[2], b[2], c[2]],
];

/** Every choice of three of the items, in order (i < j < k). */
export function* triples<T>(items: readonly T[]): Generator<[T, T, T]> {
  for (let i = 0; i < items.length; i++)
    for (let j = i + 1; j < items.length; j++)
      for (let k = j + 1; k < items.length; k++) yield [items[i]!, items[j]!, items[k]!];
}

export const identity = (): M3 => [
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
];

export const zeros = (): M3 => [
  [0, 0, 0],
  [0, 0, 0],
  [0, 0, 0],
];

export function mul(a: M3, b: M3): M3 {
  const [b0, b1, b2] = b;
  const row = ([x, y, z]: V3): V3 => [
    x * b0[0] + y * b1[0] + z * b2[0],
    x * b0[1] + y * b1[1] + z * b2[1],
    x * b0[2] + y * b1[2] + z * b2[2],
  ];
  return [row(a[0]), row(a[1]), row(a[2])];
}

export function mulV(a: M3, v: V3): V3 {
  const [x, y, z] = v;
  const [a0, a1, a2] = a;
  return [a0[0] * x + a0[1] * y + a0[2] * z, a1[0] * x + a1[1] * y + a1[2] * z, a2[0] * x + a2[1] * y + a2[2] * z];
}

/** Rotations one after the other, each row by row, in one array (for loops over many products). */
export function flatRotations(rotations: readonly M3[]): Float64Array {
  const flat = new Float64Array(9 * rotations.length);
  for (const [i, [r0, r1, r2]] of rotations.entries()) {
    flat.set(r0, 9 * i);
    flat.set(r1, 9 * i + 3);
    flat.set(r2, 9 * i + 6);
  }
  return flat;
}

/**
 * Entry `i` of a typed array, in loops whose index arithmetic (`9 * a + k` for k < 9, a < n)
 * keeps it in range where the compiler cannot follow it. One small function, which V8 inlines: the
 * flat arrays exist for the hot loops, which read millions of entries.
 */
export const at = (array: Float64Array | Int32Array, i: number): number => array[i]!;

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
  for (let i = 0; i < 3 * n; i++) image[i] = at(w, 3 * i) + base * (at(w, 3 * i + 1) + base * at(w, 3 * i + 2));
  // Rotations by the image of their first row, chained through `next` when several share it.
  const first = new Map<number, number>();
  const next = new Int32Array(n).fill(-1);
  const find = (x: number, y: number, z: number): number => {
    for (let f = first.get(x) ?? -1; f >= 0; f = at(next, f))
      if (at(image, 3 * f + 1) === y && at(image, 3 * f + 2) === z) return f;
    return -1;
  };
  for (let i = n - 1; i >= 0; i--) {
    const x = at(image, 3 * i);
    if (find(x, at(image, 3 * i + 1), at(image, 3 * i + 2)) >= 0) return null;
    next[i] = first.get(x) ?? -1;
    first.set(x, i);
  }
  const table = new Int32Array(n * n);
  for (let a = 0; a < n; a++) {
    const r = 9 * a;
    const [w0, w1, w2, w3, w4, w5] = [at(w, r), at(w, r + 1), at(w, r + 2), at(w, r + 3), at(w, r + 4), at(w, r + 5)];
    const [w6, w7, w8] = [at(w, r + 6), at(w, r + 7), at(w, r + 8)];
    for (let b = 0; b < n; b++) {
      const [u, v, x] = [at(image, 3 * b), at(image, 3 * b + 1), at(image, 3 * b + 2)];
      table[a * n + b] = find(w0 * u + w1 * v + w2 * x, w3 * u + w4 * v + w5 * x, w6 * u + w7 * v + w8 * x);
    }
  }
  return table;
}

export const transpose = (a: M3): M3 => matrix((i, j) => a[j][i]);

export function det(a: M3): number {
  const [[a00, a01, a02], [a10, a11, a12], [a20, a21, a22]] = a;
  return a00 * (a11 * a22 - a12 * a21) - a01 * (a10 * a22 - a12 * a20) + a02 * (a10 * a21 - a11 * a20);
}

/** The other two indices of a 3-vector than i, in order. */
export const OTHERS = [
  [1, 2],
  [0, 2],
  [0, 1],
] as const;

export function inverse(a: M3): M3 {
  const d = det(a);
  const cofactor = (i: Index3, j: Index3) => {
    const [r0, r1] = OTHERS[i];
    const [s0, s1] = OTHERS[j];
    return (a[r0][s0] * a[r1][s1] - a[r0][s1] * a[r1][s0]) * ((i + j) % 2 ? -1 : 1);
  };
  return matrix((i, j) => cofactor(j, i) / d);
}

/** The metric (Gram matrix) of a lattice whose columns are the cell vectors. */
export const metric = (lattice: M3): M3 => mul(transpose(lattice), lattice);

export const sub = (a: V3, b: V3): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
export const norm = (v: V3): number => Math.hypot(v[0], v[1], v[2]);

/** A number naming an integer matrix (entries within ±8), for maps and sets of rotations. */
export function key(m: M3): number {
  let k = 0;
  for (const row of m) for (const x of row) k = k * 17 + (x + 8);
  return k;
}

export const isInteger = (m: M3, tolerance: number): boolean =>
  m.every((row) => row.every((x) => Math.abs(x - Math.round(x)) < tolerance));

export const round = (m: M3): M3 => mapM(m, (x) => Math.round(x) + 0);

/** Upper-triangular U with Uᵀ·U = g (Cholesky) of a symmetric positive definite matrix. */
export function cholesky(g: M3): M3 {
  const u = zeros();
  for (const i of INDEX3) {
    for (const j of INDEX3) {
      if (j < i) continue;
      let s = g[i][j];
      for (const k of INDEX3) if (k < i) s -= u[k][i] * u[k][j];
      u[i][j] = i === j ? Math.sqrt(s) : s / u[i][i];
    }
  }
  return u;
}
