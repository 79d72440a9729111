import type { Writable } from "node:stream";
import { planColumns, type ColumnPlan } from "../table/column-spec";
import { RowReader, type FrameWarning } from "../table/row-reader";
import type { ResumableFile } from "./resume/resumable-file";
import { openTableOutput } from "./table-output";
import { csvLine } from "./csv";
import { ndjsonLineFormatter } from "./ndjson";
import { reportWarnings } from "../table/warnings";
import type { TableOptions } from "../dataframe/to-dataframe";
import { EmptyColumnError, OutputError } from "../../errors";
import { recordShapeError } from "../table/record-shape";
import type { Progress } from "../../client/config/options";
import type { DataFrame } from "../dataframe/dataframe";
import type { ColumnType } from "../table/column-types";
import { frameSource, isDataFrame } from "./frame-source";

/** Where an export goes: a file path (written atomically) or a writable stream (left open). */
export type ExportTarget = string | Writable;

/** Pages of records, as `collection.pages()` yields them; arrays of pages work too. */
export type PageSource = AsyncIterable<readonly unknown[]> | Iterable<readonly unknown[]>;

/**
 * What a file export reads: pages of records, or a DataFrame (say, one filtered after
 * `toDataFrame`), whose columns are written as they are: by name (`lattice.a` is one column),
 * with their dtypes and nulls, and no default column added. `columns` then picks frame columns
 * by exact name.
 */
export type TableSource = PageSource | DataFrame;

/** The pages and column plan of a source: a DataFrame's own columns, or the planned `columns` of records. */
export function planSource(
  source: TableSource,
  options: { columns?: readonly string[]; units?: boolean },
): { pages: PageSource; plan: ColumnPlan; types?: Readonly<Record<string, ColumnType>> } {
  if (isDataFrame(source)) return frameSource(source, options.columns);
  return { pages: source, plan: planColumns(options.columns, options) };
}

/** What every export takes (`exportCsv`, `exportNdjson`, `exportParquet`): the table, `force`, `onProgress`. */
export interface ExportOptions extends TableOptions {
  /**
   * Overwrite an existing file at the target path.
   * @default false
   */
  force?: boolean;
  /** Called after each page is written, e.g. to draw a progress bar; `bytes` is always set. */
  onProgress?: (progress: Progress) => void;
}

/** Options of `exportNdjson`: those of every export; NDJSON has no settings of its own. */
export type ExportNdjsonOptions = ExportOptions;

/** Options of `exportCsv`. */
export interface ExportCsvOptions extends ExportOptions {
  /**
   * Write a header line of column names first.
   * @default true
   */
  header?: boolean;
  /**
   * Prefix text cells that start with `=`, `+`, `-`, `@`, tab or CR with `'`, so a spreadsheet
   * shows them instead of running them as formulas (OWASP CSV injection). Numbers are never
   * changed. Turn it off for pipelines that need the text exactly as stored.
   * @default true
   */
  escapeFormulas?: boolean;
}

/** What an export wrote. */
export interface ExportResult {
  /** Records written. */
  readonly items: number;
  /** Pages received and written. */
  readonly pages: number;
  /** Bytes written (UTF-8). */
  readonly bytes: number;
  /** The absolute path written, when the target was a path. */
  readonly path?: string;
  /** Data warnings, also passed to `onWarning` (or emitted). */
  readonly warnings: readonly FrameWarning[];
  /** With `resume`: records kept from earlier runs (included in `items`); absent when nothing was resumed. */
  readonly resumedFrom?: number;
}

interface Format {
  header(names: readonly string[]): string;
  line(names: readonly string[]): (cells: readonly unknown[]) => string;
}

const CSV = (header: boolean, escapeFormulas: boolean): Format => ({
  header: (names) => (header ? `${csvLine(names, false)}\n` : ""),
  line: () => (cells) => csvLine(cells, escapeFormulas),
});

const NDJSON: Format = { header: () => "", line: ndjsonLineFormatter };

/**
 * Writes pages of records as CSV (RFC 4180 quoting, LF line endings, header first), one page
 * per write as pages arrive, waiting for the stream to drain: memory stays flat however large
 * the collection is. A DataFrame is written with its own columns (see {@link TableSource}).
 *
 * @example
 * const { items } = await exportCsv(client.materials.pages({ pageSize: 500 }), "materials.csv", {
 *   columns: ["formula", "lattice.a"],
 * });
 */
export async function exportCsv(
  source: TableSource,
  target: ExportTarget,
  options: ExportCsvOptions = {},
): Promise<ExportResult> {
  const { pages, plan } = planSource(source, options);
  return writeRows(pages, target, "csv", plan, options);
}

/** Writes pages of records (or a DataFrame) as NDJSON, one object per line keyed by column name; see {@link exportCsv}. */
export async function exportNdjson(
  source: TableSource,
  target: ExportTarget,
  options: ExportNdjsonOptions = {},
): Promise<ExportResult> {
  const { pages, plan } = planSource(source, options);
  return writeRows(pages, target, "ndjson", plan, options);
}

/** The row formats a table export can write. */
export type RowFormat = "csv" | "ndjson";

