// The point group of a lattice with spglib's tolerances: a matrix W is a symmetry of the lattice
// when the rotated cell's vectors have the lengths of the original within symprec (Å) and the angles
// between them within angle_tolerance (degrees); with a negative angle tolerance the angles are
// judged as a distance instead. As in spglib, the candidates are the unimodular matrices whose
// columns are the 26 vectors {-1, 0, 1}³ \ 0 in a Delaunay-reduced basis, and a tolerance that
// lets through more than 48 operations is narrowed by 5% at a time.
import { det, inverse, isInteger, metric, mul, norm, round, type M3, type V3 } from "./linear";
import { StructureError } from "../../errors";

const AXES: V3[] = [];
for (const x of [-1, 0, 1])
  for (const y of [-1, 0, 1]) for (const z of [-1, 0, 1]) if (x || y || z) AXES.push([x, y, z]);

/**
 * A Delaunay (Selling) reduced basis of the same lattice, columns as cell vectors. Throws a
 * RangeError when the reduction does not finish (a degenerate cell).
 */
export function delaunayReduce(lattice: M3): M3 {
  const col = (j: number): V3 => [lattice[0][j], lattice[1][j], lattice[2][j]];
  const b: V3[] = [col(0), col(1), col(2)];
  b.push([-(b[0][0] + b[1][0] + b[2][0]), -(b[0][1] + b[1][1] + b[2][1]), -(b[0][2] + b[1][2] + b[2][2])]);
  const scale = Math.max(...b.map(norm));
  const eps = 1e-10 * scale * scale;
  const dot = (u: V3, v: V3) => u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  let reduced = false;
  for (let step = 0; step < 1000 && !reduced; step++) {
    reduced = true;
    search: for (let i = 0; i < 4; i++) {
      for (let j = i + 1; j < 4; j++) {
        if (dot(b[i], b[j]) > eps) {
          for (let k = 0; k < 4; k++)
            if (k !== i && k !== j) b[k] = [b[k][0] + b[i][0], b[k][1] + b[i][1], b[k][2] + b[i][2]];
          b[i] = [-b[i][0], -b[i][1], -b[i][2]];
          reduced = false;
          break search;
        }
      }
    }
  }
  if (!reduced) throw new StructureError("the cell could not be Delaunay-reduced");
  const s = (u: V3, v: V3): V3 => [u[0] + v[0], u[1] + v[1], u[2] + v[2]];
  const candidates = [b[0], b[1], b[2], b[3], s(b[0], b[1]), s(b[1], b[2]), s(b[2], b[0])].sort(
    (u, v) => norm(u) - norm(v),
  );
  const volume = Math.abs(det(lattice));
  for (let i = 0; i < 7; i++) {
    for (let j = i + 1; j < 7; j++) {
      for (let k = j + 1; k < 7; k++) {
        const m: M3 = [0, 1, 2].map((r) => [candidates[i][r], candidates[j][r], candidates[k][r]]);
        const d = det(m);
        if (Math.abs(Math.abs(d) - volume) < 1e-6 * volume) return d < 0 ? m.map((row) => row.map((x) => -x)) : m;
      }
    }
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
  for (let n = 0; n < 26; n++) {
    const [u0, u1, u2] = AXES[n];
    for (let m = 0; m < 26; m++) {
      const [v0, v1, v2] = AXES[m];
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
  const lengths = AXES.map((_, n) => Math.sqrt(products[27 * n]));
  const lo = [0, 1, 2].map((i) => Math.sqrt(g[i][i]));
  const columns = [0, 1, 2].map((i) => AXES.map((_, n) => n).filter((n) => Math.abs(lengths[n] - lo[i]) <= symprec));
  // The change of the angle between vectors j and k when they become axes n and m, measured once
  // for all the triples that share it: degrees in `angles`, the distance rule's Å in `distances`.
  angles.fill(Number.NaN);
  const change = (j: number, k: number, n: number, m: number): number => {
    const at = ((j + k - 1) * 26 + n) * 26 + m;
    if (Number.isNaN(angles[at])) {
      const c = angleChange(
        g[j][k] / lo[j] / lo[k],
        lo[j],
        lo[k],
        products[26 * n + m] / lengths[n] / lengths[m],
        lengths[n],
        lengths[m],
      );
      angles[at] = c.angle;
      distances[at] = c.distance;
    }
    return at;
  };
  const within = (at: number) => (angleTolerance > 0 ? angles[at] <= angleTolerance : distances[at] <= symprec);
  // Back to the basis of `lattice`: W' = T·W·T⁻¹ with T = lattice⁻¹·reduced (integer, unimodular).
  const t = round(mul(inverse(lattice), reduced));
  const ti = inverse(t);
  // Whether the basis changed at all (a cell given reduced keeps W as found).
  const reduction = !t.every((row, i) => row.every((x, j) => x === (i === j ? 1 : 0)));
  const found: LatticeRotation[] = [];
  for (const a of columns[0]) {
    for (const b of columns[1]) {
      const ab = change(0, 1, a, b);
      if (!within(ab)) continue; // most pairs fail here, before the third column is tried
      for (const c of columns[2]) {
        const [u, v, x] = [AXES[a], AXES[b], AXES[c]];
        const determinant =
          u[0] * (v[1] * x[2] - v[2] * x[1]) - v[0] * (u[1] * x[2] - u[2] * x[1]) + x[0] * (u[1] * v[2] - u[2] * v[1]);
        if (determinant !== 1 && determinant !== -1) continue;
        const [ac, bc] = [change(0, 2, a, c), change(1, 2, b, c)];
        if (!within(ac) || !within(bc)) continue;
        const w: M3 = [0, 1, 2].map((r) => [u[r], v[r], x[r]]);
        const rotation = reduction ? mul(mul(t, w), ti) : w;
        if (reduction && !isInteger(rotation, 0.1)) continue;
        found.push({
          rotation: reduction ? round(rotation) : w,
          length: Math.max(Math.abs(lengths[a] - lo[0]), Math.abs(lengths[b] - lo[1]), Math.abs(lengths[c] - lo[2])),
          angle: Math.max(angles[ab], angles[ac], angles[bc]),
          angleDistance: Math.max(distances[ab], distances[ac], distances[bc]),
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
