// The cell maths in one place: lattice parameters <-> vectors, fractional <-> cartesian.
// Orientation: the crystallographic convention CIF readers use (ASE's `cellpar_to_cell`, VESTA):
// a along x, b in the xy plane, c completing a right-handed cell.
import { StructureError } from "../errors";

/** Three row vectors, in Å: `[a, b, c]`. */
export type Matrix3 = [Vector3, Vector3, Vector3];
/** Three numbers: a lattice vector in Å, or a position. */
export type Vector3 = [number, number, number];

/** The six lattice parameters: lengths in Å, angles in degrees (alpha = angle(b, c), ...). */
export interface CellParameters {
  a: number;
  b: number;
  c: number;
  alpha: number;
  beta: number;
  gamma: number;
}

const RAD = Math.PI / 180;

/** cos of an angle in degrees, exact at the right angles (so 90° gives 0, not 6e-17). */
function cosDeg(degrees: number): number {
  if (Math.abs(degrees - 90) < 1e-12) return 0;
  if (Math.abs(degrees - 60) < 1e-12) return 0.5;
  if (Math.abs(degrees - 120) < 1e-12) return -0.5;
  return Math.cos(degrees * RAD);
}

/** The cell vectors of six lattice parameters; throws a StructureError for parameters no cell has. */
export function parametersToVectors({ a, b, c, alpha, beta, gamma }: CellParameters): Matrix3 {
  for (const [name, value] of Object.entries({ a, b, c })) {
    if (!(value > 0 && Number.isFinite(value)))
      throw new StructureError(`lattice ${name} must be a positive length; got ${value}.`);
  }
  const [ca, cb, cg] = [cosDeg(alpha), cosDeg(beta), cosDeg(gamma)];
  const sg = Math.sqrt(1 - cg * cg);
  const cx = cb;
  const cy = (ca - cb * cg) / sg;
  const cz2 = 1 - cx * cx - cy * cy;
  if (!(sg > 0) || !(cz2 > 0)) {
    throw new StructureError(
      `lattice angles ${alpha}, ${beta}, ${gamma} do not make a cell (its volume would be zero or imaginary).`,
    );
  }
  return [
    [a, 0, 0],
    [b * cg, b * sg, 0],
    [c * cx, c * cy, c * Math.sqrt(cz2)],
  ];
}

const norm = (v: Vector3): number => Math.hypot(v[0], v[1], v[2]);
const dot = (u: Vector3, v: Vector3): number => u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
const angle = (u: Vector3, v: Vector3): number =>
  Math.acos(Math.max(-1, Math.min(1, dot(u, v) / (norm(u) * norm(v))))) / RAD;

/** The six lattice parameters of three cell vectors. */
export function vectorsToParameters([va, vb, vc]: Matrix3): CellParameters {
  return { a: norm(va), b: norm(vb), c: norm(vc), alpha: angle(vb, vc), beta: angle(va, vc), gamma: angle(va, vb) };
}

/** The signed volume of a cell (Å³); positive for a right-handed one. */
export function cellVolume([va, vb, vc]: Matrix3): number {
  return dot(va, [vb[1] * vc[2] - vb[2] * vc[1], vb[2] * vc[0] - vb[0] * vc[2], vb[0] * vc[1] - vb[1] * vc[0]]);
}

/** The first three numbers of a position; throws a StructureError when it has fewer. */
function threeOf(position: readonly number[]): Vector3 {
  const [x, y, z] = position;
  if (x === undefined || y === undefined || z === undefined)
    throw new StructureError(`a position needs three coordinates; got ${position.length}.`);
  return [x, y, z];
}

/** v · m: the combination of m's rows with v's weights. */
function combine([x, y, z]: Vector3, [r0, r1, r2]: Matrix3): Vector3 {
  return [x * r0[0] + y * r1[0] + z * r2[0], x * r0[1] + y * r1[1] + z * r2[1], x * r0[2] + y * r1[2] + z * r2[2]];
}

/**
 * Cartesian position (Å) of fractional coordinates in a cell: `f · [a; b; c]`. Throws a
 * StructureError for fewer than three coordinates.
 */
export function fractionalToCartesian(f: readonly number[], cell: Matrix3): Vector3 {
  return combine(threeOf(f), cell);
}

/** Fractional coordinates of a cartesian position (Å) in a cell (at least three coordinates). */
export function cartesianToFractional(r: readonly number[], cell: Matrix3): Vector3 {
  return combine(threeOf(r), invert(cell));
}

/** The inverse of a 3x3 matrix; throws for a singular (flat) cell. */
export function invert(m: Matrix3): Matrix3 {
  const [[a, b, c], [d, e, f], [g, h, i]] = m;
  const det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  if (Math.abs(det) < 1e-12) throw new StructureError("the cell vectors are linearly dependent (a flat cell).");
  return [
    [(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
    [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
    [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det],
  ];
}

/** A fractional coordinate wrapped into [0, 1), with values a rounding error below 1 taken as 0. */
export function wrapFractional(x: number): number {
  const w = x - Math.floor(x);
  return w > 1 - 1e-9 ? 0 : w;
}

/** The angles (degrees) a lattice's symmetry holds exactly: hexagonal and fcc 60/120, right, bcc's and the rhombohedral ones. */
const EXACT_ANGLES: readonly number[] = [60, 90, 120, Math.acos(-1 / 3) / RAD, Math.acos(1 / 3) / RAD];

/** a · b of row-vector matrices. */
function multiply(a: Matrix3, b: Matrix3): Matrix3 {
  return [combine(a[0], b), combine(a[1], b), combine(a[2], b)];
}

/**
 * The cell with the lengths that agree within `lengthTolerance` (relative) made equal (their
 * mean), and the angles within `angleTolerance` degrees of 60, 90, 120 or a bcc cell's made
 * exact, in the cell's own orientation; undefined when the cell is exact already. A published
 * structure rounds its vectors (the Materials Project's silicon has a = 3.866976 Å, b = c =
 * 3.866975 Å): a program that finds the symmetry within its tolerance and then checks it exactly
 * (Quantum ESPRESSO's projwfc.x) stops on such a cell.
 */
export function exactCell(
  cell: Matrix3,
  lengthTolerance = 1e-5,
  angleTolerance = 1e-4,
): { cell: Matrix3; from: CellParameters; to: CellParameters } | undefined {
  const from = vectorsToParameters(cell);
  const lengths = [from.a, from.b, from.c];
  const exact = [...lengths];
  for (let i = 0; i < 3; i++) {
    const group = lengths.filter((l) => Math.abs(l - lengths[i]!) <= lengthTolerance * Math.max(l, lengths[i]!));
    exact[i] = group.reduce((sum, l) => sum + l, 0) / group.length;
  }
  const angles = [from.alpha, from.beta, from.gamma].map(
    (value) => EXACT_ANGLES.find((ideal) => Math.abs(value - ideal) <= angleTolerance) ?? value,
  );
  const [a = from.a, b = from.b, c = from.c] = exact;
  const [alpha = from.alpha, beta = from.beta, gamma = from.gamma] = angles;
  const to: CellParameters = { a, b, c, alpha, beta, gamma };
  // The cell is its lower-triangular form turned by a rotation, which the exact cell keeps.
  const rotation = multiply(invert(parametersToVectors(from)), cell);
  const made = multiply(parametersToVectors(to), rotation);
  const moved = Math.max(...made.flatMap((row, i) => row.map((x, j) => Math.abs(x - cell[i]![j]!))));
  return moved > 1e-12 ? { cell: made, from, to } : undefined;
}
