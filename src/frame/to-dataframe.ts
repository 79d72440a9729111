import type { DataFrame as DanfoDataFrame } from "danfojs-node";
import { planColumns } from "./column-spec";
import { ColumnBuilder, type BuiltColumns } from "./column-builder";
import type { ReadOptions } from "./row-reader";
import { reportWarnings, type WarningHandler } from "./warnings";
import { MissingDependencyError } from "../errors";

/** A danfo DataFrame (danfojs-node, an optional peer dependency). */
export type DataFrame = DanfoDataFrame;

type Danfo = typeof import("danfojs-node");

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

let danfo: Danfo | undefined;

/**
 * Loads danfojs-node on first use only: its import alone costs 1-1.6 s and ~90 MiB (issue 4),
 * which a client that never asks for a DataFrame should not pay.
 * @throws MissingDependencyError when danfojs-node is not installed.
 */
export function loadDanfo(): Danfo {
  if (danfo) return danfo;
  try {
    danfo = require("danfojs-node") as Danfo;
  } catch (error) {
    const missing =
      (error as { code?: unknown }).code === "MODULE_NOT_FOUND" && String((error as Error).message).includes("'danfojs-node'");
    if (missing) {
      throw new MissingDependencyError("danfojs-node", "A DataFrame", {
        cause: error,
        // danfojs-node 1.2.0 does not install as published (an xlsx tarball from a CDN, a native
        // TensorFlow download); the README's DataFrames section has the overrides that fix it.
        hint: 'Version 1.2.0 also needs "overrides" in your package.json: see "Installing danfojs-node" in matframe\'s README.',
      });
    }
    throw error;
  }
  return danfo;
}

/**
 * Builds the DataFrame once, from column arrays with explicit names and dtypes (danfo maps row
 * objects by key position, so a row with reordered or missing keys would land in the wrong
 * columns), in danfo's low-memory mode, which skips keeping a second, transposed copy.
 */
export function frameFromColumns(built: BuiltColumns): DataFrame {
  const { DataFrame } = loadDanfo();
  const options = { columns: [...built.names], dtypes: [...built.dtypes], config: { lowMemoryMode: true } };
  // danfo cannot size an index from a dict of empty arrays; an empty array with columns works.
  return built.rows === 0 ? new DataFrame([], options) : new DataFrame(built.data, options);
}

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
  const plan = planColumns(options.columns);
  loadDanfo(); // before reading a stream that may be slow or single-use
  const builder = new ColumnBuilder(plan, options);
  if (Array.isArray(records)) builder.addPage(records);
  else for await (const record of records) builder.add(record);
  return finishFrame(builder, options.onWarning);
}
