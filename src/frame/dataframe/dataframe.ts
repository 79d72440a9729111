// The DataFrame as matframe's public types describe it: a structural subset of danfojs-node's
// DataFrame and Series, so that a project without danfojs-node (an optional peer) still
// compiles against matframe's .d.ts with skipLibCheck off, and `DataFrame` is never `any`.
// `src/frame/dataframe/danfo.ts` checks at compile time that danfo's classes satisfy these interfaces, so
// every member named here exists at run time. The subset is what analysis needs: boolean masks,
// `query`, `loc`/`iloc`, `groupby`, new columns, `apply`/`map`, sorting and summaries. Columns are
// reached with `df.column("name")` (danfo's `df["name"]` is untyped: an index signature would let
// a misspelt method name compile).
//
// The objects are danfo's, but their operations are matframe's (src/frame/operations/): they give
// pandas' answers in any order (rows keep their labels through sorts and filters, a missing value
// compares false, sorts last and is skipped by counts and statistics), or throw
// FrameOperationError where they could not (`loc` label slices, a mask or
// column whose labels cannot be lined up). test/frame/pandas-differential.test.ts checks them.

import type { Cell, Dtype } from "../table/column-builder";

/** A single cell value as danfo hands it out. */
export type Scalar = number | string | boolean;

/** What a comparison takes: another column (row by row), one value, or one value per row. */
export type Comparand = Series | Scalar | number[] | string[] | boolean[];

export type { Dtype } from "../table/column-builder";

/** Text operations on a string column (`series.str`), each returning a new column. */
export interface StringAccessor {
  /** Each value in lower case. */
  toLowerCase(): Series;
  /** Each value in upper case. */
  toUpperCase(): Series;
  /** Whether each value contains `text`: a boolean mask. */
  includes(text: string): Series;
  /** Whether each value starts with `text`: a boolean mask. */
  startsWith(text: string): Series;
  /** Whether each value ends with `text`: a boolean mask. */
  endsWith(text: string): Series;
  /** Characters `start` to `end` (exclusive) of each value. */
  slice(start: number, end: number): Series;
  /** Each value with `search` replaced by `replacement`. */
  replace(search: string, replacement: string): Series;
  /** Each value's length. */
  len(): Series;
  /** Each value without leading and trailing white space. */
  trim(): Series;
}

/** One column of a {@link DataFrame} (a danfo `Series`). */
export interface Series {
  /** The column's values, in row order (danfo types them loosely; a column's cells are `Cell`s). */
  readonly values: Array<Cell | Cell[]>;
  /** danfo's dtype: `"float32"`, `"int32"`, `"string"` or `"boolean"`. */
  readonly dtype: string;
  /** `[rows]`. */
  readonly shape: number[];
  /** Row labels (positions unless set otherwise). */
  readonly index: Array<string | number>;
  /** Text operations, for a string column. */
  readonly str: StringAccessor;

  /**
   * Row-by-row comparisons, giving a boolean mask for {@link DataFrame.query} or `loc`. A missing
   * value compares false (and `ne` true), as in pandas; another column must have the same row
   * labels in the same order (take both from one frame).
   * @example df.query(df.column("density").gt(5))
   */
  gt(other: Comparand): Series;
  /** Less than, row by row: a boolean mask. */
  lt(other: Comparand): Series;
  /** Greater than or equal, row by row: a boolean mask. */
  ge(other: Comparand): Series;
  /** Less than or equal, row by row: a boolean mask. */
  le(other: Comparand): Series;
  /** Equal, row by row: a boolean mask. */
  eq(other: Comparand): Series;
  /** Not equal, row by row: a boolean mask. */
  ne(other: Comparand): Series;
  /**
   * Both masks true, row by row.
   * @example df.query(df.column("density").gt(5).and(df.column("nelements").eq(2)))
   */
  and(other: Series | boolean[]): Series;
  /** Either mask true, row by row. */
  or(other: Series | boolean[]): Series;

