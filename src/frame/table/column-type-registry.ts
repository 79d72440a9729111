// The column types of the typed exports, one record each: what every writer (Parquet, Arrow,
// CSV), the DataFrame source (danfo dtypes) and the type inference need to know about a type.
// None of them names a type on its own. Adding a type is one record here (and its name in the
// `ColumnType` union, which fails to compile until both agree); test/frame/column-type-registry.test.ts
// then round-trips it through every format, and docs/exports.md must list it.
import { MatframeError } from "../../errors";
import type { Dtype } from "./column-builder";
import { csvText } from "./csv-text";

/** The column types a typed export writes. */
export type ColumnType = "double" | "int32" | "int64" | "boolean" | "string";

/** The JavaScript values a typed cell holds, by `typeof`. */
interface CellKinds {
  number: number;
  bigint: bigint;
  boolean: boolean;
  string: string;
}

/** The `typeof` of a typed cell. */
export type CellKind = keyof CellKinds;

/** A typed cell: `bigint` for int64, `null` for missing. */
export type TypedCell = CellKinds[CellKind] | null;

/** The apache-arrow type classes the records build (apache-arrow stays an optional peer, loaded by arrow.ts). */
export interface ArrowTypes {
  Float64: new () => unknown;
  Int32: new () => unknown;
  Int64: new () => unknown;
  Bool: new () => unknown;
  Utf8: new () => unknown;
}

/** One column type whose cells are of kind `K`: what each writer, the DataFrame source and the inference need. */
export interface ColumnTypeOf<K extends CellKind, N extends ColumnType = ColumnType> {
  readonly name: N;
  /** What the column holds, for the docs. */
  readonly holds: string;
  /** The `typeof` of a typed cell of this type. */
  readonly cell: K;
  /**
   * Whether a raw value already of kind `cell` is written as it is, with no check: the Parquet
   * writer's fast path (an int32 must be checked whole, an int64 becomes a bigint).
   */
  readonly asIs: boolean;
  /**
   * Whether the inference gives this type to a column all of whose values pass {@link is}
   * (tried in registry order; a column no inferred type fits is `string`).
   */
  readonly inferred: boolean;
  /** The value check: whether a raw value (not null) is a cell of this type without conversion. */
  readonly is: (value: unknown) => boolean;
  /** A raw value (not null) as a cell of this type, or `undefined` when it does not fit. */
  readonly toCell: (value: unknown) => CellKinds[K] | undefined;
  /**
   * The danfo dtype it maps to, and from: a DataFrame column of that dtype takes the first type
   * (in registry order) whose {@link is} all its numbers pass, else the last one.
   */
  readonly dtype: Dtype;
  /** Its Arrow type, built from the apache-arrow module the caller loaded. */
  readonly arrow: (arrow: ArrowTypes) => unknown;
  /** Its Parquet type: hyparquet-writer's basic type, and what the file's schema says. */
  readonly parquet: {
    readonly basic: "DOUBLE" | "INT32" | "INT64" | "BOOLEAN" | "STRING";
    readonly physical: "DOUBLE" | "INT32" | "INT64" | "BOOLEAN" | "BYTE_ARRAY";
    readonly converted?: "UTF8";
    /**
     * Min/max statistics in the footer. Not for text: long values (formulas, paths) would fill
     * the footer for little pruning.
     */
    readonly statistics: boolean;
  };
  /** One CSV field of a cell. */
  readonly csv: (cell: CellKinds[K], escapeFormulas: boolean) => string;
  /** The dtype pandas' `read_csv` gives a column of this type without missing values. */
  readonly pandas: "float64" | "int64" | "bool" | "object";
  /** Cells of this type, edges included, for the docs and the round-trip test. */
  readonly examples: readonly CellKinds[K][];
}

/** One column type's record, whatever the kind of its cells. */
export type ColumnTypeRecord = { [K in CellKind]: ColumnTypeOf<K> }[CellKind];

/** A record, frozen with its parts. */
function define<K extends CellKind, N extends ColumnType>(record: ColumnTypeOf<K, N>): ColumnTypeOf<K, N> {
  Object.freeze(record.parquet);
  Object.freeze(record.examples);
  return Object.freeze(record);
}

const INT32_MIN = -(2 ** 31);

const number = (cell: number): string => (Number.isNaN(cell) ? "" : String(cell));
const isInt32 = (value: unknown): boolean => typeof value === "number" && (value | 0) === value;
const isInt64 = (value: unknown): boolean =>
  (typeof value === "number" && Number.isSafeInteger(value)) || typeof value === "bigint";

