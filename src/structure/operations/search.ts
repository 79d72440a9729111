// The space-group operations of a structure with spglib's tolerance semantics, so that a slightly
// noisy structure gets the group pymatgen's SpacegroupAnalyzer (spglib) gives it. The steps follow
// spglib's published algorithm (Togo & Tanaka, arXiv:1808.01590): a primitive cell; the lattice's
// point group within symprec and angle_tolerance; for each of its rotations the translations that
// take the first atom of the rarest species onto an atom of its species and every atom within
// symprec of a distinct one; and when what is found is no group (noise lets some operations
// through and not their products), the tolerance narrowed by 5% at a time until it is one.
// Each candidate's distance is measured once, so a narrower tolerance is a filter, not a new search.
import { latticeCandidates, selectRotations, type LatticeRotation } from "./lattice-symmetry";
import { at, INDEX3, key, mapV, mulV, type V3 } from "./linear";
import { checkDeadline, rotationTable, searchOrigin, worstDistance, type Cell, type Operation } from "./overlap";
import { primitiveOf, pureTranslations, type Primitive } from "./primitive";

export { SearchTimeout } from "./overlap";

/** What the search finds: the operations of the primitive cell, which make a group. */
export interface SearchResult {
  primitive: Primitive;
  operations: Operation[];
  /** The distance tolerance at which they were found (symprec, or narrower). */
  tolerance: number;
  /** The operations made an exact group (same rotations, translations moved to close exactly). */
  group: Operation[];
}

interface Candidates {
  rotations: LatticeRotation[];
  operations: (Operation & { worst: number })[];
}

/** Every lattice rotation within the widest tolerances, with the translations that could go with it. */
function candidatesOf(cell: Cell, symprec: number, angleTolerance: number, deadline?: number): Candidates {
  const rotations = latticeCandidates(cell.lattice, symprec, angleTolerance);
  const origin = searchOrigin(cell);
  const operations: Candidates["operations"] = [];
  for (const { rotation } of rotations) {
    checkDeadline(deadline);
    const moved = mulV(rotation, origin.position);
    const translation: V3 = [0, 0, 0];
    for (const [i, p] of cell.positions.entries()) {
      if (cell.types[i] !== origin.species) continue;
      checkDeadline(deadline);
      for (const k of INDEX3) translation[k] = p[k] - moved[k];
      const worst = worstDistance(cell, rotation, translation, symprec);
      if (worst < symprec)
        operations.push({ rotation, translation: mapV(translation, (x) => x - Math.floor(x)), worst });
    }
  }
  return { rotations, operations };
}

/** The operations that hold at these tolerances. */
function operationsAt(candidates: Candidates, symprec: number, angleTolerance: number): Candidates["operations"] {
  const allowed = new Set(selectRotations(candidates.rotations, symprec, angleTolerance).map(key));
  return candidates.operations.filter((op) => op.worst < symprec && allowed.has(key(op.rotation)));
}

/**
 * The operations of a primitive cell made an exact group, when they make a group: one translation
 * per rotation, and each product is (within a few tolerances, for the noise) one of them. Null when
 * they do not. The exact group has the same rotations and translations t'_g = t_g + mean over h of
 * (t_gh − W_g·t_h − t_g), which closes exactly and differs from t by an origin shift; the residuals
 * are the ones the check measures, so both come out of one pass over the products.
 */
