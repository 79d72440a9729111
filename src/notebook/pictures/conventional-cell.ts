import { parametersToVectors, vectorsToParameters, type Matrix3, type Vector3 } from "../../structure/cell";
import { structureOf, type StructureRecord } from "../../structure/structure";
import { symmetryOrNull } from "../../structure/symmetry";

/** A cell to draw: its vectors (a along x, the crystallographic orientation), sites in it, and what it is. */
export interface DrawnCell {
  cell: Matrix3;
  sites: { element: string; fractional: Vector3 }[];
  /**
   * "conventional cubic" (or another crystal system) for the conventional standard cell of a
   * centred lattice; "primitive" for such a lattice drawn as the record has it; "unit" otherwise.
   */
  kind: string;
}

/**
 * The cell a picture shows: for a centred lattice (its conventional standard cell holds more
 * atoms than the record's cell: FCC, BCC, base-centred, rhombohedral), the conventional standard
 * cell of the space group as spglib and pymatgen give it; else, or with `want` "primitive", or
 * when no space group is found, the record's own cell.
 */
export function cellToDraw(record: StructureRecord, want: "conventional" | "primitive"): DrawnCell {
  const own = structureOf(record);
  const symmetry = symmetryOrNull(record);
  const conventional = symmetry ? structureOf(symmetry.conventional) : undefined;
  const centred = conventional !== undefined && conventional.sites.length > own.sites.length;
  if (want === "primitive" || !centred) {
    return {
      cell: own.cell,
      sites: own.sites.map((s) => ({ element: s.element, fractional: s.fractional.map(wrap) as Vector3 })),
      kind: centred ? "primitive" : "unit",
    };
  }
  // Re-oriented with a along x, so that a cube is drawn square to the page.
  const upright = parametersToVectors(vectorsToParameters(conventional.cell));
  return {
    cell: upright,
    sites: conventional.sites.map((s) => ({ element: s.element, fractional: s.fractional.map(wrap) as Vector3 })),
    kind: `conventional ${symmetry!.crystalSystem}`,
  };
}

/** Fractional coordinates this close to a face count as on it. */
const ON_FACE = 1e-4;

/** A fractional coordinate in [0, 1), with values within {@link ON_FACE} of 1 taken as 0. */
function wrap(x: number): number {
  const w = x - Math.floor(x);
  return w > 1 - ON_FACE ? 0 : w < ON_FACE ? 0 : w;
}
