import { StructureError } from "../../errors";
import {
  cellVolume,
  platformDerivedProperties,
  structureOf,
  type PlatformStructure,
  type StructureRecord,
} from "../../structure";
import { compositionOf } from "../../structure/composition";
import { structureFormat, type ImportFormat } from "../../structure/formats";
import { badRequest } from "../http/http-errors";
import type { FoundSymmetry } from "./symmetry-thread";

/**
 * `formula`, `unitCellFormula` and `derivedProperties` (the platform's five: volume, density,
 * symmetry, elemental ratios, p-norms) of a record with a `lattice` and `basis`, given the
 * symmetry found for it (`null`: none, no `symmetry` entry; see symmetry-thread.ts). With a
 * symmetry, `lattice.type` becomes the lattice type of its Bravais lattice (`HEX` for a hexagonal
 * cell), as the platform classifies a material's lattice.
 * Throws a 400 with the structure reader's message when the two do not make a structure.
 */
export function computedFields(
  record: StructureRecord,
  what: string,
  symmetry: FoundSymmetry | null,
): Record<string, unknown> {
  try {
    const structure = structureOf(record);
    const { formula, unitCellFormula } = compositionOf(structure.sites.map((site) => site.element));
    const volume = Math.abs(cellVolume(structure.cell));
    if (!(volume > 0)) throw new StructureError("the cell has no volume (its vectors are coplanar).");
    const fields: Record<string, unknown> = {
      formula,
      unitCellFormula,
      derivedProperties: platformDerivedProperties(record, { spaceGroupSymbol: symmetry?.spaceGroupSymbol ?? null }),
    };
    if (symmetry && record.lattice && typeof record.lattice === "object")
      fields.lattice = { ...record.lattice, type: symmetry.latticeType };
    return fields;
  } catch (error) {
    if (error instanceof StructureError || error instanceof RangeError) throw badRequest(`${what}: ${error.message}`);
    throw error;
  }
}

/** Whether a record carries a structure (both `lattice` and `basis`) to compute fields from. */
export function hasStructure(record: Record<string, unknown>): boolean {
  return record.lattice !== undefined && record.basis !== undefined;
}

/** A material's structure fields from the text of a file of an import format (POSCAR, CIF): lattice (with vectors), basis, formulas (the derived properties follow on write). */
export function parseStructureFile(content: string, format: ImportFormat): Record<string, unknown> & { name: string } {
  let parsed: PlatformStructure & { name: string };
  try {
    parsed = structureFormat(format).read(content);
  } catch (error) {
    // RangeError: the cell arithmetic's word for a cell no structure has (a flat cell).
    if (error instanceof StructureError || error instanceof RangeError)
      throw badRequest(`The ${structureFormat(format).label} content cannot be read: ${error.message}`);
    throw error;
  }
  const { name, lattice, basis } = parsed;
  return {
    name,
    lattice,
    basis,
    ...computedFields({ lattice, basis }, `The ${structureFormat(format).label} content`, null),
  };
}
