// When does an operation map a structure onto itself? spglib's criterion, which pymatgen inherits:
// every atom, moved by the operation, lies closer than symprec (a Cartesian distance in Å, the
// difference taken to the nearest lattice point component by component) to a distinct atom of its
// own species; the translation is the one that takes one chosen atom exactly onto a partner.
import { mulV, type M3, type V3 } from "./linear";

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
  return Math.hypot(lattice[0][0] * x + lattice[0][1] * y + lattice[0][2] * z, lattice[1][0] * x + lattice[1][1] * y + lattice[1][2] * z, lattice[2][0] * x + lattice[2][1] * y + lattice[2][2] * z);
}

/** The first atom of the species with fewest atoms (ties: the species seen first): the search's origin. */
export function leastAtomsIndex(types: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const t of types) counts.set(t, (counts.get(t) ?? 0) + 1);
  let best = 0;
  for (let i = 0; i < types.length; i++) if ((counts.get(types[i]) as number) < (counts.get(types[best]) as number)) best = i;
  return best;
}

/** Whether (rotation, translation) maps every atom of the cell onto a distinct atom of its species within symprec. */
export function overlapsAll(cell: Cell, rotation: M3, translation: V3, symprec: number): boolean {
  const { lattice, positions, types } = cell;
  const n = positions.length;
  const moved = positions.map((p) => {
    const r = mulV(rotation, p);
    return [r[0] + translation[0], r[1] + translation[1], r[2] + translation[2]];
  });
  // A few atoms first: most wrong translations fail there, before the full matching.
  for (let i = 0; i < Math.min(3, n); i++) {
    let found = false;
    for (let j = 0; j < n && !found; j++) found = types[j] === types[i] && distance(lattice, moved[i], positions[j]) < symprec;
    if (!found) return false;
  }
  const used = new Uint8Array(n);
  for (let j = 0; j < n; j++) {
    let match = -1;
    for (let i = 0; i < n; i++) {
      if (!used[i] && types[i] === types[j] && distance(lattice, positions[j], moved[i]) < symprec) {
        match = i;
        break;
      }
    }
    if (match < 0) return false;
    used[match] = 1;
  }
  return true;
}
