// The DataFrame as matframe's public types describe it: a structural subset of danfojs-node's
// DataFrame and Series, so that a project without danfojs-node (an optional peer) still
// compiles against matframe's .d.ts with skipLibCheck off, and `DataFrame` is never `any`.
// `src/frame/danfo.ts` checks at compile time that danfo's classes satisfy these interfaces.

import type { Cell } from "./column-builder";

/** One column of a {@link DataFrame} (a danfo `Series`). */
export interface Series {

  /** The column's values, in row order (danfo types them loosely; a column's cells are `Cell`s). */
  readonly values: Array<Cell | Cell[]>;
  /** danfo's dtype: `"float32"`, `"int32"`, `"string"` or `"boolean"`. */
  readonly dtype: string;
  /** `[rows]`. */
  readonly shape: number[];
  readonly index: Array<string | number>;
  mean(): number;
  min(): number;
  max(): number;
  sum(): number;
  /** Values that are not null. */
  count(): number;
  unique(): Series;
  /** How often each value occurs (the values are the index). */
  valueCounts(): Series;
  head(rows?: number): Series;
  tail(rows?: number): Series;
  /** Prints the column as a text table. */
  print(): void;
}

/**
 * A danfo `DataFrame` as `toDataFrame` returns it (danfojs-node 1.2). This interface names the
 * members matframe's documentation uses; the object is danfo's own, so every other danfo method
 * is there at run time too (cast to danfo's type from `danfojs-node` to call them typed).
 */
export interface DataFrame {
  /** Column names, in order. */
  readonly columns: string[];
  /** `[rows, columns]`. */
  readonly shape: number[];
  /** One dtype per column. */
  readonly dtypes: string[];
  readonly index: Array<string | number>;
  /** Rows as arrays of cells. */
  readonly values: unknown[];
  /** One column by name. */
  column(name: string): Series;
  /** The first `rows` rows (default 5). */
  head(rows?: number): DataFrame;
  /** A sorted copy. */
  sortValues(column: string, options?: { ascending?: boolean }): DataFrame;
  /** Count, mean, std, min, median and max of each numeric column. */
  describe(): DataFrame;
  /** Prints the table as text. */
  print(): void;
}
