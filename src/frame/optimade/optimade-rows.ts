// OPTIMADE entries as table rows: `id` and the properties side by side, and, for the columns
// that need a structure (matframe's computed columns, the platform's derived properties,
// structure files), the platform's `lattice` and `basis` made from `lattice_vectors`,
// `cartesian_site_positions` and `species_at_sites`. So one table holds a provider's structures
// and the local platform's materials alike.
import type { OptimadeEntry } from "../../schemas/optimade";
import { ValidationError } from "../../errors";
import { cellVolume, vectorsToParameters, type Matrix3 } from "../../structure/cell";
import { cellMass, derivedProperties, hasAtomicWeight, volumeProperty } from "../../structure/composition";
import type { FrameWarning } from "../table/row-reader";
import { structureOf, type StructureRecord } from "../../structure/structure";
import { planColumns, type ColumnPlan } from "../table/column-spec";
import type { ColumnDef } from "../table/column-path";
import type { ColumnType } from "../table/column-types";

/** The columns of an OPTIMADE table when none are named. */
export const OPTIMADE_COLUMNS: readonly string[] = Object.freeze([
  "id",
  "chemical_formula_reduced",
  "elements",
  "nelements",
  "nsites",
]);

/** The properties a structure is made from (spec section 7.2). */
export const STRUCTURE_FIELDS: readonly string[] = Object.freeze([
  "lattice_vectors",
  "cartesian_site_positions",
  "species_at_sites",
  "species",
  "chemical_formula_reduced",
]);

/** A table's columns checked, and the OPTIMADE properties to ask for. */
export interface OptimadePlan {
  readonly plan: ColumnPlan;
  /** Sent as `response_fields`. */
  readonly fields: readonly string[];
  /** Whether rows need the platform's `lattice` and `basis` (computed and derived columns). */
  readonly structure: boolean;
  /** Whether rows need `derivedProperties` (volume, density). */
  readonly derived: boolean;
}

/**
 * Checks the columns of an OPTIMADE table: OPTIMADE property names (`nsites`,
 * `_mp_stability`), paths into them (`lattice_vectors.0.0`), matframe's computed columns
 * (`matframe:spaceGroupSymbol`, `matframe:volumePerAtom`, ...) and the platform's derived
 * properties (`derivedProperties.volume`, `derivedProperties.density`).
 */
export function planOptimadeColumns(columns: readonly string[] = OPTIMADE_COLUMNS): OptimadePlan {
  if (!Array.isArray(columns))
    throw new ValidationError("columns", 'columns must be an array of OPTIMADE property names, e.g. ["id", "nsites"].');
  // `_id` (the row's id, for warnings and resumes) is a column only when asked for by that name.
  const plan = planColumns(columns.includes("_id") ? columns : [...columns, "-_id"]);
  const fields = new Set<string>();
  let structure = false;
  let derived = false;
  for (const def of plan.columns) {
    // A column's path has at least one segment: it is a split of a non-empty name.
    const [head = "", name] = def.segments;
    if (def.computed) structure = true;
    else if (head === "derivedProperties") {
      if (def.segments.length !== 2 || (name !== "volume" && name !== "density"))
        throw new ValidationError(
          "columns",
          `Column "${def.name}": an OPTIMADE structure's derived properties are derivedProperties.volume and derivedProperties.density.`,
        );
      structure = derived = true;
    } else if (head !== "_id" && head !== "id" && head !== "type") {
      if (!/^[a-z_][a-z0-9_]*$/.test(head))
        throw new ValidationError(
          "columns",
          `Column "${def.name}" does not start with an OPTIMADE property name (lower case letters, digits and "_", e.g. "nsites" or "_mp_stability").`,
        );
      fields.add(head);
    }
  }
  if (structure) for (const field of STRUCTURE_FIELDS) fields.add(field);
  // A table of ids alone still asks for one small property, so providers do not send every one.
  if (fields.size === 0) fields.add("nsites");
  return { plan, fields: [...fields], structure, derived };
}

// The integer properties of a structure in the OPTIMADE specification (v1.2, section 7.2:
// https://github.com/Materials-Consortia/OPTIMADE/blob/v1.2.0/optimade.rst#entry-list),
// and the items of `dimension_types` (each 0 or 1, one per lattice vector).
const SPEC_INTEGER = /^(nelements|nsites|nperiodic_dimensions|dimension_types\.[0-2])$/;

/**
 * The columns the specification types as integers and `types` does not name: written as int64
 * by the typed exports, whatever the first rows hold (a JSON number says nothing of its kind).
 */
