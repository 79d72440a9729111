// The point group of a lattice with spglib's tolerances: a matrix W is a symmetry of the lattice
// when the rotated cell's vectors have the lengths of the original within symprec (Å) and the angles
// between them within angle_tolerance (degrees); with a negative angle tolerance the angles are
// judged as a distance instead. As in spglib, the candidates are the unimodular matrices whose
// columns are the 26 vectors {-1, 0, 1}³ \ 0 in a Delaunay-reduced basis, and a tolerance that
// lets through more than 48 operations is narrowed by 5% at a time.
import { det, inverse, isInteger, metric, mul, norm, round, type M3, type V3 } from "./linear";

const AXES: V3[] = [];
for (const x of [-1, 0, 1]) for (const y of [-1, 0, 1]) for (const z of [-1, 0, 1]) if (x || y || z) AXES.push([x, y, z]);

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
          for (let k = 0; k < 4; k++) if (k !== i && k !== j) b[k] = [b[k][0] + b[i][0], b[k][1] + b[i][1], b[k][2] + b[i][2]];
          b[i] = [-b[i][0], -b[i][1], -b[i][2]];
          reduced = false;
          break search;
        }
      }
    }
  }
  if (!reduced) throw new RangeError("the cell could not be Delaunay-reduced");
  const s = (u: V3, v: V3): V3 => [u[0] + v[0], u[1] + v[1], u[2] + v[2]];
  const candidates = [b[0], b[1], b[2], b[3], s(b[0], b[1]), s(b[1], b[2]), s(b[2], b[0])].sort((u, v) => norm(u) - norm(v));
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
  throw new RangeError("no reduced basis found");
}

const angle = (g: M3, i: number, j: number) => (Math.acos(Math.max(-1, Math.min(1, g[i][j] / Math.sqrt(g[i][i] * g[j][j])))) * 180) / Math.PI;

/** Whether the metric of a transformed cell equals the original's within the tolerances. */
function sameMetric(rotated: M3, original: M3, symprec: number, angleTolerance: number): boolean {
  const lo = [0, 1, 2].map((i) => Math.sqrt(original[i][i]));
  const lr = [0, 1, 2].map((i) => Math.sqrt(rotated[i][i]));
  for (let i = 0; i < 3; i++) if (Math.abs(lo[i] - lr[i]) > symprec) return false;
  for (const [j, k] of [
    [0, 1],
    [0, 2],
    [1, 2],
  ]) {
    if (angleTolerance > 0) {
      if (Math.abs(angle(original, j, k) - angle(rotated, j, k)) > angleTolerance) return false;
    } else {
      // The angle's change as a distance: sin²Δθ times the mean lengths' product, against symprec².
      const c1 = original[j][k] / lo[j] / lo[k];
      const c2 = rotated[j][k] / lr[j] / lr[k];
      const x = c1 * c2 + Math.sqrt(Math.max(0, 1 - c1 * c1)) * Math.sqrt(Math.max(0, 1 - c2 * c2));
      const sin2 = 1 - x * x;
      if (sin2 > 1e-12 && (sin2 * (lo[j] + lr[j]) * (lo[k] + lr[k])) / 4 > symprec * symprec) return false;
    }
  }
  return true;
}

/**
 * The rotations (integer matrices acting on fractional coordinates of `lattice`) that map the
 * lattice onto itself within the tolerances, spglib's way.
 */
export function latticeRotations(lattice: M3, symprec: number, angleTolerance: number): M3[] {
  const reduced = delaunayReduce(lattice);
  const g = metric(reduced);
  const lengths = AXES.map((a) => norm([0, 1, 2].map((r) => reduced[r][0] * a[0] + reduced[r][1] * a[1] + reduced[r][2] * a[2])));
  const columns = [0, 1, 2].map((i) => AXES.filter((_, n) => Math.abs(lengths[n] - Math.sqrt(g[i][i])) <= symprec));
  let tolerance = angleTolerance;
  for (let attempt = 0; attempt < 100; attempt++) {
    const found: M3[] = [];
    let tooMany = false;
    for (const a of columns[0]) {
      for (const b of columns[1]) {
        for (const c of columns[2]) {
          const w: M3 = [0, 1, 2].map((r) => [a[r], b[r], c[r]]);
          if (Math.abs(det(w)) !== 1) continue;
          if (!sameMetric(metric(mul(reduced, w)), g, symprec, tolerance)) continue;
          found.push(w);
          if (found.length > 48) tooMany = true;
        }
      }
    }
    if (!tooMany || tolerance <= 0) {
      // Back to the basis of `lattice`: W' = T·W·T⁻¹ with T = lattice⁻¹·reduced (integer, unimodular).
      const t = round(mul(inverse(lattice), reduced));
      const ti = inverse(t);
      return found.map((w) => mul(mul(t, w), ti)).filter((w) => isInteger(w, 0.1)).map(round);
    }
    tolerance *= 0.95;
  }
  return [];
}
