// The primitive cell as spglib finds it: the pure translations (each atom of the rarest species
// taken as a candidate image of the first) that map the structure onto itself within symprec, a
// cell spanned by them, and each primitive atom at the mean of its images. When the images do not
// come out as a whole number per atom, the tolerance is narrowed by 5% and the search repeated.
import { delaunayReduce } from "./lattice-symmetry";
import { det, identity, inverse, mul, mulV, round, sub, type M3, type V3 } from "./linear";
import { checkDeadline, distance, leastAtomsIndex, worstDistance, type Cell } from "./overlap";

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
  const origin = leastAtomsIndex(cell.types);
  const found: { translation: V3; worst: number }[] = [{ translation: [0, 0, 0], worst: 0 }];
  cell.positions.forEach((p, i) => {
    if (cell.types[i] !== cell.types[origin] || i === origin) return;
    checkDeadline(deadline);
    const t = sub(p, cell.positions[origin]);
    const worst = worstDistance(cell, I, t, symprec);
    if (worst < symprec) found.push({ translation: t.map((x) => x - Math.floor(x)), worst });
  });
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
  for (let i = 0; i < vectors.length && !transform; i++) {
    for (let j = i + 1; j < vectors.length && !transform; j++) {
      for (let k = j + 1; k < vectors.length && !transform; k++) {
        const m: M3 = [0, 1, 2].map((r) => [vectors[i][r], vectors[j][r], vectors[k][r]]);
        const d = Math.abs(det(m));
        if (d > 1e-6 && Math.round(1 / d) === multiplicity) {
          const back = round(inverse(m)); // whole numbers: the structure's cell in the primitive one
          if (Math.abs(det(back)) === multiplicity) transform = inverse(back);
        }
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
  const mapping = new Array<number>(n).fill(-1);
  const representatives: number[] = [];
  for (let i = 0; i < n; i++) {
    let count = 0;
    for (let j = 0; j < n; j++) {
      if (cell.types[j] !== cell.types[i] || !(distance(lattice, positions[i], positions[j]) < symprec)) continue;
      count++;
      if (mapping[i] < 0) mapping[i] = j < i ? mapping[j] : representatives.length;
    }
    if (count !== multiplicity) return null;
    if (mapping[i] === representatives.length) representatives.push(i);
  }
  if (representatives.length * multiplicity !== n) return null;
  // Each primitive atom at the mean of its images.
  const sums = representatives.map(() => [0, 0, 0]);
  positions.forEach((p, i) => {
    const r = positions[representatives[mapping[i]]];
    for (let k = 0; k < 3; k++) sums[mapping[i]][k] += r[k] + (p[k] - r[k] - Math.round(p[k] - r[k]));
  });
  const cellOut: Cell = {
    lattice,
    positions: sums.map((s) => s.map((x) => x / multiplicity)),
    types: representatives.map((r) => cell.types[r]),
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
