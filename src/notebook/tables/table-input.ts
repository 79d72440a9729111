import { ValidationError } from "../../errors";

/**
 * Anything `show` and the charts accept as a table: an array of row objects
 * (what `Collection.list` and `iterate` give, or your own interfaces), or a danfo-style DataFrame
 * (what `toDataFrame` gives). Typed structurally so that danfo stays an
 * optional peer dependency.
 */
export type TableInput = ReadonlyArray<object> | DataFrameLike;

/** The part of a danfo `DataFrame` the display helpers read. */
export interface DataFrameLike {
  readonly columns: string[];
  readonly values: unknown[][] | unknown[];
  readonly shape: number[];
}

/** A table reduced to what the renderers need: column names and the first rows. */
export interface TableSlice {
  columns: string[];
  rows: unknown[][];
  /** Rows in the whole table, of which `rows` are the first. */
  totalRows: number;
}

function isDataFrameLike(input: unknown): input is DataFrameLike {
  return (
    typeof input === "object" &&
    input !== null &&
    !Array.isArray(input) &&
    Array.isArray((input as DataFrameLike).columns) &&
    Array.isArray((input as DataFrameLike).shape)
  );
}

type Row = Record<string, unknown>;

function assertRows(input: unknown): asserts input is ReadonlyArray<Row> {
  if (!Array.isArray(input)) {
    throw new ValidationError(
      "input",
      "show() and the charts take an array of row objects or a DataFrame (from toDataFrame); got " +
        (input === null ? "null" : typeof input),
    );
  }
}

/**
 * Takes the first `maxRows` rows of a table as arrays of cells, in column order.
 * Row objects may differ in their keys (a projection can leave fields out), so
 * the columns are the union of keys in first-seen order.
 */
export function sliceTable(input: TableInput, maxRows: number): TableSlice {
  if (isDataFrameLike(input)) {
    const totalRows = input.shape[0] ?? 0;
    const values = totalRows === 0 ? [] : input.values;
    // A one-column danfo frame still gives rows as arrays; a Series would not, so wrap defensively.
    const rows = values.slice(0, maxRows).map((row) => (Array.isArray(row) ? row : [row]));
    return { columns: [...input.columns], rows, totalRows };
  }
  assertRows(input);
  const columns = columnsOf(input);
  const rows = input.slice(0, maxRows).map((record) => columns.map((c) => record[c]));
  return { columns, rows, totalRows: input.length };
}

/** The union of the records' keys, in first-seen order. */
export function columnsOf(records: ReadonlyArray<object>): string[] {
  const seen = new Set<string>();
  for (const record of records) for (const key of Object.keys(record)) seen.add(key);
  return [...seen];
}

/** All rows of a table as records keyed by column name (what the chart specs take). */
export function recordsOf(input: TableInput): Row[] {
  if (!isDataFrameLike(input)) {
    assertRows(input);
    return [...input];
  }
  const { columns, rows } = sliceTable(input, Infinity);
  return rows.map((row) => Object.fromEntries(columns.map((c, i) => [c, row[i]])));
}

/**
 * The slice with a leading `_id` column moved to the end: a 17-character id is for looking a
 * record up, not for reading across, and tables read from their first columns.
 */
export function idLast(slice: TableSlice): TableSlice {
  if (slice.columns[0] !== "_id" || slice.columns.length === 1) return slice;
  return {
    ...slice,
    columns: [...slice.columns.slice(1), "_id"],
    rows: slice.rows.map((row) => [...row.slice(1), row[0]]),
  };
}
