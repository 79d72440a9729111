import { z } from "zod";

// The platform's derived properties, as ESSE (`properties_directory/derived_properties.json`)
// describes them and the platform's property code (Exabyte-io/express, `properties/material.py`)
// writes them: one entry per property, an `elemental_ratio` entry per element and a `p-norm`
// entry per degree, the array sorted by name.

/** Cell volume in Å³. */
export const VolumeProperty = z.object({
  name: z.literal("volume"),
  value: z.number(),
  units: z.literal("angstrom^3"),
});
/** Mass density in g/cm³. */
export const DensityProperty = z.object({ name: z.literal("density"), value: z.number(), units: z.literal("g/cm^3") });
/** The space group's Hermann–Mauguin symbol and the distance tolerance it was found with. */
export const SymmetryProperty = z.object({
  name: z.literal("symmetry"),
  spaceGroupSymbol: z.string(),
  tolerance: z.object({ value: z.number(), units: z.literal("angstrom") }),
});
/** The fraction of the atoms that are of one element. */
export const ElementalRatioProperty = z.object({
  name: z.literal("elemental_ratio"),
  value: z.number().min(0).max(1),
  element: z.string(),
});
/** A p-norm of the elemental ratios (degree 0: the number of elements). */
export const PNormProperty = z.object({ name: z.literal("p-norm"), value: z.number(), degree: z.number().int() });

/** One derived property. */
export const DerivedProperty = z.discriminatedUnion("name", [
  VolumeProperty,
  DensityProperty,
  SymmetryProperty,
  ElementalRatioProperty,
  PNormProperty,
]);
export type DerivedProperty = z.infer<typeof DerivedProperty>;

/** The degrees of the p-norms the platform computes. */
export const P_NORM_DEGREES: readonly number[] = Object.freeze([0, 2, 3, 5, 7, 10]);
