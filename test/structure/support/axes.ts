import type { Matrix3, Vector3 } from "../../../src";

// The three axes as a tuple, so that `v[k]` of a Vector3 is a number for each of them (indexing
// with a plain `number` is `number | undefined` under noUncheckedIndexedAccess).

export type Axis = 0 | 1 | 2;

/** The axes x, y, z (or a, b, c): `AXES.every((k) => …)` compares two vectors axis by axis. */
export const AXES = [0, 1, 2] as const;

/**
 * The vector whose k-th coordinate is `f(k)`.
 * @example const image = byAxis((k) => dot(rotation[k], x) + translation[k]);
 */
export function byAxis(f: (k: Axis) => number): Vector3 {
  return [f(0), f(1), f(2)];
}

/**
 * The 3×3 matrix whose entry in row i, column k is `f(i, k)`.
 * @example const product = byAxes((i, k) => a[i][0] * b[0][k] + a[i][1] * b[1][k] + a[i][2] * b[2][k]);
 */
export function byAxes(f: (i: Axis, k: Axis) => number): Matrix3 {
  return [byAxis((k) => f(0, k)), byAxis((k) => f(1, k)), byAxis((k) => f(2, k))];
}
