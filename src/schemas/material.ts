import { z } from "zod";
import { Method } from "./method";

/** A lattice as the platform stores it: lengths in Å, angles in degrees. */
export const Lattice = z.looseObject({
  type: z.string().optional(),
  a: z.number(),
  b: z.number(),
  c: z.number(),
  alpha: z.number(),
  beta: z.number(),
  gamma: z.number(),
  units: z.looseObject({ length: z.string(), angle: z.string() }).optional(),
});
export type Lattice = z.infer<typeof Lattice>;

/** One entry of a named-entry array such as `derivedProperties`. */
export const NamedValue = z.looseObject({ name: z.string(), value: z.unknown().optional() });
export type NamedValue = z.infer<typeof NamedValue>;

/**
 * A material record. `_id`, `name` and `formula` are known; every other field
 * is kept as sent, because a projection may leave any of them out.
 */
export const Material = z.looseObject({
  _id: z.string(),
  name: z.string().optional(),
  formula: z.string().optional(),
});
export type Material = z.infer<typeof Material>;

/**
 * The full shape of the records `matframe serve` ships (real structures from
 * @mat3ra/standata plus deterministic synthetic variants).
 */
export const MaterialRecord = Material.extend({
  name: z.string(),
  formula: z.string(),
  unitCellFormula: z.string(),
  lattice: Lattice,
  basis: z.looseObject({
    units: z.string(),
    elements: z.array(z.looseObject({ id: z.number(), value: z.string() })),
    coordinates: z.array(z.looseObject({ id: z.number(), value: z.array(z.number()) })),
  }),
  derivedProperties: z.array(NamedValue),
  external: z.looseObject({ id: z.string(), source: z.string() }).optional(),
  tags: z.array(z.string()),
  owner: z.looseObject({ _id: z.string(), slug: z.string() }),
  createdAt: z.string(),
  method: Method.optional(),
  isSynthetic: z.boolean().optional(),
});
export type MaterialRecord = z.infer<typeof MaterialRecord>;

/**
 * Dotted paths a material record is known to hold (the platform's material schema in
 * @mat3ra/esse, and the records `matframe serve` ships), as column names: named entries by name
 * (`derivedProperties.density`). Used to suggest a column when one comes out empty.
 */
export const MATERIAL_PATHS: readonly string[] = Object.freeze([
  "_id",
  "name",
  "formula",
  "unitCellFormula",
  "createdAt",
  "isNonPeriodic",
  "isSynthetic",
  "tags",
  "lattice",
  "lattice.type",
  ...["a", "b", "c", "alpha", "beta", "gamma"].map((k) => `lattice.${k}`),
  "lattice.units.length",
  "lattice.units.angle",
  "lattice.vectors.a",
  "lattice.vectors.b",
  "lattice.vectors.c",
  "lattice.vectors.alat",
  "lattice.vectors.units",
  "basis",
  "basis.elements",
  "basis.coordinates",
  "basis.units",
  "derivedProperties",
  "derivedProperties.volume",
  "derivedProperties.density",
  "derivedProperties.symmetry.spaceGroupSymbol",
  "derivedProperties.elemental_ratio",
  "derivedProperties.p-norm",
  "external.id",
  "external.source",
  "external.doi",
  "external.url",
  "external.origin",
  "owner._id",
  "owner.slug",
  "method",
  "method.type",
  "method.subtype",
]);
