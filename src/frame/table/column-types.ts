// Typed columns for the typed formats (Parquet, Arrow): the type of each planned column, from
// what the platform's records are known to hold, from the caller, or from the first rows seen.
import { ColumnTypeError, ValidationError } from "../../errors";
import { keyedEntryField, type ColumnDef, type ColumnPlan } from "./column-spec";
import {
  COLUMN_TYPE_RECORDS,
  COLUMN_TYPES,
  FALLBACK_TYPE,
  type ColumnType,
  type ColumnTypeRecord,
  type TypedCell,
} from "./column-type-registry";

export { COLUMN_TYPES, type ColumnType, type TypedCell };

// What the platform's material records hold at known paths (the platform's schemas in
// @mat3ra/esse: lattice, basis, derived properties). Anything else is inferred from the data.
const KNOWN: ReadonlyMap<string, ColumnType> = new Map<string, ColumnType>([
  ["_id", "string"],
  ["name", "string"],
  ["formula", "string"],
  ["unitCellFormula", "string"],
  ["createdAt", "string"],
  ["isSynthetic", "boolean"],
  ["lattice.type", "string"],
  ...(["a", "b", "c", "alpha", "beta", "gamma"] as const).map((k): [string, ColumnType] => [`lattice.${k}`, "double"]),
  ["lattice.units.length", "string"],
  ["lattice.units.angle", "string"],
  ["lattice.vectors.alat", "double"],
  ["lattice.vectors.units", "string"],
  ["basis.units", "string"],
  ["external.id", "string"],
  ["external.source", "string"],
  ["owner._id", "string"],
  ["owner.slug", "string"],
  ["derivedProperties.symmetry.spaceGroupSymbol", "string"],
  ["derivedProperties.symmetry.tolerance.value", "double"],
]);

/** The type a column has whatever the data: method halves are text, named values numbers. */
export function knownType(def: ColumnDef): ColumnType | undefined {
  if (def.method) return "string";
  if (def.computed)
    return def.computed === "spaceGroupNumber" || def.computed === "nsites"
      ? "int32"
      : def.computed === "volumePerAtom"
        ? "double"
        : "string";
  const known = KNOWN.get(def.name);
  if (known) return known;
  // `derivedProperties.volume`: the entry's value, a number in the platform's schema; deeper
  // paths (`derivedProperties.volume.units`) are not known.
  if (def.namedEntryAt !== undefined && def.namedEntryAt === def.segments.length - 1) return "double";
  // `derivedProperties.elemental_ratio.Si`, `derivedProperties.p-norm.2`: a keyed entry's value.
  const entry = def.namedEntryAt === def.segments.length - 2 ? def.segments.at(-2) : undefined;
  if (entry !== undefined && keyedEntryField(entry)) return "double";
  if (/^basis\.(elements|coordinates)\.(0|[1-9][0-9]*)\.id$/.test(def.name)) return "int32";
  return undefined;
}

/**
 * Checks a `types` option (column name -> type) against the planned columns.
 * @throws ValidationError (`option: "types"`) naming the column or type that is wrong.
 */
export function checkColumnTypes(plan: ColumnPlan, types: unknown): Readonly<Record<string, ColumnType>> {
  if (types === undefined) return {};
  if (types === null || typeof types !== "object" || Array.isArray(types)) {
    throw new ValidationError("types", `types must map column names to types, e.g. { "lattice.a": "double" }.`);
  }
  const out: Record<string, ColumnType> = {};
  for (const [name, type] of Object.entries(types)) {
    if (!plan.names.includes(name)) {
      throw new ValidationError(
        "types",
        `types names "${name}", which is not one of the columns (${plan.names.join(", ")}).`,
      );
    }
    if (!COLUMN_TYPES.includes(type as ColumnType)) {
      throw new ValidationError(
        "types",
        `types gives "${name}" the type ${JSON.stringify(type)}; use one of ${COLUMN_TYPES.join(", ")}.`,
      );
    }
    out[name] = type as ColumnType;
  }
  return out;
}

// The types the inference may give, in registry order.
const INFERRED: readonly ColumnTypeRecord[] = COLUMN_TYPE_RECORDS.filter((record) => record.inferred);

/**
 * Every column's type when no column needs data to decide it (each is given in `types` or known
 * from the platform's records, as {@link decideTypes} would take it), else `undefined`.
 */
export function typesWithoutData(
  plan: ColumnPlan,
  types: Readonly<Record<string, ColumnType>>,
): ColumnType[] | undefined {
  const decided = plan.columns.map((def) => types[def.name] ?? knownType(def));
  return decided.every((type) => type !== undefined) ? (decided as ColumnType[]) : undefined;
}

/**
 * Decides every column's type: the caller's `types` first, then what the platform's records are
 * known to hold, then the values in `columns` (the first row group, column by column): numbers -> `double` (JSON has
 * one number type, and an integer-looking first group says nothing about the next), booleans ->
 * `boolean`, anything else (text, objects as JSON, mixed kinds, or nulls only) -> `string`.
 */
export function decideTypes(
  plan: ColumnPlan,
  columns: readonly (readonly unknown[])[],
  types: Readonly<Record<string, ColumnType>>,
): ColumnType[] {
  return plan.columns.map((def, c) => types[def.name] ?? knownType(def) ?? inferType(columns[c] ?? []));
}

/** The first inferred type every value (nulls aside) passes; nulls only or none: the fallback. */
function inferType(values: readonly unknown[]): ColumnType {
  let first = 0;
  while (first < values.length && (values[first] === undefined || values[first] === null)) first++;
  if (first === values.length) return FALLBACK_TYPE;
  for (const record of INFERRED) {
    let fits = true;
    for (let r = first; fits && r < values.length; r++) {
      const value = values[r];
      fits = value === undefined || value === null || record.is(value);
    }
    if (fits) return record.name;
  }
  return FALLBACK_TYPE;
}

/**
 * Converts one raw cell to its column's type (the record resolved once per column). Text
 * columns take anything (numbers and booleans as their text, objects as JSON, dates as ISO
 * strings); the others take only their own kind.
 * @throws ColumnTypeError when a value does not fit, naming the column, the record and the fix.
 */
export function toTyped(value: unknown, type: ColumnTypeRecord, column: string, id: unknown): TypedCell {
  if (value === undefined || value === null) return null;
  const cell = type.toCell(value);
  if (cell !== undefined) return cell;
  throw new ColumnTypeError(column, type.name, describeValue(value), typeof id === "string" ? id : undefined);
}

function describeValue(value: unknown): string {
  const text =
    typeof value === "string" ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value) : String(value);
  const kind = Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : `a ${typeof value}`;
  return typeof value === "object" ? kind : `${text} (${kind})`;
}
