// When does an operation map a structure onto itself? spglib's criterion, which pymatgen inherits:
// every atom, moved by the operation, lies closer than symprec (a Cartesian distance in Å, the
// difference taken to the nearest lattice point component by component) to a distinct atom of its
// own species; the translation is the one that takes one chosen atom exactly onto a partner.
import { MatframeError, StructureError } from "../../errors";
import { LruCache } from "../../lru-cache";
import { flatRotations, productTable, type M3, type V3 } from "./linear";

/** Thrown when the search runs past its deadline (the local platform's symmetry budget). */
export class SearchTimeout extends MatframeError {
  override readonly code: string = "ERR_SYMMETRY_TIMEOUT";
  override readonly name: string = "SearchTimeout";
}

/** Throws a SearchTimeout once `Date.now()` is past the deadline, if there is one. */
export function checkDeadline(deadline: number | undefined): void {
  if (deadline !== undefined && Date.now() > deadline)
    throw new SearchTimeout("the symmetry search ran past its time budget");
}

/** A periodic structure as the search takes it: lattice columns in Å, fractional positions, species numbers. */
export interface Cell {
  lattice: M3;
  positions: V3[];
  /** The species of each position: as many as there are positions. */
  types: number[];
}

/** An operation in fractional coordinates: x' = rotation · x + translation. */
export interface Operation {
  rotation: M3;
  translation: V3;
}

const tables = new WeakMap<readonly Operation[], { rotations: Float64Array; table: Int32Array | null }>();

/**
 * Multiplication tables by the rotations they are of, in order: a structure's rotations are
 * mostly a set met before (the lattice's point group in a basis many cells share), and the table
 * is a function of the integer matrices alone. At most 1,000 are kept, the least recently used
 * forgotten first.
 */
const tablesByRotations = new LruCache<string, Int32Array | null>(1000);

/**
 * The operations' rotations as {@link flatRotations} and their {@link productTable}, computed once
 * per array of operations (the group check and the symmetrizing both need them; the arrays are
 * never changed once made) and once per list of rotations.
 */
export function rotationTable(operations: readonly Operation[]): { rotations: Float64Array; table: Int32Array | null } {
  let found = tables.get(operations);
  if (!found) {
    const rotations = flatRotations(operations.map((op) => op.rotation));
    // The matrices' entries, byte for byte, name the list.
    const named = Buffer.from(rotations.buffer, rotations.byteOffset, rotations.byteLength).toString("latin1");
    let table = tablesByRotations.get(named);
    if (table === undefined) {
      table = productTable(rotations);
      tablesByRotations.set(named, table);
    }
    found = { rotations, table };
    tables.set(operations, found);
  }
  return found;
}

/** Distance in Å between two fractional positions, to the nearest image as spglib takes it. */
export function distance(lattice: M3, a: V3, b: V3): number {
  return Math.sqrt(squaredDistance(lattice, a[0] - b[0], a[1] - b[1], a[2] - b[2]));
}

/**
 * The squared Cartesian length (Å²) of a fractional difference taken to the nearest lattice point
 * component by component. Squared and without `Math.hypot` (several times slower): the search
 * measures millions of these.
 */
export function squaredDistance(lattice: M3, d0: number, d1: number, d2: number): number {
  const x = d0 - Math.round(d0);
  const y = d1 - Math.round(d1);
  const z = d2 - Math.round(d2);
  const [r0, r1, r2] = lattice;
  const u = r0[0] * x + r0[1] * y + r0[2] * z;
  const v = r1[0] * x + r1[1] * y + r1[2] * z;
  const w = r2[0] * x + r2[1] * y + r2[2] * z;
  return u * u + v * v + w * w;
}

/** An atom of a {@link Cell}: its index, position and species. */
export interface Atom {
  index: number;
  position: V3;
  species: number;
}

/**
 * The first atom of the species with fewest atoms (ties: the species seen first): the search's
 * origin. Throws a StructureError for a cell without atoms.
 */
export function searchOrigin(cell: Cell): Atom {
  const index = leastAtomsIndex(cell.types);
  const [position, species] = [cell.positions[index], cell.types[index]];
  if (!position || species === undefined)
    throw new StructureError("the structure has no atoms, so it has no space group; add its sites.");
  return { index, position, species };
}

function leastAtomsIndex(types: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const t of types) counts.set(t, (counts.get(t) ?? 0) + 1);
  let best = 0;
  let fewest = Infinity;
  for (const [i, t] of types.entries()) {
    const count = counts.get(t)!;
    if (count < fewest) [best, fewest] = [i, count];
  }
  return best;
}

/**
 * How far (rotation, translation) moves the cell from itself: the largest distance, in Å, from a
 * moved atom to the nearest atom of its species. Infinity when that exceeds `cap` or the nearest
 * atoms are not a one-to-one match. The operation is a symmetry at tolerance symprec (spglib's
 * rule) when this is below symprec.
 */
export function worstDistance(cell: Cell, rotation: M3, translation: V3, cap: number): number {
  const { positions, types } = cell;
  const n = positions.length;
  const capSquared = cap * cap;
  // A few atoms first: most wrong translations fail there, before all atoms are matched.
  for (const [i, p] of positions.entries()) {
    if (i === 3) break;
    if (!(nearest(cell, rotation, translation, p, types[i]!) < capSquared)) return Infinity;
  }
  if (used.length < n) used = new Uint8Array(2 * n);
  used.fill(0, 0, n);
  let worst = 0;
  for (const [i, p] of positions.entries()) {
    const d = nearest(cell, rotation, translation, p, types[i]!);
    if (!(d < capSquared) || used[match]) return Infinity;
    used[match] = 1;
    if (d > worst) worst = d;
  }
  return Math.sqrt(worst);
}

/** Which atoms a {@link worstDistance} has matched so far (reused from call to call). */
let used = new Uint8Array(64);
/** The atom the last {@link nearest} found. */
let match = -1;

/** The squared distance from atom p of a species, moved, to the nearest atom of that species (that one in `match`). */
function nearest(cell: Cell, rotation: M3, translation: V3, p: V3, species: number): number {
  const { lattice, positions, types } = cell;
  const [w0, w1, w2] = rotation;
  const m0 = w0[0] * p[0] + w0[1] * p[1] + w0[2] * p[2] + translation[0];
  const m1 = w1[0] * p[0] + w1[1] * p[1] + w1[2] * p[2] + translation[1];
  const m2 = w2[0] * p[0] + w2[1] * p[1] + w2[2] * p[2] + translation[2];
  let best = Infinity;
  match = -1;
  // An index loop: the search's innermost, where entries() measured slower.
  for (let j = 0; j < positions.length; j++) {
    if (types[j] !== species) continue;
    const q = positions[j]!;
    const d = squaredDistance(lattice, m0 - q[0], m1 - q[1], m2 - q[2]);
    if (d < best) {
      best = d;
      match = j;
    }
  }
  return best;
}