export function specIntegerColumns(plan: ColumnPlan, types: Readonly<Record<string, ColumnType>>): ColumnDef[] {
  return plan.columns.filter((def) => SPEC_INTEGER.test(def.name) && types[def.name] === undefined);
}

/**
 * Spec-integer columns checked row by row, and the rows whose provider sent something else
 * there: such a value is left empty (a typed column cannot hold it) and said once per column.
 */
export interface SpecIntegers {
  readonly columns: readonly ColumnDef[];
  /** By column name: the rows, the first few ids and values. */
  readonly offSpec: Map<string, { rows: number; ids: string[]; values: string[] }>;
}

/** The warnings for the values `integers` left empty, one per column, naming the provider. */
export function offSpecWarnings(integers: SpecIntegers, provider: string): FrameWarning[] {
  return [...integers.offSpec].map(([path, { rows, ids, values }]) => {
    const more = rows - ids.length;
    const message =
      `${path} is empty in ${rows} ${rows === 1 ? "row" : "rows"}: the OPTIMADE provider ${provider} sent ` +
      `${rows === 1 ? "a value that is not an integer" : "values that are not integers"} (${values.join(", ")}${more > 0 ? ", ..." : ""}), ` +
      `where the OPTIMADE specification has an integer. Ids: ${ids.join(", ")}${more > 0 ? ` and ${more} more` : ""}.`;
    return { code: "OFF_SPEC_VALUE", message, path, rows, ids: [...ids] };
  });
}

/** Leaves empty, in `row`, each spec-integer column whose value is not an integer, and counts it. */
function checkIntegers(row: OptimadeRow, integers: SpecIntegers): void {
  for (const def of integers.columns) {
    let value: unknown = row;
    for (const segment of def.segments)
      value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[segment] : undefined;
    if (value === undefined || value === null || Number.isSafeInteger(value)) continue;
    row[def.segments[0]!] = nulled(row[def.segments[0]!], def.segments, 1);
    const seen = integers.offSpec.get(def.name) ?? { rows: 0, ids: [], values: [] };
    integers.offSpec.set(def.name, seen);
    seen.rows++;
    if (seen.ids.length < LISTED_IDS) {
      seen.ids.push(row.id);
      const text =
        typeof value === "object" ? (Array.isArray(value) ? "an array" : "an object") : JSON.stringify(value);
      seen.values.push(text.length > 40 ? `${text.slice(0, 40)}...` : text);
    }
  }
}

/** A copy of `container` with null at `segments[from..]` (the entry's own arrays stay as sent). */
function nulled(container: unknown, segments: readonly string[], from: number): unknown {
  if (from === segments.length) return null;
  const copy: Record<string, unknown> = Array.isArray(container)
    ? ([...container] as unknown as Record<string, unknown>)
    : { ...(container as Record<string, unknown>) };
  const segment = segments[from]!;
  copy[segment] = nulled(copy[segment], segments, from + 1);
  return copy;
}

/** A row of a table: `_id` and `id` (the entry's id), `type`, then the properties. */
export type OptimadeRow = Record<string, unknown> & { _id: string; id: string };

/** The rows whose density was left empty because an element of theirs has no standard atomic weight. */
export interface MissingWeights {
  rows: number;
  /** The first few of their ids. */
  readonly ids: string[];
  /** The elements without one. */
  readonly elements: Set<string>;
}

const LISTED_IDS = 5;

/** The warning for `missing`, or undefined when every density was computed. */
export function missingWeightsWarning(missing: MissingWeights): FrameWarning | undefined {
  const { rows, ids, elements } = missing;
  if (rows === 0) return undefined;
  const more = rows - ids.length;
  const message =
    `derivedProperties.density is empty in ${rows} ${rows === 1 ? "row" : "rows"}: no standard atomic weight is known for ` +
    `${[...elements].sort().join(", ")} (an element without a stable isotope has none, nor has a symbol that is not an element's, such as X or D), so the cell's mass is unknown; ` +
    `derivedProperties.volume is given. Ids: ${ids.join(", ")}${more > 0 ? ` and ${more} more` : ""}.`;
  return { code: "NO_ATOMIC_WEIGHT", message, path: "derivedProperties.density", rows, ids: [...ids] };
}

/**
 * An entry as a row; with `structure`, also the platform's `lattice`/`basis` (and
 * `derivedProperties`) where it has a structure. A density left empty for want of an atomic
 * weight is counted in `missing`; a spec-integer column's value that is not one, in `integers`.
 */