/** Writes pages as rows of `format`, with the columns already planned (validated once, by the caller). */
export async function writeRows(
  pages: PageSource,
  target: ExportTarget | ResumableFile,
  rowFormat: RowFormat,
  plan: ColumnPlan,
  options: ExportCsvOptions,
): Promise<ExportResult> {
  const format = rowFormat === "csv" ? CSV(options.header ?? true, options.escapeFormulas ?? true) : NDJSON;
  const output = await openTableOutput(target, options.force, options.onWarning);
  const sink = new Sink(output.stream, output.path);
  const resumed = output.resumed;
  sink.bytes = resumed?.bytes ?? 0;
  // A resumed run reads only the rest of the table: what the earlier runs filled is in their state.
  const reader = new RowReader(plan, options, resumed ? { rows: resumed.items, filled: resumed.filled } : undefined);
  let items = resumed?.items ?? 0;
  let pageCount = resumed?.pages ?? 0;
  // The header goes out with the first page, so a request that fails at once leaves stdout empty;
  // names are settled there too (with `units`, from the first page's records).
  let header = resumed ? "" : format.header(plan.names);
  let line: ((cells: readonly unknown[]) => string) | undefined;
  let warnings: FrameWarning[] = [];
  let held: string[] | undefined = options.strict && output.path === undefined ? [] : undefined;
  let heldBytes = 0;
  try {
    const row = new Array<unknown>(plan.names.length);
    for await (const page of pages) {
      if (!line) {
        reader.observeUnits(page);
        line = format.line(reader.names);
        if (!resumed) header = format.header(reader.names);
      }
      let text = header;
      header = "";
      for (let i = 0; i < page.length; i++) {
        try {
          reader.read(page[i], row);
          text += `${line(row)}\n`;
        } catch (error) {
          throw recordShapeError(error, page[i]);
        }
      }
      if (held) {
        // strict to a stream: rows wait until every column has had a value (or the end), since
        // what reaches a pipe cannot be taken back.
        held.push(text);
        heldBytes += text.length;
        if (!reader.hasEmptyColumn) {
          await sink.write(held.join(""));
          held = undefined;
        } else if (heldBytes > MAX_HELD_CHARS) {
          const empty = reader.warnings().find((w) => w.code === "EMPTY_COLUMN");
          throw new EmptyColumnError(empty?.path ?? "?", reader.rows, empty?.suggestion);
        }
      } else {
        await sink.write(text);
      }
      items += page.length;
      pageCount++;
      if (output.keepsProgress && page.length > 0)
        await output.checkpoint({
          cursor: lastId(page),
          items,
          pages: pageCount,
          bytes: sink.bytes,
          filled: [...reader.filledColumns],
        });
      options.onProgress?.({ items, pages: pageCount, bytes: sink.bytes });
    }
    warnings = reader.finish();
    if (held) await sink.write(held.join(""));
    await sink.write(header);
    sink.check();
    await output.commit();
  } catch (error) {
    // Strict refusals are about the data: a second run would meet them again, so nothing is kept.
    if (error instanceof EmptyColumnError) await output.discard();
    else await output.abort();
    throw error;
  } finally {
    sink.release();
  }
  reportWarnings(warnings, options.onWarning);
  return {
    items,
    pages: pageCount,
    bytes: sink.bytes,
    ...(output.path !== undefined ? { path: output.path } : {}),
    warnings,
    ...(resumed ? { resumedFrom: resumed.items } : {}),
  };
}

/**
 * Most text a strict export to a stream holds back while a column is still empty (64 Mi
 * characters): a column empty that far into the table is refused there, with nothing written.
 */
const MAX_HELD_CHARS = 64 * 2 ** 20;

/** The `_id` of a page's last record: a resumable export's cursor. */
export function lastId(page: readonly unknown[]): string {
  return String((page[page.length - 1] as { _id?: unknown })._id);
}

/** Writes with backpressure and turns a stream's asynchronous 'error' into a rejection. */
export class Sink {
  bytes = 0;
  private failure: unknown;
  private readonly onError = (error: unknown): void => {
    this.failure ??= error;
  };

  constructor(
    private readonly stream: Writable,
    private readonly target: string | undefined,
  ) {
    stream.on("error", this.onError);
  }

  async write(chunk: string | Uint8Array): Promise<void> {
    if (chunk.length === 0) return;
    this.check();
    this.bytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
    if (this.stream.write(chunk)) return;
    await new Promise<void>((resolve, reject) => {
      const done = (error?: unknown): void => {
        this.stream.off("drain", onDrain);
        this.stream.off("error", done);
        this.stream.off("close", onClose);
        if (error) reject(this.wrap(error));
        else resolve();
      };
      const onDrain = (): void => done();
      const onClose = (): void => done(this.closedEarly());
      this.stream.on("drain", onDrain);
      this.stream.on("error", done);
      this.stream.on("close", onClose);
    });
  }

  /** Throws the stream's error, if it had one since the last write. */
  check(): void {
    if (this.failure !== undefined) throw this.wrap(this.failure);
    if (this.stream.destroyed || this.stream.writableEnded) {
      throw this.closedEarly();
    }
  }

  release(): void {
    this.stream.off("error", this.onError);
  }

  private closedEarly(): OutputError {
    return new OutputError(
      `Cannot write ${this.target ?? "the output stream"}: the stream was closed before the export finished.`,
      this.target,
    );
  }

  private wrap(error: unknown): OutputError {
    if (error instanceof OutputError) return error;
    const where = this.target ?? "the output stream";
    const reason =
      (error as NodeJS.ErrnoException)?.code === "EPIPE"
        ? "the reader closed the pipe"
        : ((error as Error)?.message ?? String(error));
    return new OutputError(`Cannot write ${where}: ${reason}.`, this.target, { cause: error });
  }
}
