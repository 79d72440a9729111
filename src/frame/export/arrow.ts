// Arrow tables: the same typed columns as the Parquet export, handed to apache-arrow (an
// optional peer, loaded on first use). Nothing public names apache-arrow's types, so matframe's
// .d.ts compiles in a project without it; `ArrowTable` is the structural subset matframe promises.
import { MissingDependencyError } from "../../errors";
import { planColumns, type ColumnPlan } from "../table/column-spec";
import { checkColumnTypes, decideTypes, toTyped, type ColumnType } from "../table/column-types";
import { columnTypeRecord, type ArrowTypes } from "../table/column-type-registry";
import type { PageSource } from "./export";
import type { DataFrame } from "../dataframe/dataframe";
import { frameSource, isDataFrame } from "./frame-source";
import { recordShapeError } from "../table/record-shape";
import { RowReader } from "../table/row-reader";
import type { TableOptions } from "../dataframe/to-dataframe";
import { reportWarnings } from "../table/warnings";
import type { Progress } from "../../client/config/options";

/** One column of an {@link ArrowTable} (an apache-arrow `Vector`). */
export interface ArrowVector {
  readonly length: number;
  /** The number of nulls. */
  readonly nullCount: number;
  /** The value at `index` (`bigint` for int64, `null` for a null). */
  get(index: number): unknown;
  /** The values as a JavaScript array or typed array. */
  toArray(): ArrayLike<unknown>;
}

/** An apache-arrow `Table`, as matframe's types describe it (the object is apache-arrow's own). */
export interface ArrowTable {
  readonly numRows: number;
  readonly numCols: number;
  readonly schema: {
    readonly fields: readonly { readonly name: string; readonly type: unknown; readonly nullable: boolean }[];
  };
  /** The column named `name`, or null. */
  getChild(name: string): ArrowVector | null;
  /** Rows as objects (copies: for a look, not for the whole table). */
  toArray(): unknown[];
}

/** Options of `collection.toArrow`, beside the walk's. */
export interface ToArrowOptions extends TableOptions {
  /**
   * Column types by name; the others come from the platform's schema or from every value read.
   * @default inferred: numbers -> double, booleans -> boolean, anything else -> string
   */
  types?: Readonly<Record<string, ColumnType>>;
  /** Called after each page is read. */
  onProgress?: (progress: Progress) => void;
  /**
   * The apache-arrow module to build the table with. apache-arrow ships separate CommonJS and ES
   * module copies, and a Table of one copy is not an instance of the other's; matframe loads
   * the CommonJS one. In an ES module, pass your own import so the table works with your
   * `tableToIPC` and friends: `toArrow({ arrow: await import("apache-arrow") })`.
   * @default require("apache-arrow")
   */
  arrow?: object;
}

type ArrowModule = ArrowTypes & {
  vectorFromArray(values: unknown[], type: unknown): unknown;
  Table: new (columns: Record<string, unknown>) => ArrowTable;
};

let arrow: ArrowModule | undefined;

/**
 * Loads apache-arrow on first use.
 * @throws MissingDependencyError when it is not installed.
 */
export function loadArrow(): ArrowModule {
  if (arrow) return arrow;
  try {
    arrow = require("apache-arrow") as ArrowModule;
  } catch (error) {
    throw new MissingDependencyError("apache-arrow", "An Arrow table", { cause: error });
  }
  return arrow;
}

/**
 * Reads the pages into an Arrow table with the planned columns: double, int32/int64, boolean
 * and UTF-8 vectors with nulls as nulls. Types not given or known come from every value read.
 */
export async function readArrow(
  pages: PageSource,
  plan: ColumnPlan,
  options: ToArrowOptions = {},
): Promise<ArrowTable> {
  const a = (options.arrow as ArrowModule | undefined) ?? loadArrow(); // before the first request
  const given = checkColumnTypes(plan, options.types);
  const reader = new RowReader(plan, options);
  const columns: unknown[][] = plan.names.map(() => []);
  const ids: unknown[] = [];
  const row = new Array<unknown>(plan.names.length);
  let pageCount = 0;
  for await (const page of pages) {
    for (const record of page) {
      try {
        reader.read(record, row);
      } catch (error) {
        throw recordShapeError(error, record);
      }
      for (let c = 0; c < columns.length; c++) columns[c]!.push(row[c]);
      ids.push((record as { _id?: unknown } | null)?._id);
    }
    pageCount++;
    options.onProgress?.({ pages: pageCount, items: ids.length });
  }
  const types = decideTypes(plan, columns, given);
  const vectors: Record<string, unknown> = {};
  for (const [c, values] of columns.entries()) {
    // decideTypes and the reader give one type and one name per planned column.
    const type = columnTypeRecord(types[c]!);
    const name = plan.names[c]!;
    for (let r = 0; r < values.length; r++) values[r] = toTyped(values[r], type, name, ids[r]);
    vectors[reader.names[c]!] = a.vectorFromArray(values, type.arrow(a));
    columns[c] = [];
  }
  reportWarnings(reader.finish(), options.onWarning);
  return new a.Table(vectors);
}

/**
 * An Arrow table of any records (an array, iterable or async iterable), one row per record, with
 * the columns asked for; see `collection.toArrow` for the walk. A DataFrame gives its own
 * columns, by name, with their dtypes.
 * @example const table = await toArrow(records, { columns: ["formula", "lattice.a"] });
 */
export async function toArrow(
  records: Iterable<unknown> | AsyncIterable<unknown> | DataFrame,
  options: ToArrowOptions = {},
): Promise<ArrowTable> {
  if (isDataFrame(records)) {
    const { pages, plan, types } = frameSource(records, options.columns);
    return readArrow(pages, plan, { ...options, types: { ...types, ...options.types } });
  }
  return readArrow(inPages(records), planColumns(options.columns, options), options);
}

async function* inPages(records: Iterable<unknown> | AsyncIterable<unknown>): AsyncGenerator<unknown[]> {
  let page: unknown[] = [];
  for await (const record of records) {
    page.push(record);
    if (page.length === 500) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}
