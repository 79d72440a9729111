import type { ColumnPlan } from "./column-spec";
import { recordShapeError } from "./record-shape";
import { RowReader, type FrameWarning, type ReadOptions } from "./row-reader";
import { ValidationError } from "../../errors";

/** A dtype danfo can convert a column to. */
export type Dtype = "float32" | "int32" | "string" | "boolean";
// The danfo dtypes, as the builder decides them from every row (one list: the DataFrame's).

/** A cell as a table holds it: objects and arrays have become JSON strings. */
export type Cell = number | string | boolean | null;

/**
 * What a finished builder hands to a DataFrame: the table row by row, each row's cells in column
 * order, which is how danfo keeps a frame (given columns, it would transpose them into rows).
 */
export interface BuiltColumns {
  readonly names: readonly string[];
  /** One array per row, `names.length` cells each. */
  readonly table: Cell[][];
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
 * Fills the table's rows as records arrive, page by page, and never keeps a record object.
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
  private readonly table: Cell[][] = [];
  private readonly seen: number[];
  private readonly width: number;

  constructor(plan: ColumnPlan, options: ReadOptions = {}) {
    this.reader = new RowReader(plan, options);
    this.seen = plan.names.map(() => 0);
    this.width = plan.names.length;
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
    // The reader's raw cells land in the row that the table keeps, each replaced by its cell.
    const row = new Array<unknown>(this.width);
    this.reader.read(record, row);
    const seen = this.seen;
    for (let i = 0; i < seen.length; i++) {
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
      row[i] = cell;
      seen[i]! |= kind;
    }
    this.table.push(row as Cell[]);
  }

  /** Adds every record of a page, in order. */
  addPage(records: readonly unknown[]): void {
    for (let i = 0; i < records.length; i++) this.add(records[i]);
  }

  /** Decides each column's dtype and returns the table; the builder must not be used after. */
  finish(): BuiltColumns {
    const names = this.reader.names;
    const dtypes = this.seen.map((seen, c) => {
      const dtype = dtypeOf(seen);
      if (dtype === "string" && (seen & (INT | FLOAT | BOOL)) !== 0) stringify(this.table, c);
      return dtype;
    });
    return { names, table: this.table, dtypes, rows: this.reader.rows, warnings: this.reader.finish() };
  }
}

/** One column of a built table, as an array of its cells. */
export function columnOf(built: BuiltColumns, name: string): Cell[] {
  const c = built.names.indexOf(name);
  if (c < 0) throw new ValidationError("column", `no column ${JSON.stringify(name)} among ${built.names.join(", ")}`);
  return built.table.map((row) => row[c] ?? null);
}

function dtypeOf(seen: number): Dtype {
  if (seen & STRING) return "string";
  const numeric = seen & (INT | FLOAT);
  if (numeric && seen & BOOL) return "string";
  if (numeric) return seen & (FLOAT | NULL) ? "float32" : "int32";
  if (seen & BOOL) return "boolean";
  return "float32";
}

/** Turns column `c`'s numbers and booleans into their text. */
function stringify(table: Cell[][], c: number): void {
  for (const row of table) {
    const value = row[c];
    if (typeof value === "number" || typeof value === "boolean") row[c] = String(value);
  }
}
