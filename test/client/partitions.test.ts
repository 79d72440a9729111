import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { splitIdRange, partitionQuery } from "../../src/client/paging/partitions";
import { Client, ValidationError, type PartitionedExportResult } from "../../src";
import { startFaultServer, type FaultServer } from "../support/fault-server";
import { seededRandom, type SeededRandom } from "../support/seeded-random";
import { at } from "../support/checked";

const METEOR = "23456789ABCDEFGHJKLMNPQRSTWXYZabcdefghijkmnopqrstuvwxyz";
// Seeded (xorshift32), so the balance check sees the same ids every run instead of failing now and then.
let seed = 0x9e3779b9;
const byte = (): number => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) % 256;
};
const bytes = (n: number): number[] => Array.from({ length: n }, byte);
const meteorId = (): string =>
  bytes(17)
    .map((b) => METEOR[b % METEOR.length])
    .join("");
const hexId = (): string => Buffer.from(bytes(12)).toString("hex");

/** How many of `ids` fall in each part, checking that every id is in exactly one. */
function countByPart(ids: readonly string[], parts: ReturnType<typeof splitIdRange>): number[] {
  return parts.map(
    (p) => ids.filter((id) => (p.from === undefined || id >= p.from) && (p.to === undefined || id < p.to)).length,
  );
}

describe("splitIdRange", () => {
  it.each([
    ["Meteor ids", meteorId],
    ["ObjectId hex", hexId],
  ])("splits %s into contiguous, open-ended ranges of about equal size", (_, make) => {
    const ids = Array.from({ length: 20_000 }, make).sort();
    // The walk samples the first and last 500 ids.
    const parts = splitIdRange([...ids.slice(0, 500), ...ids.slice(-500)], 4);
    expect(parts).toHaveLength(4);
    expect(at(parts, 0).from).toBeUndefined();
    expect(at(parts, -1).to).toBeUndefined();
    // Each part starts where the one before ends.
    expect(parts.slice(1).map((p) => p.from)).toEqual(parts.slice(0, -1).map((p) => p.to));
    const counts = countByPart(ids, parts);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(ids.length);
    for (const count of counts) expect(Math.abs(count - 5000)).toBeLessThan(750);
  });

  it("gives one part that covers everything when there is nothing to split", () => {
    expect(splitIdRange([], 4)).toEqual([{ index: 0 }]);
    expect(splitIdRange(["only"], 4)).toEqual([{ index: 0 }]);
    expect(splitIdRange(["a", "b"], 1)).toEqual([{ index: 0 }]);
  });

  it("never repeats a split point, even for more parts than ids", () => {
    const parts = splitIdRange(["a1", "a2"], 8);
    const points = parts.slice(1).map((p) => p.from!);
    expect(new Set(points).size).toBe(points.length);
    expect(countByPart(["a1", "a2", "a10", "a15", "b"], parts).reduce((a, b) => a + b, 0)).toBe(5);
  });

  it("ands the part's range with the caller's query", () => {
    expect(partitionQuery({}, { index: 0 })).toEqual({});
    expect(partitionQuery({}, { index: 1, from: "b", to: "d" })).toEqual({ _id: { $gte: "b", $lt: "d" } });
    expect(partitionQuery({ formula: "Si" }, { index: 2, from: "d" })).toEqual({
      $and: [{ formula: "Si" }, { _id: { $gte: "d" } }],
    });
  });
});

