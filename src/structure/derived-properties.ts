// The five derived properties the platform computes for every material it stores, with the facts
// of its property code (Exabyte-io/express: `properties/material.py`, `scalar/elemental_ratio.py`,
// `scalar/p_norm.py`, `non_scalar/symmetry.py`, `parsers/structure.py`): ratios are pymatgen's
// atomic fractions (atoms of the element / all atoms) in order of first appearance; p-norms of
// degrees 0, 2, 3, 5, 7, 10 (degree 0 is the number of elements); the symbol is
// SpacegroupAnalyzer's with its default tolerance; the array is sorted by name.
import { StructureError } from "../errors";
import { P_NORM_DEGREES, type DerivedProperty } from "../schemas/derived-properties";
import { cellVolume } from "./cell";
import { pNorm } from "./p-norm";
import { compositionOf, derivedProperties as volumeAndDensity } from "./composition";
import { structureOf, type StructureRecord } from "./structure";
import { symmetryOrNull, DEFAULT_SYMPREC, type SymmetryOptions } from "./symmetry";

/** Each element's share of the atoms, `[element, ratio]`, in order of first appearance. */
export function elementalRatios(elements: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const e of elements) counts.set(e, (counts.get(e) ?? 0) + 1);
  return [...counts].map(([e, n]) => [e, n / elements.length]);
}

/**
 * The platform's `derivedProperties` of a material's structure: density, one elemental_ratio per
 * element, six p-norms, symmetry, volume (sorted by name, as the platform sorts them). A structure
 * whose space group cannot be found (atoms closer than the tolerance) gets no `symmetry` entry
 * and one warning through `onWarning`; a structure that is no structure throws a StructureError.
 * @example platformDerivedProperties(record).find((p) => p.name === "symmetry") // { name: "symmetry", spaceGroupSymbol: "Fd-3m", tolerance: { value: 0.01, units: "angstrom" } }
 */
export function platformDerivedProperties(
  record: StructureRecord,
  options: SymmetryOptions & {
    onWarning?: (message: string) => void;
    /** The space group's symbol when the caller found it already (`null`: none, leave `symmetry` out). */
    spaceGroupSymbol?: string | null;
  } = {},
): DerivedProperty[] {
  const { cell, sites } = structureOf(record);
  const elements = sites.map((s) => s.element);
  const { mass } = compositionOf(elements);
  const volume = Math.abs(cellVolume(cell));
  if (!(volume > 0)) throw new StructureError("the cell has no volume (its vectors are coplanar).", record._id);
  const [volumeEntry, densityEntry] = volumeAndDensity(mass, volume);
  const ratios = elementalRatios(elements);
  const symbol =
    options.spaceGroupSymbol !== undefined
      ? options.spaceGroupSymbol
      : symmetryOrNull(record, options)?.spaceGroupSymbol;
  const out: DerivedProperty[] = [
    densityEntry,
    ...ratios.map(([element, value]): DerivedProperty => ({ name: "elemental_ratio", value, element })),
    ...P_NORM_DEGREES.map(
      (degree): DerivedProperty => ({
        name: "p-norm",
        value: pNorm(
          ratios.map((r) => r[1]),
          degree,
        ),
        degree,
      }),
    ),
    ...(symbol
      ? [
          {
            name: "symmetry",
            spaceGroupSymbol: symbol,
            tolerance: { value: options.symprec ?? DEFAULT_SYMPREC, units: "angstrom" },
          } as DerivedProperty,
        ]
      : []),
    volumeEntry,
  ];
  return out;
}
