// Parquet export: typed columns written as row groups while pages stream, through
// hyparquet-writer (pure JavaScript, MIT; loaded on first use). Why this writer: README,
// "Parquet and Arrow".
import type { Writable } from "node:stream";
import { openAtomicFile } from "./atomic-file";
import { planColumns, type ColumnPlan } from "./column-spec";
import { checkColumnTypes, decideTypes, toTyped, type ColumnType, type TypedCell } from "./column-types";
import { Sink, type ExportOptions, type ExportResult, type ExportTarget, type PageSource } from "./export";
import { recordShapeError } from "./record-shape";
import { RowReader, type FrameWarning } from "./row-reader";
import { reportWarnings } from "./warnings";
import { ResumableFile } from "./resumable";
import { checkWriterInstalled, CODECS, type EncoderSetup, type ParquetCompression, type SavedParquetWriter } from "./parquet-encoder";
import { threadEncoder, warmWorker, workerAvailable, workerEncoder, type GroupEncoder } from "./parquet-pool";
import { EmptyColumnError, OutputError, ValidationError } from "../errors";

export type { ParquetCompression } from "./parquet-encoder";

/** Options of `exportParquet`. */
export interface ParquetExportOptions extends ExportOptions {
  /**
   * Page compression. Snappy (the Parquet default that Spark, DuckDB and pandas write) costs
   * little time; gzip makes smaller files for ~2x the write time (README, "Parquet and Arrow").
   * @default "snappy"
   */
  compression?: ParquetCompression;
  /**
   * Rows per row group: what the writer holds in memory at once, and what a reader skips by.
   * The first group also decides the type of columns whose type is not known in advance.
   * @default 20000
   */
  rowGroupSize?: number;
  /**
   * Column types, by column name, for columns the platform's schema does not type and whose
   * first rows could mislead (e.g. numbers first, text later): `{ "tags.0": "string" }`.
   * @default inferred: numbers -> double, booleans -> boolean, anything else -> string
   */
  types?: Readonly<Record<string, ColumnType>>;
  /**
   * Where row groups are encoded: `"auto"` uses the worker thread once a first row group is full
   * (when the compiled worker is there), `"thread"` never, `"worker"` always (tests compare them).
   * @internal
   * @default "auto"
   */
  encodeIn?: "auto" | "thread" | "worker";
}

const DEFAULT_ROW_GROUP = 20_000;

/** Checks the Parquet-only options once, at the public entry. */
export function checkParquetOptions(plan: ColumnPlan, options: ParquetExportOptions): ResolvedParquet {
  const compression = options.compression ?? "snappy";
  if (!(compression in CODECS)) {
    throw new ValidationError("compression", `compression must be "snappy", "gzip" or "none"; got ${JSON.stringify(compression)}.`);
  }
  const rowGroupSize = options.rowGroupSize ?? DEFAULT_ROW_GROUP;
  if (!Number.isInteger(rowGroupSize) || rowGroupSize < 1 || rowGroupSize > 10_000_000) {
    throw new ValidationError("rowGroupSize", `rowGroupSize must be a whole number from 1 to 10000000; got ${String(rowGroupSize)}.`);
  }
  return { compression, rowGroupSize, types: checkColumnTypes(plan, options.types) };
}

/** Parquet options after checking. */
export interface ResolvedParquet {
  readonly compression: ParquetCompression;
  readonly rowGroupSize: number;
  readonly types: Readonly<Record<string, ColumnType>>;
}

/**
 * Writes pages of records as one Parquet file, a row group at a time: memory holds one row
 * group, whatever the collection's size. The target appears only when the footer is written.
 */