function exactGroupOf(operations: Operation[], cell: Cell, symprec: number): Operation[] | null {
  const n = operations.length;
  const { table } = rotationTable(operations);
  if (!table) return null;
  const t = new Float64Array(3 * n);
  for (const [i, op] of operations.entries()) t.set(op.translation, 3 * i);
  const limit = (3 * symprec) ** 2;
  const [l0, l1, l2] = cell.lattice;
  const exact: Operation[] = [];
  for (const [a, { rotation, translation }] of operations.entries()) {
    const [[w0, w1, w2], [w3, w4, w5], [w6, w7, w8]] = rotation;
    const [ta0, ta1, ta2] = translation;
    let [s0, s1, s2] = [0, 0, 0];
    for (let b = 0; b < n; b++) {
      const product = at(table, a * n + b);
      if (product < 0) return null;
      const [u0, u1, u2] = [at(t, 3 * b), at(t, 3 * b + 1), at(t, 3 * b + 2)];
      // The residual t_ab − W_a·t_b − t_a, to the nearest lattice point.
      let e0 = at(t, 3 * product) - (w0 * u0 + w1 * u1 + w2 * u2) - ta0;
      let e1 = at(t, 3 * product + 1) - (w3 * u0 + w4 * u1 + w5 * u2) - ta1;
      let e2 = at(t, 3 * product + 2) - (w6 * u0 + w7 * u1 + w8 * u2) - ta2;
      e0 -= Math.round(e0);
      e1 -= Math.round(e1);
      e2 -= Math.round(e2);
      const x = l0[0] * e0 + l0[1] * e1 + l0[2] * e2;
      const y = l1[0] * e0 + l1[1] * e1 + l1[2] * e2;
      const z = l2[0] * e0 + l2[1] * e1 + l2[2] * e2;
      if (!(x * x + y * y + z * z < limit)) return null;
      s0 += e0 / n;
      s1 += e1 / n;
      s2 += e2 / n;
    }
    exact.push({ rotation, translation: [ta0 + s0, ta1 + s1, ta2 + s2] });
  }
  return exact;
}

/**
 * The operations of a structure's primitive cell, found as spglib finds them with `symprec` (Å)
 * and `angleTolerance` (degrees; negative: judged as a distance). Null when no tolerance down to
 * 0.95²⁰ of symprec gives a group (spglib then finds none either).
 * @param deadline a `Date.now()` past which the search gives up with a SearchTimeout
 */
export function searchOperations(
  cell: Cell,
  symprec: number,
  angleTolerance: number,
  deadline?: number,
): SearchResult | null {
  const seen = new Map<string, Candidates>();
  const tried = new Set<string>();
  const translations = pureTranslations(cell, symprec, deadline);
  let tolerance = symprec;
  let angle = angleTolerance;
  for (let attempt = 0; attempt < 20; attempt++) {
    checkDeadline(deadline);
    const primitive = primitiveOf(cell, translations, tolerance);
    if (primitive) {
      const at = primitive.tolerance;
      const cellKey = JSON.stringify(primitive.cell);
      let candidates = seen.get(cellKey);
      if (!candidates) seen.set(cellKey, (candidates = candidatesOf(primitive.cell, at, angle, deadline)));
      const all = candidates.operations;
      // A set of operations of this cell already judged gives the same answer again.
      const judged = (ops: Candidates["operations"]): boolean => {
        const id = `${cellKey}|${ops.map((op) => all.indexOf(op)).join(",")}`;
        if (tried.has(id)) return true;
        tried.add(id);
        return false;
      };
      const operations = operationsAt(candidates, at, angle);
      if (new Set(operations.map((op) => key(op.rotation))).size === operations.length) {
        const group = judged(operations) ? null : exactGroupOf(operations, primitive.cell, at);
        if (group) return { primitive, operations, tolerance: at, group };
        // Too many got through: keep those that still hold at a narrower tolerance.
        let narrower = at;
        for (let step = 0; step < 20; step++) {
          narrower *= 0.95;
          const allowed = new Set(selectRotations(candidates.rotations, narrower, angle).map(key));
          const kept = operations.filter((op) => allowed.has(key(op.rotation)) && op.worst < narrower);
          const exact = judged(kept) ? null : exactGroupOf(kept, primitive.cell, at);
          if (exact) return { primitive, operations: kept, tolerance: narrower, group: exact };
        }
      }
    }
    tolerance *= 0.95;
    if (angle > 0) angle *= 0.95;
  }
  return null;
}