export function optimadeRow(
  entry: OptimadeEntry,
  needs: Pick<OptimadePlan, "structure" | "derived">,
  missing?: MissingWeights,
  integers?: SpecIntegers,
): OptimadeRow {
  const row: OptimadeRow = { ...entry.attributes, _id: entry.id, id: entry.id, type: entry.type };
  if (integers) checkIntegers(row, integers);
  if (!needs.structure) return row;
  const platform = platformStructure(entry);
  if (!platform) return row;
  Object.assign(row, platform);
  if (typeof row.chemical_formula_reduced === "string") row.formula = row.chemical_formula_reduced;
  if (needs.derived) {
    try {
      const { cell, sites } = structureOf(row as unknown as StructureRecord);
      const elements = sites.map((s) => s.element);
      const volume = Math.abs(cellVolume(cell));
      const unweighed = elements.filter((e) => !hasAtomicWeight(e));
      if (unweighed.length === 0) row.derivedProperties = derivedProperties(cellMass(elements), volume);
      else {
        // The volume needs no masses: only the density waits for an atomic weight.
        row.derivedProperties = [volumeProperty(volume)];
        if (missing) {
          missing.rows++;
          if (missing.ids.length < LISTED_IDS) missing.ids.push(entry.id);
          for (const e of unweighed) missing.elements.add(e);
        }
      }
    } catch {
      // No structure, no derived properties: the columns stay empty, as a platform material's would.
    }
  }
  return row;
}

/**
 * The platform's `lattice` and `basis` (cartesian, in Å) of an entry, or undefined when it has
 * no complete, ordered structure: a site whose species is a mixture, a vacancy or an unknown
 * atom (`X`) is not one element, and matframe's structure tools read one element per site.
 */
export function platformStructure(entry: OptimadeEntry): Pick<StructureRecord, "lattice" | "basis"> | undefined {
  const a = entry.attributes ?? {};
  const vectors = a.lattice_vectors;
  const positions = a.cartesian_site_positions;
  const species = a.species_at_sites;
  if (!isMatrix(vectors) || vectors.length !== 3 || !Array.isArray(positions) || !Array.isArray(species))
    return undefined;
  if (positions.length !== species.length || !positions.every(isVector)) return undefined;
  const symbols = elementOfSpecies(a.species);
  const elements: string[] = [];
  for (const name of species) {
    const element = typeof name === "string" ? (symbols ? symbols.get(name) : name) : undefined;
    if (element === undefined) return undefined;
    elements.push(element);
  }
  const cell = vectors as Matrix3;
  return {
    lattice: {
      ...vectorsToParameters(cell),
      type: "TRI",
      units: { length: "angstrom", angle: "degree" },
      vectors: { a: [...cell[0]], b: [...cell[1]], c: [...cell[2]], alat: 1, units: "angstrom" },
    },
    basis: {
      units: "cartesian",
      elements: elements.map((value, id) => ({ id, value })),
      coordinates: (positions as number[][]).map((value, id) => ({ id, value: [...value] })),
    },
  };
}

/** Species name → its one element, for species that are one element wholly present; undefined without `species`. */
function elementOfSpecies(species: unknown): Map<string, string> | undefined {
  if (!Array.isArray(species)) return undefined;
  const map = new Map<string, string>();
  for (const s of species as { name?: unknown; chemical_symbols?: unknown; concentration?: unknown }[]) {
    if (typeof s?.name !== "string" || !Array.isArray(s.chemical_symbols)) continue;
    const [symbol] = s.chemical_symbols;
    const whole = !Array.isArray(s.concentration) || s.concentration[0] === 1;
    if (
      s.chemical_symbols.length === 1 &&
      typeof symbol === "string" &&
      /^[A-Z][a-z]?$/.test(symbol) &&
      symbol !== "X" &&
      whole
    )
      map.set(s.name, symbol);
  }
  return map;
}

function isVector(v: unknown): v is number[] {
  return Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === "number" && Number.isFinite(x));
}

function isMatrix(m: unknown): m is number[][] {
  return Array.isArray(m) && m.every(isVector);
}

/**
 * Pages of entries as pages of rows; densities left empty for want of an atomic weight are
 * counted in `missing`, spec integers that are not ones in `integers`.
 */
export async function* rowPages(
  pages: AsyncIterable<OptimadeEntry[]>,
  needs: Pick<OptimadePlan, "structure" | "derived">,
  missing?: MissingWeights,
  integers?: SpecIntegers,
): AsyncGenerator<OptimadeRow[], void, undefined> {
  for await (const page of pages) yield page.map((entry) => optimadeRow(entry, needs, missing, integers));
}
