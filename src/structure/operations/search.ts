// The space-group operations of a structure with spglib's tolerance semantics, so that a slightly
// noisy structure gets the group pymatgen's SpacegroupAnalyzer (spglib) gives it. The steps follow
// spglib's published algorithm (Togo & Tanaka, arXiv:1808.01590): a primitive cell; the lattice's
// point group within symprec and angle_tolerance; for each of its rotations the translations that
// take the first atom of the rarest species onto an atom of its species and every atom within
// symprec of a distinct one; and when what is found is no group (noise lets some operations
// through and not their products), the tolerance narrowed by 5% at a time until it is one.
import { latticeRotations } from "./lattice-symmetry";
import { key, mul, mulV, sub, type M3 } from "./linear";
import { distance, leastAtomsIndex, overlapsAll, type Cell, type Operation } from "./overlap";
import { primitiveOf, type Primitive } from "./primitive";

/** Thrown when the search runs past its deadline. */
export class SearchTimeout extends Error {}

/** What the search finds: the operations of the primitive cell, which make a group. */
export interface SearchResult {
  primitive: Primitive;
  operations: Operation[];
  /** The distance tolerance at which they were found (symprec, or narrower). */
  tolerance: number;
}

function checkDeadline(deadline: number | undefined): void {
  if (deadline !== undefined && Date.now() > deadline) throw new SearchTimeout("the symmetry search ran past its time budget");
}

/** For each lattice rotation, the translations that make it a symmetry of the (primitive) cell. */
function operationsOf(cell: Cell, rotations: M3[], symprec: number, deadline?: number): Operation[] {
  const origin = leastAtomsIndex(cell.types);
  const operations: Operation[] = [];
  for (const rotation of rotations) {
    checkDeadline(deadline);
    const moved = mulV(rotation, cell.positions[origin]);
    cell.positions.forEach((p, i) => {
      if (cell.types[i] !== cell.types[origin]) return;
      const translation = sub(p, moved);
      if (overlapsAll(cell, rotation, translation, symprec)) operations.push({ rotation, translation: translation.map((x) => x - Math.floor(x)) });
    });
  }
  return operations;
}

/**
 * Whether operations of a primitive cell make a group: one translation per rotation, and each
 * product is (within a few tolerances, for the noise) one of them.
 */
function isGroup(operations: Operation[], cell: Cell, symprec: number): boolean {
  const byRotation = new Map(operations.map((op) => [key(op.rotation), op]));
  if (byRotation.size !== operations.length) return false;
  for (const g of operations) {
    for (const h of operations) {
      const product = byRotation.get(key(mul(g.rotation, h.rotation)));
      if (!product) return false;
      const t = mulV(g.rotation, h.translation).map((x, k) => x + g.translation[k]);
      if (!(distance(cell.lattice, t, product.translation) < 3 * symprec)) return false;
    }
  }
  return true;
}

/**
 * The operations of a structure's primitive cell, found as spglib finds them with `symprec` (Å)
 * and `angleTolerance` (degrees; negative: judged as a distance). Null when no tolerance down to
 * 0.95²⁰ of symprec gives a group (spglib then finds none either).
 * @param deadline a `Date.now()` past which the search gives up with a SearchTimeout
 */
export function searchOperations(cell: Cell, symprec: number, angleTolerance: number, deadline?: number): SearchResult | null {
  let tolerance = symprec;
  let angle = angleTolerance;
  for (let attempt = 0; attempt < 20; attempt++) {
    checkDeadline(deadline);
    const primitive = primitiveOf(cell, tolerance);
    if (primitive) {
      const at = primitive.tolerance;
      const lattice = primitive.cell.lattice;
      const operations = operationsOf(primitive.cell, latticeRotations(lattice, at, angle), at, deadline);
      if (new Set(operations.map((op) => key(op.rotation))).size === operations.length) {
        if (isGroup(operations, primitive.cell, at)) return { primitive, operations, tolerance: at };
        // Too many got through: keep those that still hold at a narrower tolerance.
        let narrower = at;
        for (let step = 0; step < 20; step++) {
          narrower *= 0.95;
          const allowed = new Set(latticeRotations(lattice, narrower, angle).map(key));
          const kept = operations.filter((op) => allowed.has(key(op.rotation)) && overlapsAll(primitive.cell, op.rotation, op.translation, narrower));
          if (isGroup(kept, primitive.cell, at)) return { primitive, operations: kept, tolerance: narrower };
        }
      }
    }
    tolerance *= 0.95;
    if (angle > 0) angle *= 0.95;
  }
  return null;
}
