// Parquet export: typed columns written as row groups while pages stream, through
// hyparquet-writer's public ParquetWriter (pure JavaScript, MIT; loaded on first use). Why this
// writer: docs/exports.md, "Parquet and Arrow".
import { gzipSync } from "node:zlib";
import type { ColumnPlan } from "../table/column-spec";
import {
  checkColumnTypes,
  decideTypes,
  toTyped,
  typesWithoutData,
  type ColumnType,
  type TypedCell,
} from "../table/column-types";
import { columnTypeRecord, type ColumnTypeRecord } from "../table/column-type-registry";
import {
  planSource,
  Sink,
  type ExportOptions,
  type ExportResult,
  type ExportTarget,
  type PageSource,
  type TableSource,
} from "./export";
import { recordShapeError } from "../table/record-shape";
import { RowReader, type FrameWarning } from "../table/row-reader";
import { reportWarnings } from "../table/warnings";
import type { ResumableFile } from "./resume/resumable-file";
import { openTableOutput } from "./table-output";
import { nativeSnappy } from "./snappy";
import { EmptyColumnError, OutputError, ResumeError, ValidationError } from "../../errors";
import type { RowBudget } from "./dataset/row-budget";
import {
  loadWriter,
  restoreWriter,
  snapshotWriter,
  type ParquetWriterLike,
  type SavedParquetWriter,
} from "./parquet-writer";

/** The compressions a Parquet export can use. */
export type ParquetCompression = "snappy" | "gzip" | "none";

/** Options of `exportParquet`. */
export interface ExportParquetOptions extends ExportOptions {
  /**
   * Page compression. Snappy (the Parquet default that Spark, DuckDB and pandas write) costs
   * little time; gzip makes smaller files for ~2x the write time (docs/exports.md, "Parquet and Arrow").
   * @default "snappy"
   */
  compression?: ParquetCompression;
  /**
   * Rows per row group: what the writer holds in memory at once, what a reader skips by, and
   * what DuckDB, Polars and Spark read in parallel (one row group per thread). The default is
   * DuckDB's own (122,880 rows), within the 100,000 to 1,000,000 rows DuckDB recommends. The
   * first group also decides the type of columns whose type is not known in advance.
   * @default 122880
   */
  rowGroupSize?: number;
  /**
   * Also close a row group once its values reach this many bytes before compression (text counted
   * as its UTF-16 length plus 4, any other value as 8), whichever of the two limits comes first:
   * a bound on the writer's memory for wide or text-heavy columns.
   * @default undefined: rows only
   */
  rowGroupBytes?: number;
  /**
   * Column types, by column name, for columns the platform's schema does not type and whose
   * first rows could mislead (e.g. numbers first, text later): `{ "tags.0": "string" }`.
   * @default inferred: numbers -> double, booleans -> boolean, anything else -> string
   */
  types?: Readonly<Record<string, ColumnType>>;
}

// DuckDB's default row group size (its ROW_GROUP_SIZE, 122,880 rows): what it writes and reads best.
const DEFAULT_ROW_GROUP = 122_880;
const GZIP_LEVEL = 6;
// On the JavaScript thread: compressing a row group's pages on libuv's threads instead (native
// Snappy's and zlib's asynchronous calls) was measured no faster, with 20 to 60 MiB more peak RSS.
// Without native Snappy, hyparquet-writer compresses SNAPPY pages with its built-in codec.
function compressors(): Record<string, (input: Uint8Array) => Uint8Array> {
  const snappy = nativeSnappy();
  return {
    ...(snappy ? { SNAPPY: snappy } : {}),
    GZIP: (input) => gzipSync(input, { level: GZIP_LEVEL }),
  };
}
const CODECS: Record<ParquetCompression, string> = { snappy: "SNAPPY", gzip: "GZIP", none: "UNCOMPRESSED" };
// hyparquet-writer's default page size: a new page once a chunk's values reach 1 MiB.
const PAGE_SIZE = 1 << 20;

/** Checks the Parquet-only options once, at the public entry. */
export function checkParquetOptions(plan: ColumnPlan, options: ExportParquetOptions): ResolvedParquet {
  const compression = options.compression ?? "snappy";
  if (!(compression in CODECS)) {
    throw new ValidationError(
      "compression",
      `compression must be "snappy", "gzip" or "none"; got ${JSON.stringify(compression)}.`,
    );
  }
  const rowGroupSize = options.rowGroupSize ?? DEFAULT_ROW_GROUP;
  if (!Number.isInteger(rowGroupSize) || rowGroupSize < 1 || rowGroupSize > 10_000_000) {
    throw new ValidationError(
      "rowGroupSize",
      `rowGroupSize must be a whole number from 1 to 10000000; got ${String(rowGroupSize)}.`,
    );
  }
  const rowGroupBytes = options.rowGroupBytes;
  if (
    rowGroupBytes !== undefined &&
    (!Number.isInteger(rowGroupBytes) || rowGroupBytes < 1024 || rowGroupBytes > 2 ** 31)
  ) {
    throw new ValidationError(
      "rowGroupBytes",
      `rowGroupBytes must be a whole number of bytes from 1024 to 2147483648; got ${String(rowGroupBytes)}.`,
    );
  }
  return {
    compression,
    rowGroupSize,
    ...(rowGroupBytes !== undefined ? { rowGroupBytes } : {}),
    types: checkColumnTypes(plan, options.types),
  };
}

