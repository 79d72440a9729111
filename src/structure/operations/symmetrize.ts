// A structure made exactly symmetric under the group the search found (made an exact group there),
// so that the space group's tables (moyo's, at a tight tolerance) name that group and no other: the
// lattice's metric is averaged over the rotations, and each atom moves to the mean of its images.
// The atoms keep their order and the cell its basis.
import { cholesky, INDEX3, inverse, mapM, mapV, metric, mul, mulV, round, transpose, type V3, zeros } from "./linear";
import { squaredDistance, type Cell, type Operation } from "./overlap";
import type { Primitive } from "./primitive";

/** The primitive cell made exactly invariant under the (exact) operations. */
function symmetrizePrimitive(cell: Cell, operations: Operation[]): Cell {
  const g = metric(cell.lattice);
  let averaged = zeros();
  for (const { rotation: w } of operations) {
    const m = mul(mul(transpose(w), g), w);
    averaged = mapM(averaged, (x, i, j) => x + m[i][j] / operations.length);
  }
  // Same orientation: L' = L·V⁻¹·U with Vᵀ·V = G and Uᵀ·U = G' gives L'ᵀ·L' = G'.
  const lattice = mul(mul(cell.lattice, inverse(cholesky(g))), cholesky(averaged));
  const withInverses = operations.map((op) => ({ ...op, inverse: inverse(op.rotation) }));
  const { positions, types } = cell;
  const back: V3 = [0, 0, 0];
  const symmetric = positions.map((x, i) => {
    const sum: V3 = [0, 0, 0];
    for (const { rotation: w, translation: t, inverse: v } of withInverses) {
      const m0 = w[0][0] * x[0] + w[0][1] * x[1] + w[0][2] * x[2] + t[0];
      const m1 = w[1][0] * x[0] + w[1][1] * x[1] + w[1][2] * x[2] + t[1];
      const m2 = w[2][0] * x[0] + w[2][1] * x[1] + w[2][2] * x[2] + t[2];
      let partner = x;
      let best = Infinity;
      for (const [m, y] of positions.entries()) {
        if (types[m] !== types[i]) continue;
        const d = squaredDistance(cell.lattice, m0 - y[0], m1 - y[1], m2 - y[2]);
        if (d < best) [best, partner] = [d, y];
      }
      // The operation's inverse applied to the partner: a copy of x, to be averaged.
      const [y0, y1, y2] = [partner[0] - t[0], partner[1] - t[1], partner[2] - t[2]];
      for (const k of INDEX3) back[k] = v[k][0] * y0 + v[k][1] * y1 + v[k][2] * y2 - x[k];
      for (const k of INDEX3) sum[k] += (back[k] - Math.round(back[k])) / operations.length;
    }
    return mapV(x, (v, k) => v + sum[k]);
  });
  return { lattice, positions: symmetric, types };
}

/**
 * The structure (its own cell and atom order) made exactly symmetric under an exact group of
 * operations of its primitive cell (the search's `group`).
 */
export function symmetrize(cell: Cell, primitive: Primitive, group: Operation[]): Cell {
  const exact = symmetrizePrimitive(primitive.cell, group);
  const back = round(inverse(primitive.transform)); // the structure's cell vectors in the primitive's basis
  const toPrimitive = inverse(primitive.transform);
  const positions = cell.positions.map((x, i) => {
    // The primitive atom of atom i, which the symmetrized primitive cell keeps in its place.
    const m = primitive.mapping[i]!;
    const [before, after] = [primitive.cell.positions[m]!, exact.positions[m]!];
    const offset = mapV(mulV(toPrimitive, x), (v, k) => Math.round(v - before[k]));
    return mulV(
      primitive.transform,
      mapV(after, (v, k) => v + offset[k]),
    );
  });
  return { lattice: mul(exact.lattice, back), positions, types: cell.types };
}
