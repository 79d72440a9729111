// The path through the Brillouin zone a bands unit's template prints (`K_POINTS crystal_b`:
// `{{kpath.length}}`, then each point's `coordinates` and `steps`), as the platform's context
// provider gives it (wode's PointsPathFormDataProvider): the material's lattice type's default path
// (made's `defaultKpointPath`, 10 steps from each point to the next), its points in the
// coordinates of the reciprocal vectors of the material's own cell, which is the cell pw.x gets
// (CELL_PARAMETERS). A unit's own `context.kpath` replaces it, taken as numbers only.
import type { Vector3 } from "../../../structure/cell";
import { structureOf, type StructureRecord } from "../../../structure/structure";
import {
  defaultPathNames,
  extendedType,
  GAMMA,
  type LatticeParameters,
  specialPoints,
  TYPES_WITH_PATHS,
} from "./special-points";
import { isStandardCell } from "./standard-cell";

/** Steps from each point of the default path to the next (wode's `defaultSteps`). */
export const DEFAULT_STEPS = 10;

/** A unit's own path: at most this many points, each at most this many steps, all coordinates within ±this. */
const LIMITS = Object.freeze({ points: 100, steps: 1000, kpoints: 5000, coordinate: 10 });

/** One point of the path as the template reads it: pw.x runs `steps` k-points from it to the next. */
export interface KPathPoint {
  /** The special point's name (`Г`, `X` ...), for the notes; never printed into the input. */
  point?: string;
  coordinates: Vector3;
  steps: number;
}

/** The path a bands unit runs, where it came from, or why there is none. */
export type KPath = { kpath: KPathPoint[]; fromUnit: boolean; note: string } | { reason: string };

type Rec = Record<string, unknown>;
const isRecord = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const finite = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** The material's lattice type and parameters, as its record gives them. */
function latticeOf(material: Rec): LatticeParameters | undefined {
  const lattice = isRecord(material.lattice) ? material.lattice : {};
  const type = typeof lattice.type === "string" ? lattice.type : "";
  const [a, b, c, alpha, beta, gamma] = ["a", "b", "c", "alpha", "beta", "gamma"].map((k) => finite(lattice[k]));
  if (!type || a === undefined || b === undefined || c === undefined) return undefined;
  if (alpha === undefined || beta === undefined || gamma === undefined) return undefined;
  return { type, a, b, c, alpha, beta, gamma };
}

/**
 * A unit's own path, or why it is not one: at least two points, each with `steps` (a whole number
 * from 1) and either `coordinates` (three numbers) or `point`, a special point's name of the
 * material's lattice (looked up, never printed).
 */
function unitPath(given: unknown[], points: Record<string, Vector3> | undefined): KPathPoint[] | string {
  if (given.length < 2 || given.length > LIMITS.points)
    return `it has ${given.length} points, not 2 to ${LIMITS.points}`;
  const path: KPathPoint[] = [];
  for (const [i, item] of given.entries()) {
    if (!isRecord(item)) return `its point ${i + 1} is not an object`;
    const { steps } = item;
    if (typeof steps !== "number" || !Number.isInteger(steps) || steps < 1 || steps > LIMITS.steps)
      return `its point ${i + 1} has no whole number of steps from 1 to ${LIMITS.steps}`;
    const coordinates = Array.isArray(item.coordinates) ? item.coordinates.map(finite) : [];
    const named = typeof item.point === "string" ? points?.[item.point] : undefined;
    if (coordinates.length === 3 && coordinates.every((x) => x !== undefined && Math.abs(x) <= LIMITS.coordinate))
      path.push({ coordinates: coordinates as Vector3, steps });
    else if (named) path.push({ point: item.point as string, coordinates: named, steps });
    else
      return `its point ${i + 1} has neither three coordinates within ±${LIMITS.coordinate} nor a special point's name of the lattice`;
  }
  const kpoints = kpointCount(path);
  if (kpoints > LIMITS.kpoints) return `it makes ${kpoints} k-points, more than ${LIMITS.kpoints}`;
  return path;
}

/** Whether the material's own cell is its lattice type's standard primitive cell (a rotation and a scale apart). */
function standardSetting(material: Rec, lattice: LatticeParameters): boolean {
  try {
    return isStandardCell(lattice, structureOf(material as unknown as StructureRecord).cell);
  } catch {
    return false;
  }
}

/** The path of a bands unit of `material`: the unit's own `context.kpath`, else its lattice's default. */
export function kpathOf(material: Rec, unitContext: Rec): KPath {
  const lattice = latticeOf(material);
  const known = lattice ? specialPoints(lattice) : undefined;
  // The points name this cell's special points only in the type's standard setting.
  const standard = lattice !== undefined && known !== undefined && standardSetting(material, lattice);
  const points = standard ? known : undefined;
  let unused = "";
  if (Array.isArray(unitContext.kpath)) {
    const own = unitPath(unitContext.kpath, points);
    if (typeof own !== "string") return { kpath: own, fromUnit: true, note: "the unit's own path" };
    unused = `; the unit's own kpath is not used: ${own}`;
  }
  const names = lattice ? defaultPathNames(lattice) : undefined;
  if (!lattice || !known || !names)
    return {
      reason: `there is no default k-point path here for the lattice type ${JSON.stringify(lattice ? extendedType(lattice) : "none")} (only ${TYPES_WITH_PATHS.join(", ")}); give the bands unit's context a kpath (points with coordinates and steps)${unused}`,
    };
  if (!points)
    return {
      reason: `the material's cell is not the standard primitive cell of its lattice type ${lattice.type} (the setting the platform's special points assume, after Setyawan and Curtarolo), so the default path's coordinates would not be this cell's special points; give the bands unit's context a kpath of points with coordinates in this cell's reciprocal basis, and steps${unused}`,
    };
  const kpath: KPathPoint[] = [];
  for (const point of names) {
    const coordinates = points[point];
    // The data names only its own points; a path's name missing from them is a table's typo.
    if (!coordinates) return { reason: `the default path of ${lattice.type} names ${point}, not one of its points` };
    kpath.push({ point, coordinates, steps: DEFAULT_STEPS });
  }
  const shown = names.map((n) => (n === GAMMA ? "Γ" : n)).join("–");
  return {
    kpath,
    fromUnit: false,
    note: `the platform's default path for ${lattice.type}, ${shown}, ${DEFAULT_STEPS} steps between points${unused}`,
  };
}

/** The k-points pw.x makes of a `crystal_b` path: each point's steps to the next, and the last point. */
export function kpointCount(kpath: readonly KPathPoint[]): number {
  return kpath.slice(0, -1).reduce((sum, p) => sum + p.steps, 1);
}
