import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { exportParquet } from "../../src";
import { snappyBackend, snappyCompress } from "../../src/frame/export/snappy";
import { seededRandom } from "../support/seeded-random";
import {
  ChunkBuilder,
  encodeHybrid,
  rawPages,
  writeEncodedChunk,
  type ChunkKit,
  type RleWriter,
} from "../../src/frame/export/parquet-chunk";

// Snappy (native and hyparquet-writer's JavaScript port) and matframe's text/double column chunks, checked by code they do not
// contain: hyparquet's Snappy decoder and Parquet reader, hyparquet-writer's own compressor (for
// size) and column writer (the bytes must be theirs, given the same compressor), and DuckDB.

interface Hyparquet {
  snappyUncompress(input: Uint8Array, output: Uint8Array): void;
  asyncBufferFromFile(file: string): Promise<unknown>;
  parquetReadObjects(options: { file: unknown }): Promise<Record<string, unknown>[]>;
  parquetMetadataAsync(
    file: unknown,
  ): Promise<{ row_groups: { columns: { meta_data?: { encodings: string[] }; offset_index_offset?: bigint }[] }[] }>;
}
let hyparquet: Hyparquet;
let writerSnappy: (input: Uint8Array) => Uint8Array;
let dir: string;
let duck: DuckDBConnection;

beforeAll(async () => {
  hyparquet = (await import("hyparquet")) as unknown as Hyparquet;
  writerSnappy = (
    (await import("hyparquet-writer/src/snappy.js")) as { snappyCompress: (input: Uint8Array) => Uint8Array }
  ).snappyCompress;
  dir = mkdtempSync(join(tmpdir(), "matframe-parquet-chunk-"));
  duck = await (await DuckDBInstance.create(":memory:")).connect();
});

