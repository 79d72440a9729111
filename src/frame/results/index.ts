// The results view's entry points, loaded on first use by `client.results`.
import type { Client } from "../../client/client";
import { ColumnBuilder } from "../table/column-builder";
import { frameFromColumns, loadDanfo } from "../dataframe/danfo";
import type { DataFrame } from "../dataframe/dataframe";
import { reportWarnings } from "../table/warnings";
import { writeRows, type ExportResult, type ExportTarget } from "../export/export";
import { checkParquetOptions, writeParquet } from "../export/parquet";
import {
  flatPlan,
  planResults,
  type ResultsCsvOptions,
  type ResultsFrameOptions,
  type ResultsParquetOptions,
} from "./results-plan";
import { resultPages } from "./results-rows";

export { planResults, RESULT_COLUMNS } from "./results-plan";
export type {
  ResultsFrameOptions,
  ResultsCsvOptions,
  ResultsNdjsonOptions,
  ResultsParquetOptions,
} from "./results-plan";

/** The results table as a DataFrame (see `ResultsView.toDataFrame`). */
export async function resultsFrame(client: Client, options: ResultsFrameOptions): Promise<DataFrame> {
  const plan = planResults(options, "toDataFrame");
  loadDanfo(); // fail before any request when danfojs-node is missing
  const read = resultPages(client, plan, options);
  // The rows' own reader gives no empty-column warnings (see flatPlan); the material columns' reader does.
  const builder = new ColumnBuilder(flatPlan(plan.names));
  let pages = 0;
  for await (const page of read.pages) {
    builder.addPage(page);
    options.onProgress?.({ pages: ++pages, items: builder.rows });
  }
  const built = builder.finish();
  reportWarnings(read.warnings(), options.onWarning);
  return frameFromColumns({ ...built, warnings: read.warnings() });
}

const METHODS = { csv: "exportCsv", ndjson: "exportNdjson", parquet: "exportParquet" } as const;

/** Writes the results table to a file or stream as CSV, NDJSON or Parquet. */
export async function exportResults(
  client: Client,
  target: ExportTarget,
  format: "csv" | "ndjson" | "parquet",
  options: ResultsParquetOptions & ResultsCsvOptions,
): Promise<ExportResult> {
  const plan = planResults(options, METHODS[format]);
  const columns = flatPlan(plan.names);
  const checked = format === "parquet" ? checkParquetOptions(columns, options) : undefined;
  // The schemas' types first, so a column of nulls (no direct gaps) is still a DOUBLE; the caller's win.
  const parquet = checked && { ...checked, types: { ...plan.types, ...checked.types } };
  const read = resultPages(client, plan, options);
  const writerOptions = { ...options, strict: false };
  const result = parquet
    ? await writeParquet(read.pages, target, columns, writerOptions, parquet)
    : await writeRows(read.pages, target, format as "csv" | "ndjson", columns, writerOptions);
  const warnings = read.warnings();
  reportWarnings(warnings, options.onWarning);
  return { ...result, warnings };
}