  /** Sum with another column or a number, row by row. */
  add(other: Series | number | number[]): Series;
  /** Difference with another column or a number, row by row. */
  sub(other: Series | number | number[]): Series;
  /** Product with another column or a number, row by row. */
  mul(other: Series | number | number[]): Series;
  /** Quotient by another column or a number, row by row. */
  div(other: Series | number | number[]): Series;
  /** Absolute values. */
  abs(): Series;
  /** Values rounded to `decimals` places. */
  round(decimals?: number): Series;

  /** Mean of the values that are not missing (NaN when none is there). */
  mean(): number;
  /** Median of the values that are not missing (NaN when none is there). */
  median(): number;
  /** Smallest value that is not missing (NaN when none is there). */
  min(): number;
  /** Largest value that is not missing (NaN when none is there). */
  max(): number;
  /** Sum of the values that are not missing (0 when none is there). */
  sum(): number;
  /** Standard deviation (sample, missing values skipped; NaN under two values). */
  std(): number;
  /** Variance (sample, missing values skipped; NaN under two values). */
  var(): number;
  /** Values that are not missing. */
  count(): number;
  /** How many distinct values that are not missing. */
  nUnique(): number;
  /** The distinct values, in order of first appearance (a missing value once, as null). */
  unique(): Series;
  /** How often each value occurs, most frequent first (ties in order of first appearance); the values are the index, missing values are not counted. */
  valueCounts(): Series;
  /** Count, mean, std, min, median and max. */
  describe(): Series;

  /** A mask of the missing values. */
  isNa(): Series;
  /** A copy with missing values replaced by `value`. */
  fillNa(value: Scalar): Series;
  /** A copy without the missing values. */
  dropNa(): Series;
  /** Each value through `fn` (or looked up in an object). */
  map(fn: ((value: any, index: number) => any) | Record<string | number, any>): Series;
  /** Each value through `fn`. */
  apply(fn: (value: any) => any): Series;
  /** The column converted to another dtype. */
  asType(dtype: Dtype): Series;
  /** A sorted copy (ascending unless told otherwise): ties keep their order, missing values come last. */
  sortValues(options?: { ascending?: boolean }): Series;
  /** The rows at these positions (or where a mask is true). */
  iloc(rows: Array<number | string | boolean>): Series;
  /** The rows with these index labels. */
  loc(rows: Array<number | string | boolean>): Series;
  /** The first `rows` values (default 5). */
  head(rows?: number): Series;
  /** The last `rows` values (default 5). */
  tail(rows?: number): Series;
  /** The value at a position. */
  iat(row: number): Scalar | undefined;
  /** Prints the column as a text table. */
  print(): void;
}

/** `df.groupby([...])`: aggregations give one row per group. */
export interface GroupBy {
  /** Restricts the aggregation to these columns. */
  col(columns: string[]): GroupBy;
  /** Values that are not missing, per group and column. Rows whose key is missing belong to no group; groups come in key order. */
  count(): DataFrame;
  /** Sum per group. */
  sum(): DataFrame;
  /** Mean per group, missing values skipped (NaN for a group with none). */
  mean(): DataFrame;
  /** Smallest value per group. */
  min(): DataFrame;
  /** Largest value per group. */
  max(): DataFrame;
  /** Standard deviation per group. */
  std(): DataFrame;
  /** Variance per group. */
  var(): DataFrame;
  /** Rows per group, in a column named `size`. */
  size(): DataFrame;
  /** Each column's first value that is not missing, per group (pandas' `first`). */
  first(): DataFrame;
  /** Each column's last value that is not missing, per group (pandas' `last`). */
  last(): DataFrame;
  /**
   * Several aggregations at once, by column.
   * @example df.groupby(["method.type"]).agg({ "derivedProperties.density": ["mean", "count"] })
   */
  agg(operations: Record<string, string | string[]>): DataFrame;
  /** The rows of one group. */
  getGroup(keys: Array<string | number>): DataFrame;
}

/**
 * A danfo `DataFrame` as `toDataFrame` returns it (danfojs-node 1.2). The object is danfo's own,
 * so its other methods are there at run time too; these are the ones typed here.
 */
