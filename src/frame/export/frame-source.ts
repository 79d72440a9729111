// A DataFrame as the source of an export: a table a scientist filtered, grouped or extended goes
// back to a file with its columns as they are. Its column names are names, not paths
// (`lattice.a` is one column, not `a` inside `lattice`), no default column is added, and each
// column keeps its dtype (float32 -> double, int32 -> int32 or int64, boolean, string: the
// column type registry maps each).
import { ValidationError } from "../../errors";
import type { ColumnDef, ColumnPlan } from "../table/column-spec";
import type { ColumnType } from "../table/column-types";
import { COLUMN_TYPE_RECORDS, type ColumnTypeRecord } from "../table/column-type-registry";
import type { DataFrame } from "../dataframe/dataframe";

/** Rows per page handed to the writers (the size of a platform page). */
const PAGE_ROWS = 500;

/** Whether `value` is a DataFrame (danfo's, as `toDataFrame` returns it) rather than records or pages. */
export function isDataFrame(value: unknown): value is DataFrame {
  if (value === null || typeof value !== "object") return false;
  const frame = value as Partial<DataFrame>;
  return (
    Array.isArray(frame.columns) &&
    Array.isArray(frame.dtypes) &&
    typeof frame.column === "function" &&
    Array.isArray(frame.values)
  );
}

/** What an export of a DataFrame writes: its rows as pages, the column plan and the types. */
export interface FrameSource {
  readonly pages: Iterable<readonly unknown[]>;
  readonly plan: ColumnPlan;
  /** A type per column from its dtype; the caller's `types` option overrides these. */
  readonly types: Readonly<Record<string, ColumnType>>;
}

/**
 * Reads a DataFrame as an export source. `columns`, when given, picks and orders the frame's
 * columns by exact name.
 *
 * @throws ValidationError (`option: "columns"`) naming a column the frame does not have.
 */
export function frameSource(frame: DataFrame, columns?: readonly string[]): FrameSource {
  const all = frame.columns;
  const names = columns ? [...new Set(columns)] : [...all];
  // Each written column with its position in the frame's rows.
  const picked = names.map((name): FrameColumn => {
    const at = all.indexOf(name);
    if (at === -1) {
      throw new ValidationError(
        "columns",
        `The DataFrame has no column "${name}"; its columns are ${all.join(", ")}. A DataFrame's columns are written by their names, as they are.`,
      );
    }
    return { name, at };
  });
  if (names.length === 0)
    throw new ValidationError("columns", "columns is empty; leave it out to write every column of the DataFrame.");
  const rows = frame.values as unknown[][];
  const types: Record<string, ColumnType> = {};
  for (const { name, at } of picked) {
    const type = typeOf(frame.dtypes[at], rows, at);
    if (type) types[name] = type;
  }
  const defs: ColumnDef[] = names.map((name) => ({ name, segments: [name] }));
  // The frame's own columns, not paths the caller spelt: one without values (a results table's
  // direct gaps) is the frame's content, so it gives no warning.
  const plan: ColumnPlan = { names, columns: defs, fields: {}, defaulted: true };
  return { pages: pagesOf(rows, picked), plan, types };
}

/** A column of the frame to write: its name, and where it is in each row. */
interface FrameColumn {
  readonly name: string;
  readonly at: number;
}

function* pagesOf(rows: readonly unknown[][], picked: readonly FrameColumn[]): Generator<unknown[]> {
  for (let start = 0; start < rows.length; start += PAGE_ROWS) {
    const page: unknown[] = [];
    for (const row of rows.slice(start, start + PAGE_ROWS)) {
      const record: Record<string, unknown> = Object.create(null);
      for (let c = 0; c < picked.length; c++) {
        const { name, at } = picked[c]!;
        record[name] = cell(row[at]);
      }
      page.push(record);
    }
    yield page;
  }
}

/** danfo keeps a missing number as NaN once it has computed on a column: written as null. */
function cell(value: unknown): unknown {
  return typeof value === "number" && Number.isNaN(value) ? null : value;
}

// The column types each danfo dtype maps to, in registry order (int32: int32, then int64).
const BY_DTYPE = new Map<string, readonly ColumnTypeRecord[]>();
for (const record of COLUMN_TYPE_RECORDS) BY_DTYPE.set(record.dtype, [...(BY_DTYPE.get(record.dtype) ?? []), record]);

/**
 * The column type of a danfo column: of the types its dtype maps to, the first whose value check
 * all its numbers pass (danfo calls every whole-number column int32, whatever its range), else
 * the last. `undefined` for a dtype no type maps to.
 */
function typeOf(dtype: string | undefined, rows: readonly unknown[][], column: number): ColumnType | undefined {
  const candidates = dtype === undefined ? undefined : BY_DTYPE.get(dtype);
  if (!candidates) return undefined;
  const fits = (record: ColumnTypeRecord): boolean =>
    rows.every((row) => {
      const value = row[column];
      return typeof value !== "number" || record.is(value);
    });
  return (candidates.slice(0, -1).find(fits) ?? candidates.at(-1))?.name;
}
