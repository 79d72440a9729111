import type { StructureRecord } from "./structure";
import { symmetryOf, type SymmetryOptions } from "./symmetry";

/** Which cell a structure is written in: the record's own, or a standard cell of its space group. */
export type CellChoice = "as-is" | "conventional" | "primitive";
export const CELL_CHOICES: readonly CellChoice[] = Object.freeze(["as-is", "conventional", "primitive"]);

/**
 * The record with its `lattice` and `basis` replaced by the conventional or primitive standard
 * cell of its space group (spglib's and pymatgen's choice of cell, axes and origin); other
 * fields are kept. `"as-is"` gives the record itself. Throws a StructureError when the structure
 * has no space group (see `symmetryOf`).
 * @example toPoscar(standardCell(record, "conventional")) // Si in its 8-atom cubic cell
 */
export function standardCell<T extends StructureRecord>(record: T, cell: CellChoice, options: SymmetryOptions = {}): T {
  if (cell === "as-is") return record;
  const standard = symmetryOf(record, options)[cell];
  return { ...record, lattice: standard.lattice, basis: standard.basis };
}
