// The point group of a lattice with spglib's tolerances: a matrix W is a symmetry of the lattice
// when the rotated cell's vectors have the lengths of the original within symprec (Å) and the angles
// between them within angle_tolerance (degrees); with a negative angle tolerance the angles are
// judged as a distance instead. As in spglib, the candidates are the unimodular matrices whose
// columns are the 26 vectors {-1, 0, 1}³ \ 0 in a Delaunay-reduced basis, and a tolerance that
// lets through more than 48 operations is narrowed by 5% at a time.
import {
  at,
  columns,
  det,
  type Index3,
  inverse,
  isInteger,
  mapM,
  metric,
  mul,
  norm,
  round,
  transpose,
  triples,
  type M3,
  type V3,
  vector,
} from "./linear";
import { StructureError } from "../../errors";

const AXES: V3[] = [];
for (const x of [-1, 0, 1])
  for (const y of [-1, 0, 1]) for (const z of [-1, 0, 1]) if (x || y || z) AXES.push([x, y, z]);

/** Pairs of the four vectors of a Selling reduction. */
const PAIRS = [
  [0, 1],
  [0, 2],
  [0, 3],
  [1, 2],
  [1, 3],
  [2, 3],
] as const;

const add = (u: V3, v: V3): V3 => [u[0] + v[0], u[1] + v[1], u[2] + v[2]];
const dot = (u: V3, v: V3) => u[0] * v[0] + u[1] * v[1] + u[2] * v[2];

/**
 * A Delaunay (Selling) reduced basis of the same lattice, columns as cell vectors. Throws a
 * RangeError when the reduction does not finish (a degenerate cell).
 */
export function delaunayReduce(lattice: M3): M3 {
  const [b0, b1, b2] = transpose(lattice);
  const b: [V3, V3, V3, V3] = [b0, b1, b2, vector((k) => -(b0[k] + b1[k] + b2[k]))];
  const scale = Math.max(...b.map(norm));
  const eps = 1e-10 * scale * scale;
  let reduced = false;
  for (let step = 0; step < 1000 && !reduced; step++) {
    reduced = true;
    for (const [i, j] of PAIRS) {
      if (dot(b[i], b[j]) > eps) {
        for (const k of [0, 1, 2, 3] as const) if (k !== i && k !== j) b[k] = add(b[k], b[i]);
        b[i] = vector((k) => -b[i][k]);
        reduced = false;
        break;
      }
    }
  }
  if (!reduced) throw new StructureError("the cell could not be Delaunay-reduced");
  const [c0, c1, c2, c3] = b;
  const candidates = [c0, c1, c2, c3, add(c0, c1), add(c1, c2), add(c2, c0)].sort((u, v) => norm(u) - norm(v));
  const volume = Math.abs(det(lattice));
  for (const [u, v, w] of triples(candidates)) {
    const m = columns(u, v, w);
    const d = det(m);
    if (Math.abs(Math.abs(d) - volume) < 1e-6 * volume) return d < 0 ? mapM(m, (x) => -x) : m;
  }
  throw new StructureError("no reduced basis found");
}

/** A candidate lattice rotation and how far it moves the cell's metric. */
export interface LatticeRotation {
  /** The rotation in the basis of the lattice it was found for. */
  rotation: M3;
  /** Largest change of a vector's length, Å. */
  length: number;
  /** Largest change of an angle between vectors, degrees. */
  angle: number;
  /** Largest change of an angle judged as a distance (spglib's rule for a negative angle tolerance), Å. */
  angleDistance: number;
}

const degrees = (cos: number) => (Math.acos(Math.max(-1, Math.min(1, cos))) * 180) / Math.PI;

/** How far one angle moves: in degrees, and as a distance (spglib's rule for a negative angle tolerance). */
function angleChange(
  cosOriginal: number,
  lo1: number,
  lo2: number,
  cosRotated: number,
  lr1: number,
  lr2: number,
): { angle: number; distance: number } {
  const x =
    cosOriginal * cosRotated +
    Math.sqrt(Math.max(0, 1 - cosOriginal ** 2)) * Math.sqrt(Math.max(0, 1 - cosRotated ** 2));
  const sin2 = 1 - x * x;
  // sin²Δθ times the mean lengths' product, against symprec².
  const distance = sin2 > 1e-12 ? Math.sqrt((sin2 * (lo1 + lr1) * (lo2 + lr2)) / 4) : 0;
  return { angle: Math.abs(degrees(cosOriginal) - degrees(cosRotated)), distance };
}

// Scratch space of latticeCandidates, reused from call to call (it neither recurses nor yields).
const products = new Float64Array(26 * 26);
const angles = new Float64Array(3 * 26 * 26);
const distances = new Float64Array(3 * 26 * 26);

/** One of the 26 axes, as a candidate image of a cell vector. */
interface Axis {
  /** Its place in AXES. */
  index: number;
  vector: V3;
  /** Its length in the cell's metric, Å. */
  length: number;
}