export async function writeParquet(
  pages: PageSource,
  target: ExportTarget | ResumableFile,
  plan: ColumnPlan,
  options: ParquetExportOptions,
  resolved: ResolvedParquet = checkParquetOptions(plan, options),
): Promise<ExportResult> {
  checkWriterInstalled();
  const resumable = target instanceof ResumableFile ? target : undefined;
  const file = resumable ?? (typeof target === "string" ? await openAtomicFile(target, { force: options.force }) : undefined);
  const stream: Writable = file ? file.stream : (target as Writable);
  const sink = new Sink(stream, file?.path);
  const resumed = resumable?.resumed;
  sink.bytes = resumed?.bytes ?? 0;
  // A resumed run reads only the rest of the table: what the earlier runs filled is in their state.
  const reader = new RowReader(plan, options, resumed ? { rows: resumed.items, filled: resumed.filled } : undefined);
  const encodeIn = options.encodeIn ?? "auto";

  const width = plan.names.length;
  let types: ColumnType[] | undefined;
  let encoder: GroupEncoder | undefined;
  // The row group being filled, column by column (no row objects), and each row's _id for errors.
  let columns: unknown[][] = plan.names.map(() => []);
  let ids: unknown[] = [];
  let filled = 0;
  let items = resumed?.items ?? 0;
  let pageCount = resumed?.pages ?? 0;
  // Rows in the row groups written so far: what a resumed run keeps.
  let grouped = items;
  // The row group being encoded while the next one fills: its bytes are written, and the progress
  // checkpointed, before the next group is handed over, so at most one group is in flight.
  let inFlight: Promise<void> | undefined;
  // An export that reaches a quarter of a row group will most likely fill one: the worker starts then.
  const warmAt = Math.max(1, resolved.rowGroupSize >> 2);
  let releaseWarm: (() => void) | undefined;

  const start = (fullGroup: boolean): GroupEncoder => {
    const saved = resumed?.writer as SavedParquetWriter | undefined;
    types = saved ? saved.types : decideTypes(plan, columns, resolved.types);
    const setup: EncoderSetup = { names: reader.names, types, compression: resolved.compression, ...(saved ? { resumed: { writer: saved, bytes: resumed!.bytes } } : {}) };
    // Starting the worker costs more than it saves on an export of less than one row group.
    const useWorker = encodeIn === "worker" || (encodeIn === "auto" && fullGroup && workerAvailable());
    return useWorker ? workerEncoder(setup) : threadEncoder(setup);
  };
  const settle = async (): Promise<void> => {
    const previous = inFlight;
    inFlight = undefined;
    await previous;
  };
  const writeGroup = async (): Promise<void> => {
    encoder ??= start(filled === resolved.rowGroupSize);
    const rows = filled;
    const cursor = ids[rows - 1];
    const group = columns;
    // Types are checked here, in the export's thread, so a ColumnTypeError names the record.
    for (let c = 0; c < width; c++) {
      const data = group[c];
      for (let r = 0; r < rows; r++) data[r] = toTyped(data[r], types![c], plan.names[c], ids[r]);
    }
    columns = plan.names.map(() => []);
    ids = [];
    filled = 0;
    await settle();
    if (rows === 0) return;
    const checkpoint = resumable ? { cursor: String(cursor), items: grouped + rows, pages: pageCount, filled: [...reader.filledColumns] } : undefined;
    grouped += rows;
    const encoded = encoder.group(group as TypedCell[][], resumable !== undefined);
    inFlight = encoded.then(async ({ bytes, state }) => {
      await sink.write(bytes);
      if (checkpoint) await resumable!.checkpoint({ ...checkpoint, bytes: sink.bytes, writer: state }, true);
    });
    // Its failure is met at the next settle(); until then the walk goes on.
    inFlight.catch(() => undefined);
  };

  let warnings: FrameWarning[] = [];
  try {
    const row = new Array<unknown>(width);
    for await (const page of pages) {
      for (let i = 0; i < page.length; i++) {
        const record = page[i];
        try {
          reader.read(record, row);
        } catch (error) {
          throw recordShapeError(error, record);
        }
        for (let c = 0; c < width; c++) columns[c].push(row[c]);
        ids.push((record as { _id?: unknown } | null)?._id);
        if (++filled === warmAt && !encoder && !releaseWarm && encodeIn === "auto" && warmAt < resolved.rowGroupSize && workerAvailable()) releaseWarm = warmWorker();
        if (filled === resolved.rowGroupSize) await writeGroup();
      }
      items += page.length;
      pageCount++;
      options.onProgress?.({ items, pages: pageCount, bytes: sink.bytes });
    }
    await writeGroup();
    await settle();
    warnings = reader.finish();
    await sink.write(await encoder!.finish());
    sink.check();
    if (file) await file.commit();
  } catch (error) {
    // An interrupted resumable export keeps the rows it has read: the group being encoded is
    // written, and the rows read since become one more (short) row group, unless the output failed.
    if (!resumable) encoder?.close();
    else if (!(error instanceof OutputError)) {
      const kept = settle().then(() => (filled > 0 ? writeGroup().then(settle) : undefined));
      await kept.catch(() => undefined);
    }
    // Strict refusals are about the data: a second run would meet them again, so nothing is kept.
    if (error instanceof EmptyColumnError && resumable) await resumable.discard();
    else await file?.abort();
    throw error;
  } finally {
    encoder?.close();
    releaseWarm?.();
    sink.release();
  }
  reportWarnings(warnings, options.onWarning);
  return { items, pages: pageCount, bytes: sink.bytes, ...(file ? { path: file.path } : {}), warnings, ...(resumed ? { resumedFrom: resumed.items } : {}) };
}

/**
 * Writes pages of records (as `collection.pages()` yields them, or arrays) as one Parquet file;
 * see {@link writeParquet}. `client.materials.exportParquet` does the walk for you.
 * @example await exportParquet(client.materials.pages(), "materials.parquet", { columns: ["formula", "lattice.a"] });
 */
export async function exportParquet(pages: PageSource, target: ExportTarget, options: ParquetExportOptions = {}): Promise<ExportResult> {
  const plan = planColumns(options.columns, options);
  return writeParquet(pages, target, plan, options, checkParquetOptions(plan, options));
}