describe("partitioned export", () => {
  let server: FaultServer;
  let client: Client;
  let dir: string;
  let duck: DuckDBConnection;
  let added: string[] = [];
  let failOn: number | undefined;
  /** Where records land while the walk runs: seeded, replaced per test so its failure prints the seed. */
  let random: SeededRandom = seededRandom(45);

  beforeAll(async () => {
    server = await startFaultServer({
      records: 3000,
      evaluateQueries: true,
      // While the parts are walked, records keep arriving at random places in the _id order.
      fault: (request, n) => {
        if (!request.path.endsWith("/materials")) return undefined;
        if (failOn !== undefined && n.list === failOn)
          return {
            kind: "status",
            status: 400,
            body: JSON.stringify({ status: "error", message: "Bad query", code: 400 }),
          };
        if (n.list % 5 === 0) {
          for (let k = 0; k < 7; k++) {
            const _id = `m${String(random.int(3000)).padStart(6, "0")}x${added.length}`;
            const at = server.records.findIndex((m) => m._id > _id);
            server.records.splice(at === -1 ? server.records.length : at, 0, {
              _id,
              name: "added",
              formula: "Si",
              n: -1,
            });
            added.push(_id);
          }
        }
        return undefined;
      },
    });
    client = new Client({
      baseUrl: server.baseUrl,
      accountId: server.accountId,
      authToken: server.authToken,
      maxRetries: 0,
    });
    dir = mkdtempSync(join(tmpdir(), "matframe-partitions-"));
    duck = await (await DuckDBInstance.create(":memory:")).connect();
  });

  afterAll(async () => {
    duck?.closeSync();
    await client?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes every record exactly once across the parts while the collection grows, and DuckDB reads them as one table", async () => {
    added = [];
    random = seededRandom(45);
    const original = server.records.map((m) => m._id);
    const target = join(dir, "dataset");
    let lastProgress = 0;
    const result = (await client.materials.exportParquet(target, {
      partitions: 4,
      pageSize: 100,
      columns: ["name", "formula", "n"],
      onProgress: (p) => (lastProgress = p.items),
    })) as PartitionedExportResult;
    expect(readdirSync(target).sort()).toEqual([
      "_SUCCESS",
      "part-0000.parquet",
      "part-0001.parquet",
      "part-0002.parquet",
      "part-0003.parquet",
    ]);
    expect(result.parts.map((p) => p.items).reduce((a, b) => a + b, 0)).toBe(result.items);
    expect(lastProgress).toBe(result.items);
    expect(added.length).toBeGreaterThan(0);

    const rows = (
      await duck.runAndReadAll(
        `SELECT _id, count(*)::INTEGER AS k FROM read_parquet('${target}/*.parquet') GROUP BY _id`,
      )
    ).getRowObjectsJS() as { _id: string; k: number }[];
    expect(rows.filter((r) => r.k !== 1)).toEqual([]);
    const seen = new Set(rows.map((r) => r._id));
    expect(original.filter((id) => !seen.has(id))).toEqual([]);
    // Records added during the walk appear at most once (keyset paging: once their part's cursor
    // has passed them, they belong to the next export).
    expect(rows.length).toBe(original.length + added.filter((id) => seen.has(id)).length);
    // Each part walked its own range with its own cursor.
    const ranges = server.requests.filter(
      (r) => r.path.endsWith("/materials") && JSON.stringify(r.query).includes("$gte"),
    );
    expect(ranges.length).toBeGreaterThan(0);
  });

  it("leaves no directory when one part fails, and names the cause", async () => {
    failOn = server.requests.filter((r) => r.path.endsWith("/materials")).length + 9;
    const target = join(dir, "failed");
    const error = await client.materials.exportCsv(target, { partitions: 3, pageSize: 100 }).catch((e: unknown) => e);
    failOn = undefined;
    expect((error as Error).name).toBe("BadRequestError");
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(dir).filter((name) => name.includes("failed"))).toEqual([]);
  });

  it("refuses options a partitioned walk cannot honour, before any request", async () => {
    const before = server.requests.length;
    await expect(client.materials.exportCsv(join(dir, "x"), { partitions: 0 })).rejects.toThrow(
      /partitions must be a whole number from 1 to 64/,
    );
    await expect(client.materials.exportCsv(join(dir, "x"), { partitions: 2, sort: { formula: 1 } })).rejects.toThrow(
      /walks in _id order/,
    );
    await expect(client.materials.exportCsv(join(dir, "x"), { partitions: 2, maxItems: 10 })).rejects.toThrow(
      ValidationError,
    );
    await expect(client.materials.exportCsv(join(dir, "x"), { partitions: 2, paging: "offset" })).rejects.toThrow(
      /keyset cursor/,
    );
    await expect(client.materials.exportCsv(process.stdout, { partitions: 2 })).rejects.toThrow(
      /give a directory path/,
    );
    expect(server.requests.length).toBe(before);
  });
});
