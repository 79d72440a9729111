// hyparquet-writer as matframe uses it, through its package entry only: the part of its public API
// restated (its types are ESM-only), its loading on first use, and the writer state a resumed
// export saves and restores. The one adapter between matframe and the writer: its contract test
// is test/frame/parquet-writer.test.ts.
import { MatframeError, MissingDependencyError } from "../../errors";
import type { ColumnType } from "../table/column-types";
import { fromTaggedJson, toTaggedJson } from "./resume/tagged-json";

/** hyparquet-writer's `Writer` (its types/src/types.d.ts), as far as matframe uses it. */
export interface ByteWriterLike {
  buffer: ArrayBuffer;
  /** Bytes written since the file began: the offsets the footer records. */
  offset: number;
  /** Bytes held in `buffer`, not yet flushed. */
  index: number;
  flush?(): void | Promise<void>;
  finish(): void | Promise<void>;
}

/** One column of a row group, as `ParquetWriter.write` takes it (hyparquet-writer's `ColumnSource`). */
export interface ColumnSource {
  name: string;
  data: unknown[];
  type?: string;
  nullable?: boolean;
  statistics?: boolean;
}

/** hyparquet-writer's `ParquetWriter`, with the public fields its footer is made from. */
export interface ParquetWriterLike {
  row_groups: { columns: object[] }[];
  num_rows: bigint;
  pendingIndexes: { chunk: object; columnIndex?: unknown; offsetIndex?: unknown }[];
  write(options: { columnData: ColumnSource[]; rowGroupSize?: number; pageSize?: number }): void | Promise<void>;
  finish(): void | Promise<void>;
}

/** The names of hyparquet-writer's entry that matframe uses. */
export interface HyparquetWriter {
  ByteWriter: new (initialSize?: number) => ByteWriterLike;
  ParquetWriter: new (options: {
    writer: ByteWriterLike;
    schema: unknown[];
    codec?: string;
    compressors?: Record<string, (input: Uint8Array) => Uint8Array>;
    createdBy?: string;
  }) => ParquetWriterLike;
  schemaFromColumnData(options: {
    columnData: { name: string; data: unknown[]; type?: string; nullable?: boolean }[];
  }): unknown[];
}

let writerModule: HyparquetWriter | undefined;

export function loadWriter(): HyparquetWriter {
  if (writerModule) return writerModule;
  try {
    writerModule = require("hyparquet-writer") as HyparquetWriter;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (code === "MODULE_NOT_FOUND" && String(message).includes("'hyparquet-writer")) {
      throw new MissingDependencyError("hyparquet-writer", "A Parquet export", { cause: error });
    }
    // Installed, but a broken copy: installing it again is the remedy, not installing it.
    throw new MatframeError(
      `A Parquet export could not load hyparquet-writer (${String(code ?? (error as Error).name)}: ${String(message)}). ` +
        `Reinstall it: run \`npm install hyparquet-writer@${HYPARQUET_WRITER_VERSION}\`.`,
      { cause: error },
    );
  }
  return writerModule;
}

/** The hyparquet-writer version package.json names and the contract test checks. */
const HYPARQUET_WRITER_VERSION = "0.17.0";

// A resumed Parquet export continues the file after its last complete row group: the writer
// gets back the row group metadata and page indexes that its footer will list. hyparquet-writer
// declares them as public fields of ParquetWriter (row_groups, num_rows, pendingIndexes: its
// types/parquet-writer.d.ts) and has no constructor option that starts from existing row groups;
// the contract test pins that finish() writes its footer from them.
export interface SavedParquetWriter {
  readonly types: ColumnType[];
  readonly rowGroups: unknown;
  readonly numRows: unknown;
  readonly indexes: unknown;
}

export function snapshotWriter(writer: ParquetWriterLike): Omit<SavedParquetWriter, "types"> {
  return {
    rowGroups: toTaggedJson(writer.row_groups),
    numRows: toTaggedJson(writer.num_rows),
    indexes: toTaggedJson(writer.pendingIndexes.map(({ columnIndex, offsetIndex }) => ({ columnIndex, offsetIndex }))),
  };
}

/**
 * Gives a new writer the row groups of the file's first `bytes` bytes. The writer must be new:
 * its constructor wrote the magic number, which the file already starts with.
 */
export function restoreWriter(
  writer: ParquetWriterLike,
  out: ByteWriterLike,
  saved: SavedParquetWriter,
  bytes: number,
): void {
  if (!Array.isArray(writer.row_groups) || !Array.isArray(writer.pendingIndexes) || out.offset !== 4) {
    throw new MatframeError(
      "this version of hyparquet-writer keeps its row groups elsewhere; restart the export without --resume",
    );
  }
  out.index = 0;
  out.offset = bytes;
  writer.row_groups = fromTaggedJson(saved.rowGroups) as ParquetWriterLike["row_groups"];
  writer.num_rows = fromTaggedJson(saved.numRows) as bigint;
  const chunks = writer.row_groups.flatMap((group) => group.columns);
  const indexes = fromTaggedJson(saved.indexes) as { columnIndex?: unknown; offsetIndex?: unknown }[];
  // hyparquet-writer keeps one pending index per column chunk.
  if (indexes.length !== chunks.length) {
    throw new MatframeError(
      "the saved Parquet state has not one page index per column chunk; restart the export without --resume",
    );
  }
  // The footer's chunks and the indexes' chunks are the same objects (finish() sets the indexes' offsets on them).
  writer.pendingIndexes = chunks.map((chunk, i) => ({ ...indexes[i], chunk }));
}