/**
 * The candidate rotations (integer matrices acting on fractional coordinates of `lattice`) that
 * map the lattice onto itself within the widest tolerances the search will use; {@link selectRotations}
 * narrows them.
 */
export function latticeCandidates(lattice: M3, symprec: number, angleTolerance: number): LatticeRotation[] {
  const reduced = delaunayReduce(lattice);
  const g = metric(reduced);
  // Scalar products of the 26 axes in this metric: the rotated cell's metric is read off them.
  // Written out term by term (the same sum, in the same order): as a nested loop it cost more than
  // the rest of this function.
  const [[g00, g01, g02], [g10, g11, g12], [g20, g21, g22]] = g;
  for (const [n, [u0, u1, u2]] of AXES.entries()) {
    for (const [m, [v0, v1, v2]] of AXES.entries()) {
      products[26 * n + m] =
        u0 * g00 * v0 +
        u0 * g01 * v1 +
        u0 * g02 * v2 +
        u1 * g10 * v0 +
        u1 * g11 * v1 +
        u1 * g12 * v2 +
        u2 * g20 * v0 +
        u2 * g21 * v1 +
        u2 * g22 * v2;
    }
  }
  const axes: Axis[] = AXES.map((v, index) => ({ index, vector: v, length: Math.sqrt(at(products, 27 * index)) }));
  const lo = vector((i) => Math.sqrt(g[i][i]));
  const column = (i: Index3) => axes.filter((axis) => Math.abs(axis.length - lo[i]) <= symprec);
  // The change of the angle between vectors j and k when they become axes n and m, measured once
  // for all the triples that share it: degrees in `angles`, the distance rule's Å in `distances`.
  angles.fill(Number.NaN);
  const change = (j: Index3, k: Index3, n: Axis, m: Axis): number => {
    const slot = ((j + k - 1) * 26 + n.index) * 26 + m.index;
    if (Number.isNaN(at(angles, slot))) {
      const c = angleChange(
        g[j][k] / lo[j] / lo[k],
        lo[j],
        lo[k],
        at(products, 26 * n.index + m.index) / n.length / m.length,
        n.length,
        m.length,
      );
      angles[slot] = c.angle;
      distances[slot] = c.distance;
    }
    return slot;
  };
  const within = (slot: number) =>
    angleTolerance > 0 ? at(angles, slot) <= angleTolerance : at(distances, slot) <= symprec;
  // Back to the basis of `lattice`: W' = T·W·T⁻¹ with T = lattice⁻¹·reduced (integer, unimodular).
  const t = round(mul(inverse(lattice), reduced));
  const ti = inverse(t);
  // Whether the basis changed at all (a cell given reduced keeps W as found).
  const reduction = !t.every((row, i) => row.every((x, j) => x === (i === j ? 1 : 0)));
  const found: LatticeRotation[] = [];
  const [first, second, third] = [column(0), column(1), column(2)];
  for (const a of first) {
    for (const b of second) {
      const ab = change(0, 1, a, b);
      if (!within(ab)) continue; // most pairs fail here, before the third column is tried
      for (const c of third) {
        const [u, v, x] = [a.vector, b.vector, c.vector];
        const determinant =
          u[0] * (v[1] * x[2] - v[2] * x[1]) - v[0] * (u[1] * x[2] - u[2] * x[1]) + x[0] * (u[1] * v[2] - u[2] * v[1]);
        if (determinant !== 1 && determinant !== -1) continue;
        const [ac, bc] = [change(0, 2, a, c), change(1, 2, b, c)];
        if (!within(ac) || !within(bc)) continue;
        const w = columns(u, v, x);
        const rotation = reduction ? mul(mul(t, w), ti) : w;
        if (reduction && !isInteger(rotation, 0.1)) continue;
        found.push({
          rotation: reduction ? round(rotation) : w,
          length: Math.max(Math.abs(a.length - lo[0]), Math.abs(b.length - lo[1]), Math.abs(c.length - lo[2])),
          angle: Math.max(at(angles, ab), at(angles, ac), at(angles, bc)),
          angleDistance: Math.max(at(distances, ab), at(distances, ac), at(distances, bc)),
        });
      }
    }
  }
  return found;
}

/**
 * The lattice's rotations within `symprec` (Å) and `angleTolerance` (degrees), spglib's way: an
 * angle tolerance that lets more than 48 through is narrowed by 5% at a time.
 */
export function selectRotations(candidates: readonly LatticeRotation[], symprec: number, angleTolerance: number): M3[] {
  let tolerance = angleTolerance;
  for (let attempt = 0; attempt < 100; attempt++) {
    const kept = candidates.filter(
      (c) => c.length <= symprec && (tolerance > 0 ? c.angle <= tolerance : c.angleDistance <= symprec),
    );
    if (kept.length <= 48 || tolerance <= 0) return kept.map((c) => c.rotation);
    tolerance *= 0.95;
  }
  return [];
}
