import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type ServerHandle } from "../../src/server";

// Row groups encoded in the worker thread (src/frame/parquet-pool.ts) must make the bytes the
// export's own thread makes. The worker is a compiled file, so these tests drive the built
// package (npm test builds dist/ first; MATFRAME_DIST points at another build), as users run it.
const DIST = process.env.MATFRAME_DIST ?? join(__dirname, "..", "..", "dist");
if (!existsSync(join(DIST, "frame", "parquet-worker.js"))) throw new Error(`${DIST} has no frame/parquet-worker.js: run "npm run build" first.`);
const built = require(join(DIST, "index.js")) as typeof import("../../src");
const pool = require(join(DIST, "frame", "parquet-pool.js")) as typeof import("../../src/frame/parquet-pool");

let server: ServerHandle;
let client: InstanceType<typeof built.Client>;
let dir: string;

beforeAll(async () => {
  server = await startServer({ port: 0, synthetic: 3000 });
  client = await built.Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
  dir = mkdtempSync(join(tmpdir(), "matframe-parquet-worker-"));
});

afterAll(async () => {
  await client?.logout();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const COLUMNS = ["_id", "formula", "lattice.a", "lattice.type", "isSynthetic", "derivedProperties.density", "n", "tags.0"];
type Options = Parameters<typeof client.materials.exportParquet>[1];

async function both(name: string, options: Options): Promise<[Buffer, Buffer]> {
  const thread = join(dir, `${name}-thread.parquet`);
  const worker = join(dir, `${name}-worker.parquet`);
  await client.materials.exportParquet(thread, { ...options, encodeIn: "thread" } as Options);
  await client.materials.exportParquet(worker, { ...options, encodeIn: "worker" } as Options);
  expect(pool.runningWorkers()).toBe(0);
  return [readFileSync(thread), readFileSync(worker)];
}

describe("exportParquet in the worker thread", () => {
  for (const compression of ["snappy", "gzip", "none"] as const) {
    it(`writes the bytes the export's own thread writes (${compression}, several row groups, a short last one)`, async () => {
      const [thread, worker] = await both(compression, { columns: COLUMNS, rowGroupSize: 700, compression });
      expect(worker.length).toBeGreaterThan(1000);
      expect(worker.equals(thread)).toBe(true);
    });
  }

  it("uses the worker by itself once a row group is full, and stops it when the export ends", async () => {
    const auto = join(dir, "auto.parquet");
    let seen = 0;
    await client.materials.exportParquet(auto, {
      columns: COLUMNS,
      rowGroupSize: 500,
      onProgress: () => (seen = Math.max(seen, pool.runningWorkers())),
    });
    expect(seen).toBe(1);
    expect(pool.runningWorkers()).toBe(0);
    const [thread] = await both("auto-ref", { columns: COLUMNS, rowGroupSize: 500 });
    expect(readFileSync(auto).equals(thread)).toBe(true);
  });

  it("starts no worker for an export smaller than one row group", async () => {
    let seen = 0;
    await client.materials.exportParquet(join(dir, "small.parquet"), { columns: COLUMNS, onProgress: () => (seen = Math.max(seen, pool.runningWorkers())) });
    expect(seen).toBe(0);
  });

  it("shares one worker between the parts of a partitioned export, each part the bytes of the thread's", async () => {
    let seen = 0;
    const options = { columns: COLUMNS, rowGroupSize: 300, partitions: 4, onProgress: () => (seen = Math.max(seen, pool.runningWorkers())) };
    await client.materials.exportParquet(join(dir, "parts-worker"), { ...options, encodeIn: "worker" } as Options);
    expect(seen).toBe(1);
    await client.materials.exportParquet(join(dir, "parts-thread"), { ...options, encodeIn: "thread" } as Options);
    expect(pool.runningWorkers()).toBe(0);
    const parts = readdirSync(join(dir, "parts-worker")).sort();
    expect(parts).toHaveLength(4);
    for (const part of parts) expect(readFileSync(join(dir, "parts-worker", part)).equals(readFileSync(join(dir, "parts-thread", part)))).toBe(true);
  });

  it("raises a ColumnTypeError naming the record, as the thread does, and leaves no worker behind", async () => {
    const target = join(dir, "typed.parquet");
    const run = client.materials.exportParquet(target, { columns: ["_id", "formula"], rowGroupSize: 500, types: { formula: "double" }, encodeIn: "worker" } as Options);
    await expect(run).rejects.toBeInstanceOf(built.ColumnTypeError);
    expect(existsSync(target)).toBe(false);
    expect(pool.runningWorkers()).toBe(0);
  });

  it("resumes from the state the worker returned, to the rows of an uninterrupted export", async () => {
    const target = join(dir, "resumed.parquet");
    const stop = new AbortController();
    let aborted = false;
    const first = client.materials.exportParquet(target, {
      columns: COLUMNS,
      rowGroupSize: 400,
      resume: true,
      signal: stop.signal,
      encodeIn: "worker",
      onProgress: ({ items }: { items: number }) => {
        if (items >= 1300 && !aborted) {
          aborted = true;
          stop.abort();
        }
      },
    } as Options);
    await expect(first).rejects.toThrow();
    expect(pool.runningWorkers()).toBe(0);
    const result = await client.materials.exportParquet(target, { columns: COLUMNS, rowGroupSize: 400, resume: true, encodeIn: "worker" } as Options);
    expect(result.resumedFrom).toBeGreaterThanOrEqual(1200);
    expect(pool.runningWorkers()).toBe(0);
    // The interrupted run wrote the rows it held as a short group, so the file's groups differ from
    // an uninterrupted export's: its rows must not.
    const [reference] = await both("resume-ref", { columns: COLUMNS, rowGroupSize: 400 });
    const hyparquet = (await import("hyparquet")) as unknown as {
      parquetReadObjects(options: { file: ArrayBuffer }): Promise<Record<string, unknown>[]>;
    };
    const rows = (bytes: Buffer) => hyparquet.parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer });
    const resumed = await rows(readFileSync(target));
    expect(resumed).toHaveLength(result.items);
    expect(resumed).toEqual(await rows(reference));
  });
});
