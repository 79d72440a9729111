// The encoding half of a Parquet export: hyparquet-writer's writer, the row groups it appends and
// the footer, with no stream and no walk. writeParquet (src/frame/parquet.ts) runs it on its own
// thread or hands it to a worker (src/frame/parquet-worker.ts); both run this same code, so the
// bytes are the same either way.
import { gzipSync } from "node:zlib";
import type { ColumnType, TypedCell } from "./column-types";
import { writeChunk, type ChunkKit, type RleWriter, type WrittenChunk } from "./parquet-chunk";
import { fromTaggedJson, toTaggedJson } from "./resumable";
import { snappyCompress } from "./snappy";
import { MissingDependencyError } from "../errors";

/** The compressions a Parquet export can use. */
export type ParquetCompression = "snappy" | "gzip" | "none";

const GZIP_LEVEL = 6;
const COMPRESSORS: Record<string, (input: Uint8Array) => Uint8Array> = {
  SNAPPY: snappyCompress,
  GZIP: (input) => gzipSync(input, { level: GZIP_LEVEL }),
};
export const CODECS: Record<ParquetCompression, string> = { snappy: "SNAPPY", gzip: "GZIP", none: "UNCOMPRESSED" };
const PHYSICAL: Record<ColumnType, string> = { double: "DOUBLE", int32: "INT32", int64: "INT64", boolean: "BOOLEAN", string: "STRING" };
// hyparquet-writer's default page size: a new page once a chunk's values reach 1 MiB.
const PAGE_SIZE = 1 << 20;

// The part of hyparquet-writer's API used here (its types are ESM-only, so they are restated).
interface ByteWriterLike extends RleWriter {
  finish(): void;
}
interface HyparquetWriter extends ChunkKit {
  ByteWriter: new (initialSize?: number) => ByteWriterLike;
  ParquetWriter: new (options: {
    writer: ByteWriterLike;
    schema: unknown[];
    codec?: string;
    compressors?: Record<string, (input: Uint8Array) => Uint8Array>;
    createdBy?: string;
  }) => {
    finish(): void;
  };
  schemaFromColumnData(options: { columnData: { name: string; data: unknown[]; type?: string; nullable?: boolean }[] }): unknown[];
  /** Writes one column chunk of any type (src/column.js); used for the types writeChunk does not take. */
  writeColumn(options: { writer: ByteWriterLike; column: object; pageData: object }): WrittenChunk;
}

let writerModule: HyparquetWriter | undefined;

function loadWriter(): HyparquetWriter {
  if (writerModule) return writerModule;
  try {
    // The row group is written column by column here (see writeRowGroup), with hyparquet-writer's
    // own page header, RLE and column writers, which it exports as modules of src/.
    writerModule = {
      ...require("hyparquet-writer"),
      writeColumn: require("hyparquet-writer/src/column.js").writeColumn,
      writePageHeader: require("hyparquet-writer/src/datapage.js").writePageHeader,
      writeRleBitPackedHybrid: require("hyparquet-writer/src/encoding.js").writeRleBitPackedHybrid,
    } as HyparquetWriter;
  } catch (error) {
    throw new MissingDependencyError("hyparquet-writer", "A Parquet export", { cause: error });
  }
  return writerModule;
}

/** Throws MissingDependencyError when hyparquet-writer is not installed, without loading it. */
export function checkWriterInstalled(): void {
  if (writerModule) return;
  try {
    require.resolve("hyparquet-writer");
  } catch (error) {
    throw new MissingDependencyError("hyparquet-writer", "A Parquet export", { cause: error });
  }
}

// A resumed Parquet export continues the file after its last complete row group: the writer gets
// back the row group metadata and page indexes that its footer will list (hyparquet-writer keeps
// them as the public fields row_groups, num_rows and pendingIndexes).
/** The writer's state after a row group, as a resumable export keeps it (tagged JSON). */
export interface SavedParquetWriter {
  readonly types: ColumnType[];
  readonly rowGroups: unknown;
  readonly numRows: unknown;
  readonly indexes: unknown;
}

/** What an encoder starts from: the table's columns and, for a resumed file, its saved state. */
export interface EncoderSetup {
  readonly names: readonly string[];
  readonly types: readonly ColumnType[];
  readonly compression: ParquetCompression;
  /** The state of a resumed file and the bytes it already holds. */
  readonly resumed?: { readonly writer: SavedParquetWriter; readonly bytes: number };
}

interface WriterInternals {
  schema: object[];
  row_groups: { columns: object[] }[];
  num_rows: bigint;
  pendingIndexes: { chunk: object; columnIndex?: unknown; offsetIndex?: unknown }[];
}

/**
 * One Parquet file's writer without its output: each call returns the bytes to append to the file.
 * Memory holds one row group's pages at a time.
 */
export class ParquetEncoder {
  private readonly hp = loadWriter();
  private readonly out: ByteWriterLike;
  private readonly writer: WriterInternals & { finish(): void };
  private readonly codec: string;