afterAll(() => {
  duck?.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

describe("snappyCompress", () => {
  const text = Buffer.from(
    Array.from({ length: 40_000 }, (_, i) => `Si2, silicon FCC, synthetic +${(i % 40) / 4}% strain #${i}\n`).join(""),
  );
  const random = seededRandom(0x5eed);
  const inputs: [string, Uint8Array][] = [
    ["empty", new Uint8Array(0)],
    ["one byte", new Uint8Array([7])],
    ["shorter than the match margin", Buffer.from("abcdabcdabcd")],
    ["repetitive text of 2 MB (copies, offsets beyond 64 KiB)", text],
    ["one byte repeated (copies longer than 64)", new Uint8Array(300_000).fill(9)],
    [`random bytes of seed ${random.seed} (literals longer than 65536)`, random.bytes(200_000)],
    [
      `random ids of seed ${random.seed}`,
      Buffer.from(Array.from({ length: 20_000 }, () => random.bytes(12).toString("base64url")).join("")),
    ],
  ];
  it("is the native library here (the optional dependency installs on this platform)", () => {
    expect(snappyBackend()).toBe("native");
  });
  it.each(inputs)("%s: hyparquet's decoder gives the input back, from either backend", (_, input) => {
    for (const compressed of [snappyCompress(input, "native"), snappyCompress(input, "js")]) {
      const output = new Uint8Array(input.length);
      hyparquet.snappyUncompress(compressed, output);
      expect(Buffer.from(output).equals(Buffer.from(input))).toBe(true);
      expect(compressed.length).toBeLessThanOrEqual(32 + input.length + input.length / 6);
    }
  });
  it.each(inputs)("%s: about as small as hyparquet-writer's compressor makes it", (_, input) => {
    // The native library, like Google's reference, compresses 64 KiB blocks on their own;
    // hyparquet-writer's copy also matches across them, up to 13% smaller on long repetitive text.
    for (const backend of ["native", "js"] as const) {
      expect(snappyCompress(input, backend).length).toBeLessThanOrEqual(
        Math.ceil(writerSnappy(input).length * 1.15) + 8,
      );
    }
  });
  it("shrinks repetitive text as Snappy should", () => {
    expect(snappyCompress(text).length).toBeLessThan(text.length / 4);
  });
});

describe("text and double column chunks", () => {
  // Columns of every kind writeChunk decides between: unique text long enough for several pages,
  // repeated text (a dictionary), doubles with NaN, -0 and nulls, repeated doubles, non-ASCII text,
  // and a column that is null in every row.
  const rows = 30_000;
  const kinds = ["Si", "GaAs", "Al2O3", "Fe₂O₃ ⚛", null];
  const records = Array.from({ length: rows }, (_, i) => ({
    _id: `id${String(i).padStart(6, "0")}`,
    name: `${kinds[i % 4]} material number ${i}, a name long enough to fill more than one page: ${"x".repeat(i % 50)}`,
    kind: kinds[i % 5],
    a: i % 7 === 0 ? null : i % 11 === 0 ? NaN : i % 13 === 0 ? -0 : i * 0.125,
    b: [1.5, 2.25, -3, null][i % 4],
    empty: null,
  }));
  const columns = ["_id", "name", "kind", "a", "b", "empty"];
  const types = { kind: "string", empty: "string", a: "double", b: "double" } as const;

  it("writes the bytes hyparquet-writer's own writer writes for the same columns", async () => {
    const file = join(dir, "chunks.parquet");
    await exportParquet([records.slice(0, 12_345), records.slice(12_345)], file, {
      columns,
      types,
      rowGroupSize: 25_000,
      onWarning: () => {},
    });
    const columnData = columns.map((name) => ({
      name,
      data: records.slice(0, 25_000).map((record) => record[name as keyof typeof record]),
      type: name === "a" || name === "b" ? "DOUBLE" : "STRING",
      nullable: true,
      statistics: name === "a" || name === "b",
    }));
    const rest = columnData.map((column) => ({
      ...column,
      data: records.slice(25_000).map((record) => record[column.name as keyof typeof record]),
    }));
    // Two writes, two row groups of 25,000 and 5,000 rows, as the export's rowGroupSize makes.
    const { ByteWriter, ParquetWriter, schemaFromColumnData } = (await import("hyparquet-writer")) as never as {
      ByteWriter: new () => { getBuffer(): ArrayBuffer };
      ParquetWriter: new (options: object) => { write(options: object): void; finish(): void };
      schemaFromColumnData(options: object): unknown[];
    };
    const out = new ByteWriter();
    // Given the same Snappy (the native library splits blocks differently from hyparquet-writer's port).
    const theirs = new ParquetWriter({
      writer: out,
      schema: schemaFromColumnData({ columnData }),
      codec: "SNAPPY",
      compressors: { SNAPPY: snappyCompress },
      createdBy: "matframe (hyparquet-writer)",
    });
    theirs.write({ columnData, rowGroupSize: 25_000 });
    theirs.write({ columnData: rest, rowGroupSize: 25_000 });
    theirs.finish();
    expect(Buffer.from(readFileSync(file)).equals(Buffer.from(out.getBuffer()))).toBe(true);
  });

  it("reads back in hyparquet and DuckDB as the records' values, nulls as nulls, over several pages", async () => {
    const file = join(dir, "read.parquet");
    await exportParquet([records], file, { columns, types, rowGroupSize: 30_000, onWarning: () => {} });
    const buffer = await hyparquet.asyncBufferFromFile(file);
    const metadata = await hyparquet.parquetMetadataAsync(buffer);
    const [, nameChunk, kindChunk] = metadata.row_groups[0].columns;
    expect(nameChunk.offset_index_offset).toBeDefined(); // more than one page, so an offset index
    expect(kindChunk.meta_data?.encodings).toContain("RLE_DICTIONARY");
    const read = await hyparquet.parquetReadObjects({ file: buffer });
    expect(read).toHaveLength(rows);
    const sameDouble = (got: unknown, want: number | null) => (want === null ? got === null : Object.is(got, want));
    for (let i = 0; i < rows; i++) {
      const [got, want] = [read[i], records[i]];
      if (
        got._id !== want._id ||
        got.name !== want.name ||
        got.kind !== want.kind ||
        got.empty !== null ||
        !sameDouble(got.a, want.a) ||
        !sameDouble(got.b, want.b)
      ) {
        expect({ row: i, ...got }).toEqual({ row: i, ...want });
      }
    }
    const reader = await duck.runAndReadAll(
      `SELECT count(*)::INTEGER, count(a)::INTEGER, count(kind)::INTEGER, count(empty)::INTEGER, sum(length(name))::INTEGER, max(kind) FROM '${file}'`,
    );
    const names = records.reduce((sum, record) => sum + [...record.name].length, 0);
    expect(reader.getRows()[0]).toEqual([
      rows,
      records.filter((r) => r.a !== null).length,
      records.filter((r) => r.kind !== null).length,
      0,
      names,
      "Si",
    ]);
  });
});

describe("ChunkBuilder against hyparquet-writer's writeColumn", () => {
  // The chunk writer of the export, fed one value at a time, and hyparquet-writer's column writer
  // given the whole column: the same bytes and metadata, uncompressed (compression comes after
  // both), at page sizes that cut pages at every value up to one page for everything.
  interface Kit extends ChunkKit {
    schemaFromColumnData(options: object): { type?: string }[];
    writeColumn(options: object): { chunk: object; offsetIndex?: object };
    writeRleBitPackedHybrid(writer: RleWriter, values: ArrayLike<number>, bitWidth: number): number;
  }
  let kit: Kit;
  beforeAll(async () => {
    kit = {
      ...((await import("hyparquet-writer")) as object),
      writeColumn: ((await import("hyparquet-writer/src/column.js")) as unknown as { writeColumn: Kit["writeColumn"] })
        .writeColumn,
      writePageHeader: (
        (await import("hyparquet-writer/src/datapage.js")) as unknown as { writePageHeader: Kit["writePageHeader"] }
      ).writePageHeader,
      writeRleBitPackedHybrid: (
        (await import("hyparquet-writer/src/encoding.js")) as unknown as {
          writeRleBitPackedHybrid: Kit["writeRleBitPackedHybrid"];
        }
      ).writeRleBitPackedHybrid,
    } as Kit;
  });

  const repeat = <T>(n: number, f: (i: number) => T) => Array.from({ length: n }, (_, i) => f(i));
  const columns: [string, "string" | "double", (string | number | null)[]][] = [
    [
      "unique text with nulls",
      "string",
      repeat(3000, (i) => (i % 9 === 0 ? null : `material ${i} ${"é⚛".repeat(i % 5)}`)),
    ],
    ["repeated text (a dictionary)", "string", repeat(3000, (i) => ["Si", "GaAs", "Fe₂O₃", "🧪"][i % 4])],
    ["repeated text, nulls first", "string", repeat(2500, (i) => (i < 1200 ? null : ["a", "b"][i % 2]))],
    ["fewer values than the sample, unique", "string", repeat(300, (i) => `id-${i}`)],
    ["fewer values than the sample, repeated", "string", repeat(300, (i) => `kind-${i % 3}`)],
    ["a value longer than the page", "string", ["x".repeat(5000), null, "y", "z".repeat(3000), null, null, "w"]],
    ["nulls only", "string", repeat(50, () => null)],
    [
      "unique doubles with NaN and -0",
      "double",
      repeat(3000, (i) => (i % 7 === 0 ? null : i % 11 === 0 ? NaN : i % 13 === 0 ? -0 : i * 0.37)),
    ],
    ["repeated doubles with NaN", "double", repeat(3000, (i) => [1.5, -2.25, NaN, 0, null][i % 5])],
    ["one double", "double", [42]],
    ["doubles nulls only", "double", [null, null, null]],
  ];
  const pageSizes = [1, 4, 5, 64, 4096, 1 << 20];

  it.each(columns)("%s: the bytes and metadata writeColumn writes, at every page size", (name, type, values) => {
    const [, element] = kit.schemaFromColumnData({
      columnData: [{ name, data: [], type: type === "string" ? "STRING" : "DOUBLE", nullable: true }],
    });
    const root = { name: "root", num_children: 1 };
    for (const pageSize of pageSizes) {
      const statistics = type === "double";
      const theirs = new kit.ByteWriter(1024);
      const expected = kit.writeColumn({
        writer: theirs,
        column: {
          columnName: name,
          element,
          schemaPath: [root, element],
          codec: "UNCOMPRESSED",
          compressors: {},
          stats: statistics,
          pageSize,
          columnIndex: false,
          offsetIndex: true,
        },
        pageData: {
          values,
          definitionLevels: values.map((v) => (v === null ? 0 : 1)),
          repetitionLevels: [],
          maxDefinitionLevel: 1,
        },
      });
      const builder = new ChunkBuilder(type, { name, codec: "UNCOMPRESSED", pageSize, statistics });
      // Twice: the second chunk shows the builder starts clean for the next row group.
      for (const round of [1, 2]) {
        for (const value of values) builder.add(value);
        const ours = new kit.ByteWriter(1024);
        const chunk = builder.finish();
        const written = writeEncodedChunk(kit, ours, chunk, rawPages(chunk));
        expect({ pageSize, round, bytes: Buffer.from(ours.getBytes()).equals(Buffer.from(theirs.getBytes())) }).toEqual(
          { pageSize, round, bytes: true },
        );
        expect(written.chunk).toEqual(expected.chunk);
        expect(written.offsetIndex).toEqual(expected.offsetIndex);
      }
    }
  });

  it("encodes RLE/bit-packed hybrids as writeRleBitPackedHybrid does, for every bit width", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 300; trial++) {
      const bitWidth = trial % 25;
      const n = Math.floor(random() * 300);
      // Runs of every length (RLE from 8 on), noise, and lengths that leave a group part-filled.
      const values = new Int32Array(n);
      for (let i = 0; i < n; ) {
        const run = random() < 0.3 ? 1 + Math.floor(random() * 20) : 1;
        const value = bitWidth === 0 ? 0 : Math.floor(random() * 2 ** bitWidth);
        for (let j = 0; j < run && i < n; j++) values[i++] = value;
      }
      const theirs = new kit.ByteWriter(16);
      theirs.appendUint8(bitWidth);
      kit.writeRleBitPackedHybrid(theirs, values, bitWidth);
      expect({ trial, bytes: Buffer.from(encodeHybrid(values, bitWidth, bitWidth)).toString("hex") }).toEqual({
        trial,
        bytes: Buffer.from(theirs.getBytes()).toString("hex"),
      });
    }
  });

  it("decides against a dictionary from the first 1,000 values, where writeColumn samples the whole chunk", () => {
    // Unique for 1,000 values, then one value repeated: writeColumn's spread sample sees mostly
    // repeats and keeps a dictionary; the builder has already chosen PLAIN. Both read back the same.
    const values = repeat(20_000, (i) => (i < 1000 ? `unique ${i}` : "same"));
    const builder = new ChunkBuilder("string", {
      name: "c",
      codec: "UNCOMPRESSED",
      pageSize: 1 << 20,
      statistics: false,
    });
    for (const value of values) builder.add(value);
    const chunk = builder.finish();
    expect(chunk.dictionary).toBeUndefined();
    expect(
      chunk.pages.reduce(
        (sum, page) => sum + (page.header.data_page_header_v2 as { num_values: number }).num_values,
        0,
      ),
    ).toBe(values.length);
  });
});
