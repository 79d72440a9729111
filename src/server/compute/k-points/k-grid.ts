// The k-point grid the platform's KGridFormDataManager gives a unit whose context sets none: a
// number of k-points per reciprocal atom (KPPRA) spread over the three reciprocal axes in
// proportion to their lengths (made.js ReciprocalLattice.calculateDimension:
// N_i = ceil(cbrt(n · |b_i|² / (|b_j| |b_k|))), n = KPPRA / atoms).
import type { Matrix3, Vector3 } from "../../../structure/cell";

/**
 * KPPRA of a self-consistent unit. The platform's library default (5) gives silicon a 2×2×2 grid
 * and a gap 1.7 eV off; 400 gives 6×6×6 for a two-atom fcc cell, the grid at which Si's total
 * energy is converged to about 1 mRy.
 * @default 400
 */
export const SCF_KPPRA = 400;

/**
 * KPPRA of a non-self-consistent unit (the band gap's bands): eight times the SCF density, twice
 * the points along each axis (12×12×12 for Si, where the gap at the grid reaches the Materials
 * Project's GGA value, 0.61 eV; 6×6×6 gives 0.71 eV).
 * @default 3200
 */
export const NSCF_KPPRA = 3200;

/** An automatic Monkhorst–Pack grid as the templates print it. */
export interface KGrid {
  dimensions: [number, number, number];
  shifts: [number, number, number];
  /** How the dimensions were chosen, for the job's notes. */
  gridMetricType: "KPPRA";
  gridMetricValue: number;
}

function cross(u: Vector3, v: Vector3): Vector3 {
  return [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
}

/** Lengths of the reciprocal vectors (without 2π: only their ratios matter here). */
function reciprocalNorms([a, b, c]: Matrix3): [number, number, number] {
  const volume =
    a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
  const norm = (v: Vector3) => Math.hypot(v[0], v[1], v[2]) / Math.abs(volume);
  return [norm(cross(b, c)), norm(cross(c, a)), norm(cross(a, b))];
}

/** The grid for `kppra` k-points per reciprocal atom in `cell` with `atoms` atoms. */
export function kGridOf(cell: Matrix3, atoms: number, kppra: number): KGrid {
  const norms = reciprocalNorms(cell);
  const points = kppra / atoms;
  // The other two axes of each.
  const others = [
    [1, 2],
    [0, 2],
    [0, 1],
  ] as const;
  const dimension = (i: 0 | 1 | 2): number => {
    const [j, k] = others[i];
    // Rounded before ceil so that an fcc cell's equal norms, equal but for the last bit, give
    // equal dimensions.
    const n = Math.cbrt((points * norms[i] ** 2) / (norms[j] * norms[k]));
    return Math.max(1, Math.ceil(Number(n.toFixed(9))));
  };
  return {
    dimensions: [dimension(0), dimension(1), dimension(2)],
    shifts: [0, 0, 0],
    gridMetricType: "KPPRA",
    gridMetricValue: kppra,
  };
}
