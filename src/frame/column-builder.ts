import type { ColumnPlan } from "./column-spec";
import { recordShapeError } from "./record-shape";
import { RowReader, type FrameWarning, type ReadOptions } from "./row-reader";

/** A danfo dtype, as the builder decides it from every row. */
export type Dtype = "float32" | "int32" | "string" | "boolean";

/** A cell as a table holds it: objects and arrays have become JSON strings. */
export type Cell = number | string | boolean | null;

/** What a finished builder hands to a DataFrame: one array per column, all the same length. */
export interface BuiltColumns {
  readonly names: readonly string[];
  /** Column name -> values, keys in column order. */
  readonly data: Record<string, Cell[]>;
  readonly dtypes: readonly Dtype[];
  readonly rows: number;
  readonly warnings: readonly FrameWarning[];
}

// What each column has seen so far, as bits, so the dtype reflects all rows (danfo itself looks
// at the first 20 only).
const INT = 1;
const FLOAT = 2;
const BOOL = 4;
const STRING = 8;
const NULL = 16;

/**
 * Fills column arrays as records arrive, page by page, and never keeps a row object.
 *
 * - missing -> `null`, in its own column whatever the records' key order;
 * - numbers stay numbers, booleans booleans, strings strings;
 * - objects and arrays become JSON strings (dates ISO strings);
 * - a column's dtype comes from all rows: numbers only -> `int32` (integers in int32 range and
 *   no nulls) or `float32`; booleans (and nulls) -> `boolean`; any string, or booleans mixed
 *   with numbers -> `string`, with its other values turned into strings; nulls only -> `float32`
 *   (as danfo infers for missing values).
 */
export class ColumnBuilder {
  private readonly reader: RowReader;
  private readonly values: Cell[][];
  private readonly seen: number[];
  private readonly row: unknown[];

  constructor(plan: ColumnPlan, options: ReadOptions = {}) {
    this.reader = new RowReader(plan, options);
    this.values = plan.names.map(() => []);
    this.seen = plan.names.map(() => 0);
    this.row = new Array<unknown>(plan.names.length);
  }

  /** Rows added so far. */
  get rows(): number {
    return this.reader.rows;
  }

  /** Adds one record as one row. */
  add(record: unknown): void {
    try {
      this.addRecord(record);
    } catch (error) {
      throw recordShapeError(error, record);
    }
  }

  private addRecord(record: unknown): void {
    const row = this.row;
    this.reader.read(record, row);
    const values = this.values;
    const seen = this.seen;
    for (let i = 0; i < row.length; i++) {
      const value = row[i];
      let cell: Cell;
      let kind: number;
      switch (typeof value) {
        case "number":
          cell = value;
          kind = (value | 0) === value ? INT : FLOAT;
          break;
        case "string":
          cell = value;
          kind = STRING;
          break;
        case "boolean":
          cell = value;
          kind = BOOL;
          break;
        case "object":
          cell = value === null ? null : value instanceof Date ? value.toISOString() : JSON.stringify(value);
          kind = cell === null ? NULL : STRING;
          break;
        case "bigint":
          cell = String(value);
          kind = STRING;
          break;
        default:
          cell = null;
          kind = NULL;
      }
      values[i].push(cell);
      seen[i] |= kind;
    }
  }

  /** Adds every record of a page, in order. */
  addPage(records: readonly unknown[]): void {
    for (let i = 0; i < records.length; i++) this.add(records[i]);
  }

  /** Decides each column's dtype and returns the columns; the builder must not be used after. */
  finish(): BuiltColumns {
    const names = this.reader.names;
    const data: Record<string, Cell[]> = {};
    const dtypes = names.map((name, i) => {
      const dtype = dtypeOf(this.seen[i]);
      if (dtype === "string" && (this.seen[i] & (INT | FLOAT | BOOL)) !== 0) stringify(this.values[i]);
      data[name] = this.values[i];
      return dtype;
    });
    return { names, data, dtypes, rows: this.reader.rows, warnings: this.reader.finish() };
  }
}

function dtypeOf(seen: number): Dtype {
  if (seen & STRING) return "string";
  const numeric = seen & (INT | FLOAT);
  if (numeric && seen & BOOL) return "string";
  if (numeric) return seen & (FLOAT | NULL) ? "float32" : "int32";
  if (seen & BOOL) return "boolean";
  return "float32";
}

function stringify(values: Cell[]): void {
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value !== null && typeof value !== "string") values[i] = String(value);
  }
}
