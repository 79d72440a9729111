// The setting the special points assume. made's special points (./special-points.ts) are given in
// the reciprocal basis of the lattice type's standard primitive cell (made's
// src/js/cell/primitive_cell.ts at 811d028c, Apache-2.0, after Setyawan and Curtarolo, 2010): their
// coordinates name the special points of a material's own cell only when that cell is this one up
// to a rotation and a scale. A Materials Project record's cell often is not (a body-centred
// tetragonal cell in another primitive setting, a monoclinic cell whose oblique angle is β).
import { invert, type Matrix3, parametersToVectors } from "../../../structure/cell";
import type { LatticeParameters } from "./special-points";

const cosine = (degrees: number) => Math.cos((degrees / 180) * Math.PI);

/** The standard primitive cell of each lattice type, from the record's parameters, as made builds it. */
const PRIMITIVE: Record<string, (l: LatticeParameters) => Matrix3> = {
  CUB: ({ a }) => [
    [a, 0, 0],
    [0, a, 0],
    [0, 0, a],
  ],
  FCC: ({ a }) => [
    [0, a / 2, a / 2],
    [a / 2, 0, a / 2],
    [a / 2, a / 2, 0],
  ],
  BCC: ({ a }) => [
    [-a / 2, a / 2, a / 2],
    [a / 2, -a / 2, a / 2],
    [a / 2, a / 2, -a / 2],
  ],
  TET: ({ a, c }) => [
    [a, 0, 0],
    [0, a, 0],
    [0, 0, c],
  ],
  BCT: ({ a, c }) => [
    [-a / 2, a / 2, c / 2],
    [a / 2, -a / 2, c / 2],
    [a / 2, a / 2, -c / 2],
  ],
  ORC: ({ a, b, c }) => [
    [a, 0, 0],
    [0, b, 0],
    [0, 0, c],
  ],
  ORCF: ({ a, b, c }) => [
    [0, b / 2, c / 2],
    [a / 2, 0, c / 2],
    [a / 2, b / 2, 0],
  ],
  ORCI: ({ a, b, c }) => [
    [-a / 2, b / 2, c / 2],
    [a / 2, -b / 2, c / 2],
    [a / 2, b / 2, -c / 2],
  ],
  ORCC: ({ a, b, c }) => [
    [a / 2, b / 2, 0],
    [-a / 2, b / 2, 0],
    [0, 0, c],
  ],
  HEX: ({ a, c }) => [
    [a / 2, (-a * Math.sqrt(3)) / 2, 0],
    [a / 2, (a * Math.sqrt(3)) / 2, 0],
    [0, 0, c],
  ],
  RHL: ({ a, alpha }) => {
    const cos = cosine(alpha);
    const cosHalf = Math.sqrt((1 + cos) / 2);
    const sinHalf = Math.sqrt((1 - cos) / 2);
    return [
      [a * cosHalf, -a * sinHalf, 0],
      [a * cosHalf, a * sinHalf, 0],
      [(a * cos) / cosHalf, 0, a * Math.sqrt(1 - (cos * cos) / (cosHalf * cosHalf))],
    ];
  },
  MCL: ({ a, b, c, alpha }) => {
    const cos = cosine(alpha);
    return [
      [a, 0, 0],
      [0, b, 0],
      [0, c * cos, c * Math.sqrt(1 - cos * cos)],
    ];
  },
  MCLC: ({ a, b, c, alpha }) => {
    const cos = cosine(alpha);
    return [
      [a / 2, b / 2, 0],
      [-a / 2, b / 2, 0],
      [0, c * cos, c * Math.sqrt(1 - cos * cos)],
    ];
  },
  TRI: (l) => parametersToVectors(l),
};

/** The metric (dot products of the vectors), which a rotation leaves as it is. */
function metric(cell: Matrix3): number[] {
  const dot = (i: number, j: number) => cell[i]!.reduce((sum, x, k) => sum + x * cell[j]![k]!, 0);
  return [dot(0, 0), dot(1, 1), dot(2, 2), dot(1, 2), dot(0, 2), dot(0, 1)];
}

/**
 * Whether `cell` is the lattice type's standard primitive cell (made's, from the record's own
 * parameters) up to a rotation and a scale, within `tolerance` of its metric: only then do the
 * special points' coordinates name points of `cell`'s Brillouin zone.
 */
export function isStandardCell(lattice: LatticeParameters, cell: Matrix3, tolerance = 1e-3): boolean {
  const make = PRIMITIVE[lattice.type];
  if (!make) return false;
  let standard: Matrix3;
  try {
    standard = make(lattice);
    invert(standard);
  } catch {
    return false;
  }
  const [g, h] = [metric(cell), metric(standard)];
  // Scale: the ratio of the two volumes' squares, cube-rooted, in units of length squared.
  const determinant = (m: Matrix3) =>
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
    m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
    m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  const scale = Math.cbrt((determinant(cell) / determinant(standard)) ** 2);
  if (!(scale > 0) || !Number.isFinite(scale)) return false;
  const size = Math.max(...g.slice(0, 3));
  return g.every((x, i) => Math.abs(x - scale * h[i]!) <= tolerance * size);
}
