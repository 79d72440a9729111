// When does an operation map a structure onto itself? spglib's criterion, which pymatgen inherits:
// every atom, moved by the operation, lies closer than symprec (a Cartesian distance in Å, the
// difference taken to the nearest lattice point component by component) to a distinct atom of its
// own species; the translation is the one that takes one chosen atom exactly onto a partner.
import { mulV, type M3, type V3 } from "./linear";

/** Thrown when the search runs past its deadline. */
export class SearchTimeout extends Error {}

/** Throws a SearchTimeout once `Date.now()` is past the deadline, if there is one. */
export function checkDeadline(deadline: number | undefined): void {
  if (deadline !== undefined && Date.now() > deadline)
    throw new SearchTimeout("the symmetry search ran past its time budget");
}

/** A periodic structure as the search takes it: lattice columns in Å, fractional positions, species numbers. */
export interface Cell {
  lattice: M3;
  positions: V3[];
  types: number[];
}

/** An operation in fractional coordinates: x' = rotation · x + translation. */
export interface Operation {
  rotation: M3;
  translation: V3;
}

/** Distance in Å between two fractional positions, to the nearest image as spglib takes it. */
export function distance(lattice: M3, a: V3, b: V3): number {
  const d0 = a[0] - b[0];
  const d1 = a[1] - b[1];
  const d2 = a[2] - b[2];
  const x = d0 - Math.round(d0);
  const y = d1 - Math.round(d1);
  const z = d2 - Math.round(d2);
  return Math.hypot(
    lattice[0][0] * x + lattice[0][1] * y + lattice[0][2] * z,
    lattice[1][0] * x + lattice[1][1] * y + lattice[1][2] * z,
    lattice[2][0] * x + lattice[2][1] * y + lattice[2][2] * z,
  );
}

/** The first atom of the species with fewest atoms (ties: the species seen first): the search's origin. */
export function leastAtomsIndex(types: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const t of types) counts.set(t, (counts.get(t) ?? 0) + 1);
  let best = 0;
  for (let i = 0; i < types.length; i++)
    if ((counts.get(types[i]) as number) < (counts.get(types[best]) as number)) best = i;
  return best;
}

/**
 * How far (rotation, translation) moves the cell from itself: the largest distance, in Å, from a
 * moved atom to the nearest atom of its species. Infinity when that exceeds `cap` or the nearest
 * atoms are not a one-to-one match. The operation is a symmetry at tolerance symprec (spglib's
 * rule) when this is below symprec.
 */
export function worstDistance(cell: Cell, rotation: M3, translation: V3, cap: number): number {
  const { lattice, positions, types } = cell;
  const n = positions.length;
  const nearest = (i: number): [number, number] => {
    const r = mulV(rotation, positions[i]);
    const moved = [r[0] + translation[0], r[1] + translation[1], r[2] + translation[2]];
    let best = Infinity;
    let match = -1;
    for (let j = 0; j < n; j++) {
      if (types[j] !== types[i]) continue;
      const d = distance(lattice, moved, positions[j]);
      if (d < best) [best, match] = [d, j];
    }
    return [best, match];
  };
  // A few atoms first: most wrong translations fail there, before all atoms are matched.
  for (let i = 0; i < Math.min(3, n); i++) if (!(nearest(i)[0] < cap)) return Infinity;
  const used = new Uint8Array(n);
  let worst = 0;
  for (let i = 0; i < n; i++) {
    const [d, j] = nearest(i);
    if (!(d < cap) || used[j]) return Infinity;
    used[j] = 1;
    worst = Math.max(worst, d);
  }
  return worst;
}