  constructor(private readonly setup: EncoderSetup) {
    const { hp } = this;
    this.out = new hp.ByteWriter(8 << 20);
    // The footer is taken with take(), as the row groups are.
    this.out.finish = () => undefined;
    this.codec = CODECS[setup.compression];
    const columnData = setup.names.map((name, c) => ({ name, data: [], type: PHYSICAL[setup.types[c]], nullable: true }));
    this.writer = new hp.ParquetWriter({
      writer: this.out,
      schema: hp.schemaFromColumnData({ columnData }),
      codec: this.codec,
      compressors: COMPRESSORS,
      createdBy: "matframe (hyparquet-writer)",
    }) as unknown as WriterInternals & { finish(): void };
    if (setup.resumed) this.restore(setup.resumed.writer, setup.resumed.bytes);
  }

  /** Encodes one row group (typed columns of equal length, at least one row); returns its bytes (and the magic number before the first). */
  group(columns: readonly TypedCell[][]): Uint8Array {
    this.writeRowGroup(columns);
    return this.take();
  }

  /** The footer's bytes: the last of the file. */
  finish(): Uint8Array {
    this.writer.finish();
    return this.take();
  }

  /** The state a resumed run restores (see SavedParquetWriter). */
  snapshot(): SavedParquetWriter {
    const w = this.writer;
    return {
      types: [...this.setup.types],
      rowGroups: toTaggedJson(w.row_groups),
      numRows: toTaggedJson(w.num_rows),
      indexes: toTaggedJson(w.pendingIndexes.map(({ columnIndex, offsetIndex }) => ({ columnIndex, offsetIndex }))),
    };
  }

  private take(): Uint8Array {
    const bytes = new Uint8Array(this.out.buffer.slice(0, this.out.index));
    this.out.index = 0;
    return bytes;
  }

  /**
   * Appends one row group, column by column, and records it in the writer's footer state as
   * hyparquet-writer's own `write` does (src/parquet-writer.js). Text and double columns go
   * through writeChunk; the other types through hyparquet-writer's writeColumn.
   */
  private writeRowGroup(columns: readonly TypedCell[][]): void {
    const { hp, out, codec, writer: w } = this;
    const { names, types } = this.setup;
    const groupStart = out.offset;
    const rows = columns[0].length;
    const chunks: object[] = [];
    let totalBytes = 0n;
    for (let c = 0; c < names.length; c++) {
      const type = types[c];
      // Min/max of text (ids, names) costs a third of the encoding and helps no reader skip a group.
      const statistics = type !== "string";
      let written: WrittenChunk;
      if (type === "string" || type === "double") {
        written = writeChunk(hp, out, type, columns[c] as (string | number | null)[], { name: names[c], codec, compress: COMPRESSORS[codec], pageSize: PAGE_SIZE, statistics });
      } else {
        const values = columns[c];
        const definitionLevels = values.map((value) => (value === null ? 0 : 1));
        const element = w.schema[c + 1];
        const column = { columnName: names[c], element, schemaPath: [w.schema[0], element], codec, compressors: COMPRESSORS, stats: statistics, pageSize: PAGE_SIZE, columnIndex: false, offsetIndex: true };
        written = hp.writeColumn({ writer: out, column, pageData: { values, definitionLevels, repetitionLevels: [], maxDefinitionLevel: 1 } });
      }
      chunks.push(written.chunk);
      w.pendingIndexes.push(written as WriterInternals["pendingIndexes"][number]);
      totalBytes += (written.chunk.meta_data.total_uncompressed_size as bigint | undefined) ?? 0n;
    }
    w.num_rows += BigInt(rows);
    w.row_groups.push({ columns: chunks, total_byte_size: totalBytes, num_rows: BigInt(rows), total_compressed_size: BigInt(out.offset - groupStart) } as WriterInternals["row_groups"][number]);
  }

  private restore(saved: SavedParquetWriter, bytes: number): void {
    const w = this.writer;
    if (!Array.isArray(w.row_groups) || !Array.isArray(w.pendingIndexes)) {
      throw new Error("this version of hyparquet-writer keeps its row groups elsewhere; restart the export");
    }
    // The constructor wrote the magic number again: the file already starts with it.
    this.out.index = 0;
    this.out.offset = bytes;
    w.row_groups = fromTaggedJson(saved.rowGroups) as WriterInternals["row_groups"];
    w.num_rows = fromTaggedJson(saved.numRows) as bigint;
    const chunks = w.row_groups.flatMap((group) => group.columns);
    const indexes = fromTaggedJson(saved.indexes) as { columnIndex?: unknown; offsetIndex?: unknown }[];
    // The footer's chunks and the indexes' chunks are the same objects (writeIndexes sets offsets on them).
    w.pendingIndexes = indexes.map((index, i) => ({ ...index, chunk: chunks[i] }));
  }
}
