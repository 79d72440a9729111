// A structure made exactly symmetric under the group the search found, so that the space group's
// tables (moyo's, at a tight tolerance) name that group and no other: the translations are averaged
// into an exact group (t'_g = t_g + mean over h of (t_gh − W_g·t_h − t_g), which closes exactly and
// differs from t by an origin shift), the lattice's metric is averaged over the rotations, and each
// atom moves to the mean of its images. The atoms keep their order and the cell its basis.
import {
  cholesky,
  inverse,
  key,
  metric,
  mul,
  mulV,
  productKey,
  round,
  transpose,
  wrap,
  type M3,
  type V3,
} from "./linear";
import { distance, type Cell, type Operation } from "./overlap";
import type { Primitive } from "./primitive";

/** The operations with translations that make an exact group (same rotations). */
function exactGroup(operations: Operation[]): Operation[] {
  const byRotation = new Map(operations.map((op) => [key(op.rotation), op]));
  const n = operations.length;
  return operations.map((g) => {
    const shift = [0, 0, 0];
    for (const h of operations) {
      const gh = byRotation.get(productKey(g.rotation, h.rotation)) as Operation;
      const [w, u] = [g.rotation, h.translation];
      for (let k = 0; k < 3; k++) {
        const d = gh.translation[k] - (w[k][0] * u[0] + w[k][1] * u[1] + w[k][2] * u[2]) - g.translation[k];
        shift[k] += (d - Math.round(d)) / n;
      }
    }
    return { rotation: g.rotation, translation: g.translation.map((x, k) => x + shift[k]) };
  });
}

/** The primitive cell made exactly invariant under the (exact) operations. */
function symmetrizePrimitive(cell: Cell, operations: Operation[]): Cell {
  const g = metric(cell.lattice);
  const averaged: M3 = [0, 1, 2].map(() => [0, 0, 0]);
  for (const { rotation: w } of operations) {
    const m = mul(mul(transpose(w), g), w);
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) averaged[i][j] += m[i][j] / operations.length;
  }
  // Same orientation: L' = L·V⁻¹·U with Vᵀ·V = G and Uᵀ·U = G' gives L'ᵀ·L' = G'.
  const lattice = mul(mul(cell.lattice, inverse(cholesky(g))), cholesky(averaged));
  const positions = cell.positions.map((x, i) => {
    const sum = [0, 0, 0];
    for (const { rotation, translation } of operations) {
      const image = mulV(rotation, x).map((v, k) => v + translation[k]);
      let j = -1;
      let best = Infinity;
      cell.positions.forEach((y, m) => {
        if (cell.types[m] !== cell.types[i]) return;
        const d = distance(cell.lattice, image, y);
        if (d < best) [best, j] = [d, m];
      });
      // The operation's inverse applied to the partner: a copy of x, to be averaged.
      const back = mulV(
        inverse(rotation),
        cell.positions[j].map((v, k) => v - translation[k]),
      );
      const d = wrap(back.map((v, k) => v - x[k]));
      for (let k = 0; k < 3; k++) sum[k] += d[k] / operations.length;
    }
    return x.map((v, k) => v + sum[k]);
  });
  return { lattice, positions, types: cell.types };
}

/**
 * The structure (its own cell and atom order) made exactly symmetric under the operations found
 * on its primitive cell.
 */
export function symmetrize(cell: Cell, primitive: Primitive, operations: Operation[]): Cell {
  const exact = symmetrizePrimitive(primitive.cell, exactGroup(operations));
  const back = round(inverse(primitive.transform)); // the structure's cell vectors in the primitive's basis
  const toPrimitive = inverse(primitive.transform);
  const positions = cell.positions.map((x, i) => {
    const m = primitive.mapping[i];
    const offset = mulV(toPrimitive, x).map((v, k) => Math.round(v - primitive.cell.positions[m][k]));
    return mulV(
      primitive.transform,
      exact.positions[m].map((v, k) => v + offset[k]),
    ) as V3;
  });
  return { lattice: mul(exact.lattice, back), positions, types: cell.types };
}