/** Every column type, in the order messages and the docs list them. */
export const COLUMN_TYPE_RECORDS = Object.freeze([
  define({
    name: "double",
    holds: "64-bit floating-point numbers",
    cell: "number",
    asIs: true,
    inferred: true,
    is: (value) => typeof value === "number",
    toCell: (value) => (typeof value === "number" ? value : undefined),
    dtype: "float32",
    arrow: (a) => new a.Float64(),
    parquet: { basic: "DOUBLE", physical: "DOUBLE", statistics: true },
    csv: number,
    pandas: "float64",
    examples: [0.1, -1.5e300, 2, 5e-324],
  }),
  define({
    name: "int32",
    holds: `whole numbers from ${INT32_MIN} to ${2 ** 31 - 1}`,
    cell: "number",
    asIs: false,
    inferred: false,
    is: isInt32,
    toCell: (value) => (isInt32(value) ? (value as number) : undefined),
    dtype: "int32",
    arrow: (a) => new a.Int32(),
    parquet: { basic: "INT32", physical: "INT32", statistics: true },
    csv: number,
    pandas: "int64",
    examples: [0, INT32_MIN, 2 ** 31 - 1],
  }),
  define({
    name: "int64",
    holds: "whole numbers from -2^63 to 2^63-1 (bigint in JavaScript; numbers must be safe integers)",
    cell: "bigint",
    asIs: false,
    inferred: false,
    is: isInt64,
    toCell: (value) =>
      typeof value === "bigint" ? value : typeof value === "number" && isInt64(value) ? BigInt(value) : undefined,
    // danfo has no int64: an int32 column whose numbers leave the int32 range maps to int64.
    dtype: "int32",
    arrow: (a) => new a.Int64(),
    parquet: { basic: "INT64", physical: "INT64", statistics: true },
    csv: (cell) => String(cell),
    pandas: "int64",
    examples: [2n ** 63n - 1n, -(2n ** 63n), 0n],
  }),
  define({
    name: "boolean",
    holds: "true or false",
    cell: "boolean",
    asIs: true,
    inferred: true,
    is: (value) => typeof value === "boolean",
    toCell: (value) => (typeof value === "boolean" ? value : undefined),
    dtype: "boolean",
    arrow: (a) => new a.Bool(),
    parquet: { basic: "BOOLEAN", physical: "BOOLEAN", statistics: true },
    csv: (cell) => String(cell),
    pandas: "bool",
    examples: [true, false],
  }),
  define({
    name: "string",
    holds: "UTF-8 text; takes any value: numbers and booleans as their text, objects as JSON, dates as ISO 8601",
    cell: "string",
    asIs: true,
    inferred: true,
    is: (value) => typeof value === "string",
    toCell: (value) =>
      typeof value === "string"
        ? value
        : typeof value === "object"
          ? value instanceof Date
            ? value.toISOString()
            : JSON.stringify(value)
          : String(value),
    dtype: "string",
    arrow: (a) => new a.Utf8(),
    parquet: { basic: "STRING", physical: "BYTE_ARRAY", converted: "UTF8", statistics: false },
    csv: csvText,
    pandas: "object",
    examples: ["Fe2O3, hematite", 'say "hi"', "two\nlines", "=1+1", "Ünïcödé ✓"],
  }),
] as const);

type Registered = (typeof COLUMN_TYPE_RECORDS)[number];
// Spelled out for the API reference, which does not document the registry's inferred type; this
// line fails to compile when the union and the registry's names differ.
const SAME_NAMES: [ColumnType, Registered["name"]] extends [Registered["name"], ColumnType] ? true : never = true;
void SAME_NAMES;

/** Every {@link ColumnType}, for validation and messages. */
export const COLUMN_TYPES: readonly ColumnType[] = Object.freeze(COLUMN_TYPE_RECORDS.map((record) => record.name));

/** The type that takes any value (text): what the inference falls back to. */
export const FALLBACK_TYPE = "string" satisfies ColumnType;

const BY_NAME: Readonly<Record<ColumnType, ColumnTypeRecord>> = Object.freeze(
  Object.fromEntries(COLUMN_TYPE_RECORDS.map((record) => [record.name, record])) as Record<
    ColumnType,
    ColumnTypeRecord
  >,
);

/** The record of a column type (resolve it once per column, not per cell). */
export function columnTypeRecord<T extends ColumnType>(name: T): Extract<Registered, { name: T }> {
  // The names are the records' discriminant, so the lookup always finds the matching record.
  return BY_NAME[name] as Extract<Registered, { name: T }>;
}

/**
 * The CSV writer of the values of one `typeof`, for a cell whose column is not typed (the CSV
 * export writes what the records hold): the inferred type's, else the only type of that kind.
 */
export function csvWriterOf<K extends CellKind>(kind: K): (cell: CellKinds[K], escapeFormulas: boolean) => string {
  const records: readonly ColumnTypeRecord[] = COLUMN_TYPE_RECORDS;
  const record = records.find((r) => r.cell === kind && r.inferred) ?? records.find((r) => r.cell === kind);
  // Only a registry without a type of this kind gets here, at load: a bug of the registry's.
  if (!record) throw new MatframeError(`No column type holds ${kind} cells.`);
  return record.csv as (cell: CellKinds[K], escapeFormulas: boolean) => string;
}