/** One column as writeParquet fills it. */
interface ParquetColumn {
  /** The planned column's name, for messages. */
  readonly name: string;
  /** Its name in the file. */
  readonly key: string;
  readonly type: ColumnTypeRecord;
  /** The `typeof` of a raw value written as it is; "" when every value goes through toTyped. */
  readonly plain: string;
  /** The row group's typed cells so far. */
  values: TypedCell[];
}

/** Parquet options after checking. */
export interface ResolvedParquet {
  readonly compression: ParquetCompression;
  readonly rowGroupSize: number;
  readonly rowGroupBytes?: number;
  /** Shared with the other writers of a dataset: closes a row group early when they hold too many rows. */
  readonly budget?: RowBudget;
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
  options: ExportParquetOptions,
  resolved: ResolvedParquet = checkParquetOptions(plan, options),
): Promise<ExportResult> {
  const hp = loadWriter();
  const output = await openTableOutput(target, options.force, options.onWarning);
  const sink = new Sink(output.stream, output.path);
  const resumed = output.resumed;
  sink.bytes = resumed?.bytes ?? 0;
  // A resumed run reads only the rest of the table: what the earlier runs filled is in their state.
  const reader = new RowReader(plan, options, resumed ? { rows: resumed.items, filled: resumed.filled } : undefined);
  const out = new hp.ByteWriter(8 << 20);
  const codec = CODECS[resolved.compression];
  // hyparquet-writer calls flush() after each row group and awaits it before encoding the next.
  out.flush = async () => {
    const bytes = new Uint8Array(out.buffer, 0, out.index).slice();
    out.index = 0;
    await sink.write(bytes);
  };
  out.finish = () => out.flush!();

  const width = plan.names.length;
  const saved = resumed?.writer as SavedParquetWriter | undefined;
  let types: ColumnType[] | undefined;
  // Each column as the writer fills it, from when the types are decided: its name in messages
  // and in the file, its type's record, the JavaScript type a cell has when it needs no
  // conversion ("" when every cell goes through toTyped) and the row group's values so far, as
  // typed cells (no row objects).
  let columns: ParquetColumn[] = [];
  let writer: ParquetWriterLike | undefined;
  // Until the types are decided (by the first row group, when some column's type is not known),
  // the raw values of the row group and each row's _id.
  let raw: { columns: unknown[][]; ids: unknown[] } | undefined;
  let filled = 0;
  // The row group's value bytes, counted only when rowGroupBytes is set.
  let groupBytes = 0;
  const byteLimit = resolved.rowGroupBytes;
  const budget = resolved.budget;
  let lastId: unknown;
  let items = resumed?.items ?? 0;
  let pageCount = resumed?.pages ?? 0;
  // The page being read: its rows so far, and its length. A row group that ends with a page's
  // last row counts that page as read in its saved state; one that ends inside a page does not,
  // since a resumed run asks for the rest of it as a page of its own.
  let pageRows = 0;
  let pageLength = 0;
  // Rows in the row groups written so far: what a resumed run keeps.
  let grouped = items;
  const cells = new Array<TypedCell>(width);

  /** Adds one row; a value that does not fit its column throws before any of the row is added. */
  const addRow = (row: readonly unknown[], id: unknown): void => {
    let fits = true;
    for (let c = 0; c < columns.length; c++) {
      const value = row[c];
      if (typeof value !== columns[c]!.plain && value !== undefined && value !== null) fits = false;
    }
    if (fits) {
      for (let c = 0; c < columns.length; c++) {
        const value = row[c];
        columns[c]!.values.push(value === undefined ? null : (value as TypedCell));
      }
      return;
    }
    // Text columns take numbers, booleans and objects as text; anything else that does not fit throws.
    for (let c = 0; c < columns.length; c++) {
      const { type, name } = columns[c]!;
      cells[c] = toTyped(row[c], type, name, id);
    }
    for (let c = 0; c < columns.length; c++) columns[c]!.values.push(cells[c] ?? null);
  };

  const start = (decided: ColumnType[]): void => {
    types = decided;
    // One type, one name and one key per planned column.
    columns = plan.names.map((name, c) => {
      const decidedType = decided[c];
      // Only a saved state can type fewer columns than the plan has (decideTypes types each).
      if (decidedType === undefined) {
        throw new ResumeError(
          `The saved progress of ${output.path ?? "the export"} types ${decided.length} columns; this export writes ${width}.`,
          output.path ?? "",
        );
      }
      const type = columnTypeRecord(decidedType);
      // Types whose raw values are not written as they are (an int32 must be whole, an int64
      // becomes a bigint) go through toTyped.
      const plain = type.asIs ? type.cell : "";
      // The reader names each planned column (with its unit, when asked).
      return { name, key: reader.names[c] ?? name, type, plain, values: [] };
    });
    const columnData = columns.map(({ key, type }) => ({
      name: key,
      data: [],
      type: type.parquet.basic,
      nullable: true,
    }));
    writer = new hp.ParquetWriter({
      writer: out,
      schema: hp.schemaFromColumnData({ columnData }),
      codec,
      compressors: compressors(),
      createdBy: "matframe (hyparquet-writer)",
    });
    if (saved) restoreWriter(writer, out, saved, resumed!.bytes);
    if (raw) {
      const { columns: held, ids } = raw;
      raw = undefined;
      const row = new Array<unknown>(width);
      for (let r = 0; r < ids.length; r++) {
        for (let c = 0; c < held.length; c++) row[c] = held[c]![r];
        addRow(row, ids[r]);
      }
    }
  };
  // Types known without data: the writer starts at the first page (once its units are read).
  const known = saved ? saved.types : typesWithoutData(plan, resolved.types);
  if (!known) raw = { columns: plan.names.map(() => []), ids: [] };

  const writeGroup = async (): Promise<void> => {
    if (!writer) start(known ?? decideTypes(plan, raw!.columns, resolved.types));
    const rows = filled;
    filled = 0;
    groupBytes = 0;
    if (budget) budget.held -= rows;
    if (rows === 0) return;
    const columnData = columns.map((column) => {
      const data = column.values;
      column.values = [];
      return { name: column.key, data, statistics: column.type.parquet.statistics };
    });
    // One row group; write() calls out.flush() after it and returns the flush's promise.
    await writer!.write({
      columnData,
      rowGroupSize: rows,
      pageSize: PAGE_SIZE,
    });
    grouped += rows;
    if (output.keepsProgress) {
      const state: SavedParquetWriter = { types: types!, ...snapshotWriter(writer!) };
      await output.checkpoint(
        {
          cursor: String(lastId),
          items: grouped,
          pages: pageCount + (pageRows > 0 && pageRows === pageLength ? 1 : 0),
          bytes: sink.bytes,
          writer: state,
          filled: [...reader.filledColumns],
        },
        true,
      );
    }
  };

  let warnings: FrameWarning[] = [];
  if (budget) budget.writers++;
  try {
    const row = new Array<unknown>(width);
    for await (const page of pages) {
      pageLength = page.length;
      if (!writer && known) {
        reader.observeUnits(page);
        start(known);
      }
      for (let i = 0; i < page.length; i++) {
        const record = page[i];
        try {
          reader.read(record, row);
        } catch (error) {
          throw recordShapeError(error, record);
        }
        const id = (record as { _id?: unknown } | null)?._id;
        if (raw) {
          for (let c = 0; c < raw.columns.length; c++) raw.columns[c]!.push(row[c]);
          raw.ids.push(id);
        } else addRow(row, id);
        lastId = id;
        pageRows = i + 1;
        if (byteLimit !== undefined) {
          for (let c = 0; c < width; c++) groupBytes += typeof row[c] === "string" ? (row[c] as string).length + 4 : 8;
        }
        if (budget) budget.held++;
        if (
          ++filled === resolved.rowGroupSize ||
          (byteLimit !== undefined && groupBytes >= byteLimit) ||
          budget?.over(filled)
        )
          await writeGroup();
      }
      items += page.length;
      pageCount++;
      pageRows = 0;
      options.onProgress?.({ items, pages: pageCount, bytes: sink.bytes + out.index });
    }
    await writeGroup();
    warnings = reader.finish();
    await writer!.finish();
    sink.check();
    await output.commit();
  } catch (error) {
    // An interrupted resumable export keeps the rows it has read: they become one more (short)
    // row group, unless the output itself failed.
    if (output.keepsProgress && filled > 0 && !(error instanceof OutputError))
      await writeGroup().catch(() => undefined);
    // Strict refusals are about the data: a second run would meet them again, so nothing is kept.
    if (error instanceof EmptyColumnError) await output.discard();
    else await output.abort();
    throw error;
  } finally {
    sink.release();
    if (budget) {
      budget.writers--;
      budget.held -= filled;
    }
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
 * Writes pages of records (as `collection.pages()` yields them, or arrays) as one Parquet file;
 * or a DataFrame (see {@link exportCsv}). `client.materials.exportParquet` does the walk for you.
 * @example await exportParquet(client.materials.pages(), "materials.parquet", { columns: ["formula", "lattice.a"] });
 */
export async function exportParquet(
  source: TableSource,
  target: ExportTarget,
  options: ExportParquetOptions = {},
): Promise<ExportResult> {
  const { pages, plan, types } = planSource(source, options);
  const resolved = checkParquetOptions(plan, options);
  return writeParquet(
    pages,
    target,
    plan,
    options,
    types ? { ...resolved, types: { ...types, ...resolved.types } } : resolved,
  );
}
