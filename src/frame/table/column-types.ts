// Typed columns for the typed formats (Parquet, Arrow): the type of each planned column, from
// what the platform's records are known to hold, from the caller, or from the first rows seen.
import { ColumnTypeError, ValidationError } from "../../errors";
import { keyedEntryField, type ColumnDef, type ColumnPlan } from "./column-spec";

/** The column types a typed export writes. */
export type ColumnType = "double" | "int32" | "int64" | "boolean" | "string";

/** Every {@link ColumnType}, for validation and messages. */
export const COLUMN_TYPES: readonly ColumnType[] = Object.freeze(["double", "int32", "int64", "boolean", "string"]);

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
  if (
    def.namedEntryAt !== undefined &&
    def.namedEntryAt === def.segments.length - 2 &&
    keyedEntryField(def.segments[def.namedEntryAt])
  )
    return "double";
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

const NUMBER = 1;
const BOOL = 2;
const TEXT = 4;

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
  return plan.columns.map((def, c) => {
    const chosen = types[def.name] ?? knownType(def);
    if (chosen) return chosen;
    let seen = 0;
    for (const value of columns[c]) {
      if (value === undefined || value === null) continue;
      seen |= typeof value === "number" ? NUMBER : typeof value === "boolean" ? BOOL : TEXT;
    }
    return seen === NUMBER ? "double" : seen === BOOL ? "boolean" : "string";
  });
}

/** A typed cell: `bigint` for int64, `null` for missing. */
export type TypedCell = number | bigint | boolean | string | null;

/**
 * Converts one raw cell to its column's type. Text columns take anything (numbers and booleans
 * as their text, objects as JSON, dates as ISO strings); the others take only their own kind.
 * @throws ColumnTypeError when a value does not fit, naming the column, the record and the fix.
 */
export function toTyped(value: unknown, type: ColumnType, column: string, id: unknown): TypedCell {
  if (value === undefined || value === null) return null;
  switch (type) {
    case "string":
      if (typeof value === "string") return value;
      if (typeof value === "object") return value instanceof Date ? value.toISOString() : JSON.stringify(value);
      return String(value);
    case "double":
      if (typeof value === "number") return value;
      break;
    case "int32":
      if (typeof value === "number" && (value | 0) === value) return value;
      break;
    case "int64":
      if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
      if (typeof value === "bigint") return value;
      break;
    case "boolean":
      if (typeof value === "boolean") return value;
      break;
  }
  throw new ColumnTypeError(column, type, describeValue(value), typeof id === "string" ? id : undefined);
}

function describeValue(value: unknown): string {
  const text =
    typeof value === "string" ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value) : String(value);
  const kind = Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : `a ${typeof value}`;
  return typeof value === "object" ? kind : `${text} (${kind})`;
}
