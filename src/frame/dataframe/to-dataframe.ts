import { planColumns, type ColumnPlan } from "../table/column-spec";
import { ColumnBuilder } from "../table/column-builder";
import { frameFromColumns, loadDanfo } from "./danfo";
import type { DataFrame } from "./dataframe";
import type { ReadOptions } from "../table/row-reader";
import { reportWarnings, type WarningHandler } from "../table/warnings";

/** Options that shape a table, shared by every way of making one. */
export interface TableOptions extends ReadOptions {
  /**
   * Dotted column paths, in order. A path ending in `method` gives `<path>.type` and
   * `<path>.subtype`; a name under an array of named entries picks the entry
   * (`derivedProperties.volume` is the `value` of the entry named `volume`); `"-_id"` leaves the
   * otherwise-first `_id` column out.
   * @default DEFAULT_COLUMNS (_id, name, formula, method.type, method.subtype, lattice.a, lattice.b, lattice.c, derivedProperties.volume, derivedProperties.density)
   * @example ["formula", "lattice.a", "derivedProperties.volume"]
   */
  columns?: readonly string[];
  /**
   * Receives data warnings, such as rows whose method failed the method schema.
   * @default emits them with `process.emitWarning`
   */
  onWarning?: WarningHandler;
}

/** Options of the standalone {@link toDataFrame}. */
export type ToDataFrameOptions = TableOptions;

/** Finishes a builder into a DataFrame, reporting its warnings. */
export function finishFrame(builder: ColumnBuilder, onWarning?: WarningHandler): DataFrame {
  const built = builder.finish();
  reportWarnings(built.warnings, onWarning);
  return frameFromColumns(built);
}

/**
 * A DataFrame of any records, one row per record, with the columns asked for. Zero records
 * give an empty DataFrame with those columns.
 *
 * @param records an array, iterable or async iterable of records (plain objects).
 * @throws ValidationError for malformed columns, MissingDependencyError without danfojs-node,
 *   InvalidMethodError with `strict: true`.
 * @example
 * const df = await toDataFrame(records, { columns: ["formula", "lattice.a"] });
 * df.print();
 */
export async function toDataFrame(
  records: Iterable<unknown> | AsyncIterable<unknown>,
  options: ToDataFrameOptions = {},
): Promise<DataFrame> {
  return recordsToFrame(records, planColumns(options.columns, options), options);
}

/** {@link toDataFrame} with its columns already planned. */
export async function recordsToFrame(
  records: Iterable<unknown> | AsyncIterable<unknown>,
  plan: ColumnPlan,
  options: TableOptions,
): Promise<DataFrame> {
  loadDanfo(); // before reading a stream that may be slow or single-use
  const builder = new ColumnBuilder(plan, options);
  if (Array.isArray(records)) builder.addPage(records);
  else for await (const record of records) builder.add(record);
  return finishFrame(builder, options.onWarning);
}
