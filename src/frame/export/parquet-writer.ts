// hyparquet-writer as matframe uses it: the part of its API restated (its types are ESM-only), its
// loading on first use, and the writer state a resumed export saves and restores. package.json
// pins the version, since the internals (src/column.js, src/datapage.js, the footer state) move.
import { MatframeError, MissingDependencyError } from "../../errors";
import type { ColumnType } from "../table/column-types";
import type { ChunkKit, RleWriter, WrittenChunk } from "./parquet-chunk";
import { fromTaggedJson, toTaggedJson } from "./resume/tagged-json";

// The part of hyparquet-writer's API used here (its types are ESM-only, so they are restated).
export interface ByteWriterLike extends RleWriter {
  flush?(): void | Promise<void>;
  finish(): void | Promise<void>;
}
export interface HyparquetWriter extends ChunkKit {
  ByteWriter: new (initialSize?: number) => ByteWriterLike;
  ParquetWriter: new (options: {
    writer: ByteWriterLike;
    schema: unknown[];
    codec?: string;
    compressors?: Record<string, (input: Uint8Array) => Uint8Array>;
    createdBy?: string;
  }) => {
    finish(): void | Promise<void>;
  };
  schemaFromColumnData(options: {
    columnData: { name: string; data: unknown[]; type?: string; nullable?: boolean }[];
  }): unknown[];
  /** Writes one column chunk of any type (src/column.js); used for the types writeChunk does not take. */
  writeColumn(options: { writer: ByteWriterLike; column: object; pageData: object }): WrittenChunk;
}

let writerModule: HyparquetWriter | undefined;

export function loadWriter(): HyparquetWriter {
  if (writerModule) return writerModule;
  try {
    // The row group is written column by column here (see writeRowGroup), with hyparquet-writer's
    // own page header and column writers, which it exports as modules of src/.
    writerModule = {
      ...require("hyparquet-writer"),
      writeColumn: require("hyparquet-writer/src/column.js").writeColumn,
      writePageHeader: require("hyparquet-writer/src/datapage.js").writePageHeader,
    } as HyparquetWriter;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (code === "MODULE_NOT_FOUND" && String(message).includes("'hyparquet-writer")) {
      throw new MissingDependencyError("hyparquet-writer", "A Parquet export", { cause: error });
    }
    // Installed, but another version (its internals moved) or a broken copy: installing it is not the remedy.
    throw new MatframeError(
      `A Parquet export could not load hyparquet-writer (${String(code ?? (error as Error).name)}: ${String(message)}). ` +
        `matframe writes through its internal modules and needs version ${HYPARQUET_WRITER_VERSION} exactly: run \`npm install hyparquet-writer@${HYPARQUET_WRITER_VERSION}\`.`,
      { cause: error },
    );
  }
  return writerModule;
}

/** The hyparquet-writer whose internals (`src/column.js`, `src/datapage.js`, its footer state) this file uses; package.json pins it. */
const HYPARQUET_WRITER_VERSION = "0.17.0";

// A resumed Parquet export continues the file after its last complete row group: the writer gets
// back the row group metadata and page indexes that its footer will list (hyparquet-writer keeps
// them as the public fields row_groups, num_rows and pendingIndexes).
export interface SavedParquetWriter {
  readonly types: ColumnType[];
  readonly rowGroups: unknown;
  readonly numRows: unknown;
  readonly indexes: unknown;
}

export interface WriterInternals {
  row_groups: { columns: object[] }[];
  num_rows: bigint;
  pendingIndexes: { chunk: object; columnIndex?: unknown; offsetIndex?: unknown }[];
}

export function snapshotWriter(writer: object): Omit<SavedParquetWriter, "types"> {
  const w = writer as WriterInternals;
  return {
    rowGroups: toTaggedJson(w.row_groups),
    numRows: toTaggedJson(w.num_rows),
    indexes: toTaggedJson(w.pendingIndexes.map(({ columnIndex, offsetIndex }) => ({ columnIndex, offsetIndex }))),
  };
}

export function restoreWriter(writer: object, out: ByteWriterLike, saved: SavedParquetWriter, bytes: number): void {
  const w = writer as WriterInternals;
  if (!Array.isArray(w.row_groups) || !Array.isArray(w.pendingIndexes)) {
    throw new MatframeError("this version of hyparquet-writer keeps its row groups elsewhere; restart the export");
  }
  // The constructor wrote the magic number again: the file already starts with it.
  out.index = 0;
  out.offset = bytes;
  w.row_groups = fromTaggedJson(saved.rowGroups) as WriterInternals["row_groups"];
  w.num_rows = fromTaggedJson(saved.numRows) as bigint;
  const chunks = w.row_groups.flatMap((group) => group.columns);
  const indexes = fromTaggedJson(saved.indexes) as { columnIndex?: unknown; offsetIndex?: unknown }[];
  // The footer's chunks and the indexes' chunks are the same objects (writeIndexes sets offsets on them).
  w.pendingIndexes = indexes.map((index, i) => ({ ...index, chunk: chunks[i] }));
}
