import { Collection } from "../client/collection";
import type { IterateOptions } from "../client/options";
import type { Fields } from "../schemas";
import { planColumns } from "./column-spec";
import { ColumnBuilder } from "./column-builder";
import { exportCsv, exportNdjson, type CsvExportOptions, type ExportOptions, type ExportResult, type ExportTarget } from "./export";
import { finishFrame, loadDanfo, type DataFrame, type TableOptions } from "./to-dataframe";

/** Progress after each page of a table read. */
export interface FrameProgress {
  /** Records read so far. */
  readonly items: number;
  /** Pages read so far. */
  readonly pages: number;
}

/**
 * Which records to read and how: the iterate options of the client, except `fields` (derived
 * from `columns`) and `onPage` (see `onProgress`).
 */
export type FrameIterateOptions = Omit<IterateOptions, "fields" | "onPage">;

/** `collection.toDataFrame(options)`. */
export interface CollectionFrameOptions extends FrameIterateOptions, TableOptions {
  /** Called after each page is added to the table. */
  onProgress?: (progress: FrameProgress) => void;
}

/** `collection.exportCsv(target, options)`. */
export type CollectionCsvOptions = FrameIterateOptions & CsvExportOptions;

/** `collection.exportNdjson(target, options)`. */
export type CollectionNdjsonOptions = FrameIterateOptions & ExportOptions;

/**
 * A collection that also reads itself as a table: a danfo DataFrame, a CSV file or an NDJSON
 * file with the columns asked for. Only the fields those columns need cross the wire.
 */
export class FrameCollection extends Collection {
  /**
   * Every matching record as one row of a danfo DataFrame. Columns are filled while pages
   * stream and the frame is built once at the end; danfojs-node is loaded on first use.
   *
   * @example
   * const df = await client.materials.toDataFrame({
   *   query: { "lattice.type": "FCC" },
   *   columns: ["formula", "lattice.a", "derivedProperties.density"],
   * });
   */
  async toDataFrame(options: CollectionFrameOptions = {}): Promise<DataFrame> {
    const plan = planColumns(options.columns);
    loadDanfo(); // fail before downloading anything when danfojs-node is missing
    const builder = new ColumnBuilder(plan, options);
    let pages = 0;
    for await (const page of this.pages(iterateOptions(options, plan.fields))) {
      builder.addPage(page);
      pages++;
      options.onProgress?.({ items: builder.rows, pages });
    }
    return finishFrame(builder, options.onWarning);
  }

  /**
   * Writes every matching record as CSV to a file (atomically: a temporary file renamed on
   * success; an existing file needs `force`) or to a writable stream, page by page.
   *
   * @example
   * const { items, path } = await client.materials.exportCsv("materials.csv", { columns: ["formula", "lattice.a"] });
   */
  async exportCsv(target: ExportTarget, options: CollectionCsvOptions = {}): Promise<ExportResult> {
    const plan = planColumns(options.columns);
    return exportCsv(this.pages(iterateOptions(options, plan.fields)), target, options);
  }

  /**
   * Writes every matching record as NDJSON, one object per line keyed by column; otherwise as
   * {@link FrameCollection.exportCsv}.
   * @example await client.materials.exportNdjson(process.stdout, { columns: ["formula", "lattice"] });
   */
  async exportNdjson(target: ExportTarget, options: CollectionNdjsonOptions = {}): Promise<ExportResult> {
    const plan = planColumns(options.columns);
    return exportNdjson(this.pages(iterateOptions(options, plan.fields)), target, options);
  }
}

/** The client's iterate options, by name, so frame-only options never reach its validation. */
function iterateOptions(options: FrameIterateOptions, fields: Fields): IterateOptions {
  const { query, sort, pageSize, maxItems, paging, concurrency, signal, onDuplicate } = options;
  return { query, fields, sort, pageSize, maxItems, paging, concurrency, signal, onDuplicate };
}
