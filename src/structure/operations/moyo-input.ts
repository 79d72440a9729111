// A structure as moyo reads it, once spglib's tolerance rules have decided which operations hold
// and the structure has been made exactly symmetric under them (see docs/symmetry.md).
import { StructureError } from "../../errors";
import { cellVolume, type Matrix3 } from "../cell";
import type { MoyoCell } from "../moyo";
import { structureOf, who, type StructureRecord } from "../structure";
import { transpose, type V3 } from "./linear";
import { identifyGroup, type GroupType } from "./identify";
import { distance } from "./overlap";
import { searchOperations } from "./search";
import { symmetrize } from "./symmetrize";

/** pymatgen's default distance tolerance (`SpacegroupAnalyzer(symprec=0.01)`), in Å. */
export const DEFAULT_SYMPREC = 0.01;
/** pymatgen's default angle tolerance (`SpacegroupAnalyzer(angle_tolerance=5)`), in degrees. */
export const DEFAULT_ANGLE_TOLERANCE = 5;
/**
 * The tolerance (Å) at which moyo reads the structure once it has been made exactly symmetric
 * under the operations found with the user's tolerances: far below any real displacement, far
 * above rounding errors.
 */
const EXACT_SYMPREC = 1e-5;

/**
 * A structure as moyo takes it (the cell as JSON, species numbered in order of first appearance),
 * made exactly symmetric under the operations that spglib's tolerance rules find with `symprec`
 * and `angleTolerance`: moyo, reading it at a tight tolerance, then names the group pymatgen's
 * SpacegroupAnalyzer names. For callers that run moyo elsewhere too (the local platform runs it in
 * a worker thread; with `search: false` it gets the cell as it is, for moyo's own tolerance
 * handling). Throws a StructureError for a structure that is no structure, has a flat cell
 * or no space group at these tolerances; a SearchTimeout past `deadline` (a `Date.now()`).
 */
export function moyoInput(
  record: StructureRecord,
  options: { symprec: number; angleTolerance: number; deadline?: number; search?: boolean } = {
    symprec: DEFAULT_SYMPREC,
    angleTolerance: DEFAULT_ANGLE_TOLERANCE,
  },
): {
  /** The cell as moyo's JSON, made on the first call (the symmetrizing is half the search's time). */
  json: () => string;
  exactSymprec: number;
  /** The cell given is left-handed, so moyo reads it with every vector reversed: its translations are the negatives of the cell's. */
  mirrored: boolean;
  species: string[];
  cell: Matrix3;
  sites: ReturnType<typeof structureOf>["sites"];
  /**
   * The space group's type and standard setting named from the operations found, without moyo
   * (see identify.ts); undefined when no standard setting matches them, and with `search: false`.
   */
  identify: () => GroupType | undefined;
  /** Atoms in the primitive cell (with `search: false`, in the cell given). */
  primitiveAtoms: number;
} {
  const { cell, sites } = structureOf(record);
  const volume = Math.abs(cellVolume(cell));
  const scale = Math.max(...cell.map((v) => Math.hypot(...v)));
  if (!(volume > 1e-9 * scale ** 3))
    throw new StructureError(
      `${who(record)}: the cell has no volume (its vectors are coplanar); a space group needs a three-dimensional cell.`,
      record._id,
    );
  const species: string[] = [];
  const numbers = sites.map((s) => {
    const k = species.indexOf(s.element);
    return k >= 0 ? k + 1 : species.push(s.element);
  });
  const searchCell = {
    lattice: transpose(cell),
    positions: sites.map(({ fractional: [x, y, z] }): V3 => [x, y, z]),
    types: numbers,
  };
  // moyo reads a cell's handedness from its vectors, so a left-handed cell (a mirror-image choice of
  // axes) would name a chiral crystal's group as its mirror image (P4_3 for P4_1), where spglib and
  // pymatgen name the crystal's own. moyo gets such a cell with every vector reversed (the same
  // atoms, coordinates negated): right-handed.
  const mirrored = cellVolume(cell) < 0;
  const flip = (v: readonly number[]) => (mirrored ? v.map((x) => -x + 0) : [...v]);
  if (options.search === false) {
    // moyo's own tolerance handling at symprec, on the cell as it is.
    const raw: MoyoCell = {
      lattice: { basis: flip(cell.flat()) as MoyoCell["lattice"]["basis"] },
      positions: sites.map((s) => flip(s.fractional) as [number, number, number]),
      numbers,
    };
    const json = JSON.stringify(raw);
    return {
      json: () => json,
      exactSymprec: options.symprec,
      mirrored,
      species,
      cell,
      sites,
      identify: () => undefined,
      primitiveAtoms: sites.length,
    };
  }
  // As spglib: two atoms of one species closer than symprec make no structure to find a group of.
  for (const [i, a] of sites.entries()) {
    for (const [j, b] of sites.entries()) {
      if (j <= i) continue;
      const apart = a.element === b.element ? distance(searchCell.lattice, a.fractional, b.fractional) : Infinity;
      if (apart < options.symprec) {
        throw new StructureError(
          `${who(record)}: no space group found with symprec ${options.symprec} Å: atoms ${i + 1} and ${j + 1} (${a.element}) are ${apart.toPrecision(2)} Å apart, closer than the tolerance; remove the duplicate or try a smaller symprec.`,
          record._id,
        );
      }
    }
  }
  let found: ReturnType<typeof searchOperations>;
  try {
    found = searchOperations(searchCell, options.symprec, options.angleTolerance, options.deadline);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    found = null;
  }
  if (!found) {
    throw new StructureError(
      `${who(record)}: no space group found with symprec ${options.symprec} Å and angle tolerance ${options.angleTolerance}°; check for atoms closer than the tolerance, or try another symprec.`,
      record._id,
    );
  }
  const { primitive, group, tolerance } = found;
  let json: string | undefined;
  return {
    json: () => {
      if (json === undefined) {
        const exact = symmetrize(searchCell, primitive, group);
        const moyoCell: MoyoCell = {
          lattice: { basis: flip(transpose(exact.lattice).flat()) as MoyoCell["lattice"]["basis"] },
          positions: exact.positions.map(flip) as MoyoCell["positions"],
          numbers,
        };
        json = JSON.stringify(moyoCell);
      }
      return json;
    },
    exactSymprec: Math.min(EXACT_SYMPREC, tolerance / 10),
    mirrored,
    species,
    cell,
    sites,
    identify: () => identifyGroup(group, primitive.cell.lattice),
    primitiveAtoms: primitive.cell.positions.length,
  };
}
