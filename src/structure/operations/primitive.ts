// The primitive cell as spglib finds it: the pure translations (each atom of the rarest species
// taken as a candidate image of the first) that map the structure onto itself within symprec, a
// cell spanned by them, and each primitive atom at the mean of its images. When the images do not
// come out as a whole number per atom, the tolerance is narrowed by 5% and the search repeated.
import { delaunayReduce } from "./lattice-symmetry";
import {
  columns,
  det,
  identity,
  INDEX3,
  inverse,
  mapV,
  mul,
  mulV,
  round,
  sub,
  triples,
  type M3,
  type V3,
} from "./linear";
import { checkDeadline, distance, searchOrigin, worstDistance, type Cell } from "./overlap";

const I = identity();

/** A primitive cell of a structure and how the structure's atoms map onto it. */
export interface Primitive {
  cell: Cell;
  /** Fractional coordinates of the structure's cell = `transform` · those of the primitive cell. */
  transform: M3;
  /** The primitive atom of each atom of the structure. */
  mapping: number[];
  /** The tolerance at which it was found (symprec, or narrower). */
  tolerance: number;
}

/** A candidate pure translation and how far it moves the cell from itself (Å). */
export interface PureTranslation {
  translation: V3;
  worst: number;
}

/** The candidate pure translations (the zero one first) within the widest tolerance. */
export function pureTranslations(cell: Cell, symprec: number, deadline?: number): PureTranslation[] {
  const origin = searchOrigin(cell);
  const found: PureTranslation[] = [{ translation: [0, 0, 0], worst: 0 }];
  for (const [i, p] of cell.positions.entries()) {
    if (cell.types[i] !== origin.species || i === origin.index) continue;
    checkDeadline(deadline);
    const t = sub(p, origin.position);
    const worst = worstDistance(cell, I, t, symprec);
    if (worst < symprec) found.push({ translation: mapV(t, (x) => x - Math.floor(x)), worst });
  }
  return found;
}

function primitiveAt(cell: Cell, candidates: PureTranslation[], symprec: number): Primitive | null {
  const n = cell.positions.length;
  const translations = candidates.filter((c) => c.worst < symprec).map((c) => c.translation);
  const multiplicity = translations.length;
  if (multiplicity === 1) return { cell, transform: I, mapping: cell.positions.map((_, i) => i), tolerance: symprec };
  if (n % multiplicity !== 0) return null;
  // Three of the translations and the cell's own vectors that span a cell `multiplicity` times smaller.
  const vectors: V3[] = [...translations.filter((t) => t.some((x) => x !== 0)), [1, 0, 0], [0, 1, 0], [0, 0, 1]];
  let transform: M3 | undefined;
  for (const [u, v, w] of triples(vectors)) {
    const m = columns(u, v, w);
    const d = Math.abs(det(m));
    if (d > 1e-6 && Math.round(1 / d) === multiplicity) {
      const back = round(inverse(m)); // whole numbers: the structure's cell in the primitive one
      if (Math.abs(det(back)) === multiplicity) {
        transform = inverse(back);
        break;
      }
    }
  }
  if (!transform) return null;
  const lattice0 = mul(cell.lattice, transform);
  const reduced = delaunayReduce(lattice0);
  transform = mul(transform, round(mul(inverse(lattice0), reduced)));
  const lattice = mul(cell.lattice, transform);
  const toPrimitive = inverse(transform);
  const positions = cell.positions.map((p) => mulV(toPrimitive, p));
  const { types } = cell;
  // The primitive atom of each atom so far, and each primitive atom's first image, species and
  // sum of images (each taken to the image nearest the first).
  const mapping: number[] = [];
  const representatives: { position: V3; species: number; sum: V3 }[] = [];
  for (const [i, p] of positions.entries()) {
    let count = 0;
    let image = -1;
    for (const [j, q] of positions.entries()) {
      if (types[j] !== types[i] || !(distance(lattice, p, q) < symprec)) continue;
      count++;
      if (image < 0) image = j < i ? mapping[j]! : representatives.length;
    }
    if (count !== multiplicity) return null;
    mapping.push(image);
    if (image === representatives.length) representatives.push({ position: p, species: types[i]!, sum: [0, 0, 0] });
    const { position: r, sum } = representatives[image]!;
    for (const k of INDEX3) sum[k] += r[k] + (p[k] - r[k] - Math.round(p[k] - r[k]));
  }
  if (representatives.length * multiplicity !== n) return null;
  // Each primitive atom at the mean of its images.
  const cellOut: Cell = {
    lattice,
    positions: representatives.map(({ sum }) => mapV(sum, (x) => x / multiplicity)),
    types: representatives.map(({ species }) => species),
  };
  return { cell: cellOut, transform, mapping, tolerance: symprec };
}

/**
 * The primitive cell, narrowing the tolerance by 5% (up to 100 times) while none is consistent.
 * @param candidates the cell's {@link pureTranslations} at symprec or wider
 */
export function primitiveOf(cell: Cell, candidates: PureTranslation[], symprec: number): Primitive | null {
  let tolerance = symprec;
  let tried = -1;
  for (let attempt = 0; attempt < 100; attempt++) {
    const count = candidates.filter((c) => c.worst < tolerance).length;
    // The same translations give the same answer: only a narrower set is worth a new try.
    if (count !== tried) {
      tried = count;
      const primitive = primitiveAt(cell, candidates, tolerance);
      if (primitive) return primitive;
    }
    tolerance *= 0.95;
  }
  return null;
}