export interface DataFrame {
  /** Column names, in order. */
  readonly columns: string[];
  /** `[rows, columns]`. */
  readonly shape: number[];
  /** One dtype per column. */
  readonly dtypes: string[];
  /** Row labels (positions unless set otherwise). */
  readonly index: Array<string | number>;
  /** Rows as arrays of cells. */
  readonly values: unknown[];
  /** One column by name. */
  column(name: string): Series;
  /**
   * The rows where `mask` is true, with their row labels. A mask made from another frame (say the
   * unsorted one) is lined up by row label, as pandas does.
   * @example const dense = df.query(df.column("derivedProperties.density").gt(5))
   */
  query(mask: Series | boolean[]): DataFrame;
  /** Rows by index label or boolean mask, and columns by name. Label slices (`"2:5"`) are refused: use `iloc` for positions. */
  loc(selection: { rows?: Series | Array<string | number | boolean>; columns?: string[] }): DataFrame;
  /** Rows and columns by position (negative from the end, or one `"start:end"` slice), or rows by boolean mask. */
  iloc(selection: { rows?: Series | Array<string | number | boolean>; columns?: Array<string | number> }): DataFrame;
  /**
   * Groups rows by the values of these columns.
   * @example df.groupby(["method.type"]).col(["derivedProperties.density"]).mean()
   */
  groupby(columns: string[]): GroupBy;
  /** A copy with a column added (or replaced). */
  addColumn(name: string, values: Series | Scalar[], options?: { atIndex?: number | string }): DataFrame;
  /** A copy without these columns (or rows). */
  drop(options: { columns?: string | string[]; index?: Array<string | number> }): DataFrame;
  /** A copy with columns renamed, `{ old: "new" }`. */
  rename(mapper: Record<string, string>): DataFrame;
  /** A function applied to each row's cells (axis 1, the default) or each column's values (axis 0), missing values as null. */
  apply(fn: (values: any) => any, options?: { axis?: 0 | 1 }): DataFrame | Series;
  /** A function applied to every cell. */
  applyMap(fn: (value: any) => any): DataFrame;
  /** A sorted copy: rows keep their labels, ties their order, and missing values come last (pandas' `kind="stable"`, `na_position="last"`). */
  sortValues(column: string, options?: { ascending?: boolean }): DataFrame;
  /** Count, mean, std, min, median and max of each numeric column. */
  describe(): DataFrame;
  /** Mean of each numeric column (or row, axis 1). */
  mean(options?: { axis?: 0 | 1 }): Series;
  /** Median of each numeric column (or row, axis 1). */
  median(options?: { axis?: 0 | 1 }): Series;
  /** Smallest value of each numeric column (or row, axis 1). */
  min(options?: { axis?: 0 | 1 }): Series;
  /** Largest value of each numeric column (or row, axis 1). */
  max(options?: { axis?: 0 | 1 }): Series;
  /** Sum of each numeric column (or row, axis 1). */
  sum(options?: { axis?: 0 | 1 }): Series;
  /** Values that are not null, per column (or row). */
  count(options?: { axis?: 0 | 1 }): Series;
  /** A table of booleans: true where a value is missing. */
  isNa(): DataFrame;
  /** A copy with missing values replaced (one value, or one per column named in `columns`). */
  fillNa(values: Scalar | Scalar[], options?: { columns?: string[] }): DataFrame;
  /** A copy without rows (axis 1) or columns (axis 0) that have a missing value. */
  dropNa(options?: { axis: 0 | 1 }): DataFrame;
  /** The numeric (or other) columns only, e.g. `["float32", "int32"]`. */
  selectDtypes(include: string[]): DataFrame;
  /** A copy with one column converted to another dtype. */
  asType(column: string, dtype: Dtype): DataFrame;
  /** A copy of the table. */
  copy(): DataFrame;
  /** A copy whose row labels are positions again (pandas' `reset_index(drop=True)`). */
  resetIndex(): DataFrame;
  /** The first `rows` rows (default 5). */
  head(rows?: number): DataFrame;
  /** The last `rows` rows (default 5). */
  tail(rows?: number): DataFrame;
  /** The value at a row position and column position. */
  iat(row: number, column: number): Scalar | undefined;
  /** The value at a row label and column name. */
  at(row: string | number, column: string): Scalar | undefined;
  /** Prints the table as text. */
  print(): void;
}
