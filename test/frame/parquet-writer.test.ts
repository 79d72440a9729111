// Contract test of hyparquet-writer as matframe's adapter (src/frame/export/parquet-writer.ts)
// uses it: only its package entry, ParquetWriter flushing after each row group, and the public
// fields its footer is made from, which a resumed export hands to a new writer. A release that
// changes any of these fails here, not in a user's resumed export.
import { beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  loadWriter,
  restoreWriter,
  snapshotWriter,
  type ByteWriterLike,
  type HyparquetWriter,
  type SavedParquetWriter,
} from "../../src/frame/export/parquet-writer";

interface Hyparquet {
  parquetMetadata(buffer: ArrayBuffer): {
    num_rows: bigint;
    row_groups: { num_rows: bigint; columns: { offset_index_offset?: bigint }[] }[];
  };
  parquetReadObjects(options: { file: ArrayBuffer }): Promise<Record<string, unknown>[]>;
  readOffsetIndex(reader: unknown): { page_locations: { offset: bigint }[] };
}
let hp: HyparquetWriter;
let hyparquet: Hyparquet;

beforeAll(async () => {
  hp = loadWriter();
  hyparquet = (await import("hyparquet")) as unknown as Hyparquet;
});

/** A writer that collects what it flushes, as the export's file sink does. */
function collecting(initial: Uint8Array[] = []): { out: ByteWriterLike; chunks: Uint8Array[]; flushes: number[] } {
  const out = new hp.ByteWriter(1024);
  const chunks = [...initial];
  const flushes: number[] = [];
  out.flush = () => {
    chunks.push(new Uint8Array(out.buffer, 0, out.index).slice());
    flushes.push(out.offset);
    out.index = 0;
  };
  out.finish = () => out.flush!();
  return { out, chunks, flushes };
}

function bytesOf(chunks: Uint8Array[]): ArrayBuffer {
  const all = Buffer.concat(chunks);
  return all.buffer.slice(all.byteOffset, all.byteOffset + all.length) as ArrayBuffer;
}

const COLUMNS = [
  { name: "formula", type: "STRING", nullable: true },
  { name: "a", type: "DOUBLE", nullable: true },
  { name: "n", type: "INT64", nullable: true },
];

function group(from: number, rows: number) {
  const range = Array.from({ length: rows }, (_, i) => from + i);
  return [
    { name: "formula", data: range.map((i) => (i % 7 === 0 ? null : `Si${i}O${i % 3}`)) },
    { name: "a", data: range.map((i) => i / 4) },
    { name: "n", data: range.map((i) => BigInt(i)) },
  ];
}

function newWriter(out: ByteWriterLike) {
  return new hp.ParquetWriter({
    writer: out,
    schema: hp.schemaFromColumnData({ columnData: COLUMNS.map((c) => ({ ...c, data: [] })) }),
    codec: "SNAPPY",
  });
}

describe("hyparquet-writer through its public entry", () => {
  it("is the version package.json names, and its entry exports what matframe calls", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, "../../package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const installed = JSON.parse(
      readFileSync(join(__dirname, "../../node_modules/hyparquet-writer/package.json"), "utf8"),
    ) as { version: string };
    expect(pkg.dependencies["hyparquet-writer"]).toBe(installed.version);
    expect(typeof hp.ParquetWriter).toBe("function");
    expect(typeof hp.ByteWriter).toBe("function");
    expect(typeof hp.schemaFromColumnData).toBe("function");
  });

  it("writes each row group of write() and flushes after it, before the next is encoded", async () => {
    const { out, chunks, flushes } = collecting();
    const writer = newWriter(out);
    await writer.write({ columnData: group(0, 100), rowGroupSize: 100 });
    expect(flushes).toHaveLength(1);
    await writer.write({ columnData: group(100, 50), rowGroupSize: 50 });
    expect(flushes).toHaveLength(2);
    await writer.finish();
    const file = bytesOf(chunks);
    const meta = hyparquet.parquetMetadata(file);
    expect(meta.row_groups.map((g) => Number(g.num_rows))).toEqual([100, 50]);
    const rows = await hyparquet.parquetReadObjects({ file });
    expect(rows).toHaveLength(150);
    expect(rows[7]).toEqual({ formula: null, a: 7 / 4, n: 7n });
    expect(rows[149]).toEqual({ formula: "Si149O2", a: 149 / 4, n: 149n });
  });

  it("continues a file from the row groups of a snapshot: a new writer's footer lists old and new, with page indexes", async () => {
    // The first run: two row groups flushed, a snapshot after each (as the resume state keeps it), then killed.
    const first = collecting();
    const writer = newWriter(first.out);
    // Small pages, so that each chunk has several and an offset index (hyparquet-writer writes none for one page).
    await writer.write({ columnData: group(0, 120), rowGroupSize: 60, pageSize: 128 });
    const saved: SavedParquetWriter = { types: ["string", "double", "int64"], ...snapshotWriter(writer) };
    const bytes = first.flushes.at(-1)!;
    // A round trip through JSON, as the state file makes it.
    const restored = JSON.parse(JSON.stringify(saved)) as SavedParquetWriter;

    // The second run: a new writer whose output continues at the saved offset.
    const second = collecting(first.chunks);
    const resumed = newWriter(second.out);
    restoreWriter(resumed, second.out, restored, bytes);
    await resumed.write({ columnData: group(120, 30), rowGroupSize: 30, pageSize: 128 });
    await resumed.finish();

    const file = bytesOf(second.chunks);
    const meta = hyparquet.parquetMetadata(file);
    expect(meta.row_groups.map((g) => Number(g.num_rows))).toEqual([60, 60, 30]);
    expect(Number(meta.num_rows)).toBe(150);
    // Every chunk's offset index, the old groups' too, is in the file.
    for (const column of meta.row_groups.flatMap((g) => g.columns)) {
      expect(column.offset_index_offset).toBeGreaterThan(0n);
    }
    const rows = await hyparquet.parquetReadObjects({ file });
    expect(rows.map((row) => row.n)).toEqual(Array.from({ length: 150 }, (_, i) => BigInt(i)));
    expect(rows[121]).toEqual({ formula: "Si121O1", a: 121 / 4, n: 121n });
  });

  it("refuses to restore into a writer that has already written", async () => {
    const { out } = collecting();
    const writer = newWriter(out);
    await writer.write({ columnData: group(0, 10), rowGroupSize: 10 });
    const saved: SavedParquetWriter = { types: ["string", "double", "int64"], ...snapshotWriter(writer) };
    expect(() => restoreWriter(writer, out, saved, 100)).toThrow(/keeps its row groups elsewhere/);
  });
});
