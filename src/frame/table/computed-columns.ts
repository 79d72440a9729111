// Computed columns (`matframe:spaceGroupSymbol` and friends): the symmetry of a record's structure,
// found in the client for records that lack the platform's derived properties (a platform that
// never computed them, files read from disk), and the cell's atom count and volume per atom. One
// search per structure, shared by all the computed columns of a row through the symmetry cache.
import { StructureError } from "../../errors";
import { cellVolume } from "../../structure/cell";
import { symmetryOf, type SymmetryOptions } from "../../structure/symmetry";
import { structureOf, type StructureRecord } from "../../structure/structure";
import type { ColumnDef } from "./column-path";
import type { Getter } from "./getters";

/** How many rows got null in the computed columns, some of their ids, and why (reason -> rows). */
export interface ComputedTally {
  rows: number;
  ids: string[];
  reasons: Map<string, number>;
  /** The computed fields that were null at least once (a structure without a space group still has its atom count). */
  fields: Set<string>;
  /** The last row counted, so that two computed columns of one row count it once. */
  lastRow?: number;
}

const LISTED_IDS = 5;

/** The reason without the record's name, so that one reason counts many rows. */
function reasonOf(error: StructureError, id: unknown): string {
  const text = error.message.replace(/^(material \S+|material "[^"]*"|the material):?\s*/, "");
  return typeof id === "string" ? text.replaceAll(id, "<id>") : text;
}

/**
 * The getter of one computed column. A record whose `lattice` and `basis` make no structure, or
 * no space group, gives undefined (null in the table) and is counted once per row in `tally`.
 * @param row the index of the row being read
 * @param symmetry the tolerances of the symmetry search (pymatgen's defaults when left out)
 */
export function computedGetter(
  field: NonNullable<ColumnDef["computed"]>,
  tally: ComputedTally,
  row: () => number,
  symmetry: SymmetryOptions = {},
): Getter {
  return (record) => {
    try {
      const r = record as StructureRecord | null;
      if (r === null || typeof r !== "object" || r.lattice === undefined || r.basis === undefined) {
        throw new StructureError("no lattice and basis");
      }
      if (field === "nsites" || field === "volumePerAtom") {
        // The cell alone: a structure without a space group still has atoms and a volume.
        const { cell, sites } = structureOf(r);
        return field === "nsites" ? sites.length : Math.abs(cellVolume(cell)) / sites.length;
      }
      return symmetryOf(r, symmetry)[field];
    } catch (error) {
      if (!(error instanceof StructureError)) throw error;
      tally.fields.add(field);
      const current = row();
      if (tally.lastRow !== current) {
        tally.lastRow = current;
        tally.rows++;
        const id = (record as { _id?: unknown } | null)?._id;
        if (typeof id === "string" && tally.ids.length < LISTED_IDS) tally.ids.push(id);
        const reason = reasonOf(error, id);
        tally.reasons.set(reason, (tally.reasons.get(reason) ?? 0) + 1);
      }
      return undefined;
    }
  };
}
