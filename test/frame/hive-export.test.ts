import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { startServer, type ServerHandle } from "../../src/server";
import { Client, EmptyColumnError, ValidationError } from "../../src";
import { resumePaths, savedRecords } from "../../src/frame/export/resume/progress-files";
import { startFaultServer, type FaultServer } from "../support/fault-server";
import { at, defined } from "../support/checked";

// Hive-partitioned Parquet datasets, read back by two engines matframe does not contain: DuckDB
// (read_parquet with hive_partitioning, parquet_metadata) and Polars (nodejs-polars, scanParquet
// with hive partitioning), and compared with the CSV export of the same collection (csv-parse).

let server: ServerHandle;
let client: Client;
let dir: string;
let duck: DuckDBConnection;

beforeAll(async () => {
  server = await startServer({ port: 0, synthetic: 1500 });
  client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
  dir = mkdtempSync(join(tmpdir(), "matframe-hive-"));
  duck = await (await DuckDBInstance.create(":memory:")).connect();
});

afterAll(async () => {
  duck?.closeSync();
  await client?.logout();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function sql(query: string): Promise<Record<string, unknown>[]> {
  return (await duck.runAndReadAll(query)).getRowObjectsJS() as Record<string, unknown>[];
}

/** The number a `SELECT count(...) AS n` query gives. */
async function count(query: string): Promise<number> {
  return Number(at(await sql(query), 0, query).n);
}

const COLUMNS = ["_id", "formula", "lattice.type", "lattice.a", "derivedProperties.volume"];

/** Per lattice type: rows and the sums of two numeric columns, from the CSV export. */
function csvGroups(file: string): Map<string, { n: number; a: number; volume: number }> {
  const rows = parse(readFileSync(file), { columns: true }) as Record<string, string>[];
  const groups = new Map<string, { n: number; a: number; volume: number }>();
  for (const row of rows) {
    const type = defined(row["lattice.type"], "a CSV row's lattice.type");
    const g = groups.get(type) ?? { n: 0, a: 0, volume: 0 };
    g.n++;
    g.a += row["lattice.a"] === "" ? 0 : Number(row["lattice.a"]);
    g.volume += row["derivedProperties.volume"] === "" ? 0 : Number(row["derivedProperties.volume"]);
    groups.set(type, g);
  }
  return groups;
}

/**
 * nodejs-polars, when its platform binary is installed here (an optional dependency of it, which
 * npm leaves out on Node 20: .ci/run installs it); MATFRAME_REQUIRE_POLARS=1 makes a missing one a failure.
 */
async function loadPolars(): Promise<typeof import("nodejs-polars") | undefined> {
  try {
    const polars = await import("nodejs-polars");
    return polars.default ?? polars;
  } catch (error) {
    const why = `nodejs-polars is not usable here (${(error as Error).message.split("\n")[0]})`;
    if (process.env.MATFRAME_REQUIRE_POLARS === "1")
      throw new Error(`${why}; install its binary: npm install --no-save nodejs-polars-linux-x64-gnu@<its version>.`);
    console.warn(`${why}: its check is skipped.`);
    return undefined;
  }
}

describe("a hive-partitioned Parquet export (partitionBy)", () => {
  const target = () => join(dir, "by-type");
  const csvFile = () => join(dir, "all.csv");

  it("writes one folder per value and _SUCCESS last; DuckDB reads the same rows and sums as the CSV export", async () => {
    const result = await client.materials.exportParquet(target(), {
      columns: COLUMNS,
      partitionBy: "lattice.type",
      rowGroupSize: 100,
    });
    await client.materials.exportCsv(csvFile(), { columns: COLUMNS });
    const expected = csvGroups(csvFile());
    const total = [...expected.values()].reduce((n, g) => n + g.n, 0);
    expect(result.items).toBe(total);

    const entries = readdirSync(target()).sort();
    expect(entries).toEqual([...[...expected.keys()].map((type) => `lattice.type=${type}`), "_SUCCESS"].sort());
    expect(statSync(join(target(), "_SUCCESS")).size).toBe(0);
    for (const type of expected.keys())
      expect(readdirSync(join(target(), `lattice.type=${type}`))).toEqual(["part-0000.parquet"]);
    expect(readdirSync(dir).filter((name) => name.startsWith(".by-type"))).toEqual([]);

    const rows = await sql(
      `SELECT "lattice.type" AS type, count(*) AS n, sum("lattice.a") AS a, sum("derivedProperties.volume") AS volume
       FROM read_parquet('${target()}/**/*.parquet', hive_partitioning = true) GROUP BY 1`,
    );
    expect(rows.length).toBe(expected.size);
    for (const row of rows) {
      const want = expected.get(String(row.type))!;
      expect(Number(row.n)).toBe(want.n);
      expect(Number(row.a)).toBeCloseTo(want.a, 6);
      expect(Number(row.volume)).toBeCloseTo(want.volume, 6);
    }
    // The files do not repeat the partition column: its value is the folder's.
    const described = await sql(
      `DESCRIBE SELECT * FROM read_parquet('${target()}/**/*.parquet', hive_partitioning = false)`,
    );
    expect(described.map((r) => r.column_name)).toEqual(["_id", "formula", "lattice.a", "derivedProperties.volume"]);
    // The same _ids, each once.
    expect(await count(`SELECT count(DISTINCT _id) AS n FROM read_parquet('${target()}/**/*.parquet')`)).toBe(total);
  });

  it("cuts row groups at rowGroupSize (parquet_metadata)", async () => {
    const groups = await sql(
      `SELECT file_name, row_group_id, any_value(row_group_num_rows) AS n FROM parquet_metadata('${target()}/**/*.parquet') GROUP BY ALL ORDER BY ALL`,
    );
    const byFile = new Map<string, number[]>();
    for (const g of groups) byFile.set(String(g.file_name), [...(byFile.get(String(g.file_name)) ?? []), Number(g.n)]);
    expect(byFile.size).toBe(readdirSync(target()).length - 1);
    for (const [file, sizes] of byFile) {
      // Every group but the last of each file is full.
      expect(
        sizes.slice(0, -1).every((n) => n === 100),
        file,
      ).toBe(true);
      expect(sizes[sizes.length - 1]).toBeGreaterThan(0);
      expect(sizes[sizes.length - 1]).toBeLessThanOrEqual(100);
    }
    expect(groups.some((g) => Number(g.n) === 100)).toBe(true);
  });

  it("Polars (scanParquet, hive partitioning) reads the same rows and sums as the CSV export", async () => {
    const pl = await loadPolars();
    if (!pl) return;
    const frame = await pl.scanParquet(`${target()}/**/*.parquet`, { hivePartitioning: true }).collect();
    const sums = frame
      .groupBy("lattice.type")
      .agg(pl.col("lattice.a").sum().alias("a"), pl.col("_id").count().alias("n"))
      .toRecords();
    const expected = csvGroups(csvFile());
    expect(sums.length).toBe(expected.size);
    for (const row of sums) {
      const want = expected.get(String(row["lattice.type"]))!;
      expect(Number(row.n)).toBe(want.n);
      expect(Number(row.a)).toBeCloseTo(want.a, 6);
    }
  });

  it("cuts row groups at rowGroupBytes too, whichever limit comes first", async () => {
    const out = join(dir, "by-bytes");
    await client.materials.exportParquet(out, {
      columns: COLUMNS,
      partitionBy: "lattice.type",
      rowGroupSize: 100_000,
      rowGroupBytes: 4096,
    });
    const groups = await sql(
      `SELECT DISTINCT file_name, row_group_id, row_group_num_rows AS n FROM parquet_metadata('${out}/**/*.parquet')`,
    );
    const largest = Math.max(...groups.map((g) => Number(g.n)));
    // Each row counts at least 4 + 4 bytes for its two text cells and 8 + 8 for its numbers: at most 171 rows in 4 KiB.
    expect(largest).toBeLessThanOrEqual(Math.ceil(4096 / 24));
    const folders = readdirSync(out).length - 1;
    expect(groups.length).toBeGreaterThan(3 * folders);
    expect(await count(`SELECT count(*) AS n FROM read_parquet('${out}/**/*.parquet')`)).toBe(
      readFileSync(csvFile(), "utf8").trim().split("\n").length - 1,
    );
  });

  it("refuses a column of more than 100 values, leaving nothing at the target", async () => {
    const out = join(dir, "by-id");
    const error = await client.materials
      .exportParquet(out, { columns: COLUMNS, partitionBy: "_id" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).option).toBe("partitionBy");
    expect((error as Error).message).toContain("more than 100 distinct values");
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((name) => name.startsWith(".by-id"))).toEqual([]);
  });

  it("refuses partitionBy outside the columns, with another format, or with partitions, before any request", async () => {
    const out = join(dir, "never");
    await expect(
      client.materials.exportParquet(out, { columns: ["formula"], partitionBy: "lattice.type" }),
    ).rejects.toThrow(/not one of the exported columns/);
    await expect(
      client.materials.exportCsv(out, { columns: COLUMNS, partitionBy: "lattice.type" } as never),
    ).rejects.toThrow(/not csv \(export as parquet to partition\); leave out partitionBy\./);
    await expect(
      client.materials.exportParquet(out, { columns: COLUMNS, partitionBy: "lattice.type", partitions: 2 }),
    ).rejects.toThrow(/one split too many with partitions; leave out partitionBy, or leave out partitions\./);
    await expect(client.materials.exportParquet(out, { columns: COLUMNS, rowGroupBytes: 10 })).rejects.toThrow(
      /rowGroupBytes must be/,
    );
    expect(existsSync(out)).toBe(false);
  });
});

describe("partition folder names", () => {
  it("escape values as Hive and Spark do; DuckDB and Polars read the values back, null from __HIVE_DEFAULT_PARTITION__", async () => {
    const names = ["a/b", "x=y", "50%", "#1 [best]", "é ü", ""];
    for (const name of names) await client.materials.create({ name, formula: "Si", tags: ["hive-probe"] } as never);
    await client.materials.create({ formula: "Si", tags: ["hive-probe"] } as never);
    const out = join(dir, "by-name");
    await client.materials.exportParquet(out, {
      columns: ["_id", "name", "formula"],
      partitionBy: "name",
      query: { tags: "hive-probe" },
    });
    expect(readdirSync(out).sort()).toEqual(
      [
        "name=a%2Fb",
        "name=x%3Dy",
        "name=50%25",
        "name=%231 %5Bbest%5D",
        "name=é ü",
        "name=__HIVE_DEFAULT_PARTITION__",
        "_SUCCESS",
      ].sort(),
    );
    const rows = await sql(
      `SELECT name, count(*) AS n FROM read_parquet('${out}/**/*.parquet', hive_partitioning = true) GROUP BY 1`,
    );
    const counts = Object.fromEntries(rows.map((r) => [String(r.name), Number(r.n)]));
    // The empty name and the missing one share the default partition, read back as null (as Spark writes them).
    expect(counts).toEqual({ "a/b": 1, "x=y": 1, "50%": 1, "#1 [best]": 1, "é ü": 1, null: 2 });

    const pl = await loadPolars();
    if (!pl) return;
    const frame = await pl.scanParquet(`${out}/**/*.parquet`, { hivePartitioning: true }).collect();
    const values = (frame.getColumn("name").toArray() as (string | null)[]).map(String).sort();
    expect(values).toEqual(["#1 [best]", "50%", "a/b", "null", "null", "x=y", "é ü"]);
  });
});

describe("a resumed partitionBy export", () => {
  let fault: FaultServer;
  let faultClient: Client;

  beforeAll(async () => {
    fault = await startFaultServer({ records: 3000, evaluateQueries: true });
    // Three kinds, interleaved along the _id order, so every folder's file commits at its own pace.
    fault.records.forEach((record, i) => {
      Object.assign(record, { kind: ["alpha", "beta", "gamma"][i % 7 < 4 ? 0 : i % 7 < 6 ? 1 : 2] });
    });
    // A column only alpha records have, and one only the first 100 records have.
    for (const record of fault.records)
      if ((record as { kind?: string }).kind === "alpha") Object.assign(record, { alphaOnly: 1 });
    for (const record of fault.records.slice(0, 100)) Object.assign(record, { early: "yes" });
    faultClient = new Client({
      baseUrl: fault.baseUrl,
      accountId: fault.accountId,
      authToken: fault.authToken,
      maxRetries: 0,
    });
  });

  afterAll(async () => {
    await faultClient?.close();
    await fault?.close();
  });

  it("continues after an interruption with every record once, as an uninterrupted export", async () => {
    const options = { columns: ["_id", "name", "kind", "n"], partitionBy: "kind", pageSize: 100, rowGroupSize: 250 };
    const reference = join(dir, "kinds-reference");
    const target = join(dir, "kinds");
    await faultClient.materials.exportParquet(reference, options);

    const controller = new AbortController();
    const stopped = await faultClient.materials
      .exportParquet(target, {
        ...options,
        resume: true,
        signal: controller.signal,
        onProgress: (p) => p.items >= 1300 && controller.abort(new Error("link lost")),
      })
      .catch((e: unknown) => e);
    expect((stopped as Error).name).toBe("AbortError");
    expect(existsSync(target)).toBe(false);
    const { partial, state } = resumePaths(target);
    expect(existsSync(partial) && existsSync(state)).toBe(true);
    expect(existsSync(join(partial, "_SUCCESS"))).toBe(false);
    // What the CLI says is saved: the records committed in the values' files.
    const saved = await savedRecords(target);
    expect(saved).toBeGreaterThanOrEqual(1000);
    expect(saved).toBeLessThanOrEqual(1400);

    const result = await faultClient.materials.exportParquet(target, { ...options, resume: true });
    expect(result.items).toBe(3000);
    expect(result.resumedFrom).toBeGreaterThanOrEqual(1000);
    expect(existsSync(join(target, "_SUCCESS"))).toBe(true);
    expect(existsSync(partial) || existsSync(state)).toBe(false);

    const read = (where: string) =>
      sql(
        `SELECT kind, _id, name, n FROM read_parquet('${where}/**/*.parquet', hive_partitioning = true) ORDER BY _id`,
      );
    const [resumed, whole] = [await read(target), await read(reference)];
    expect(resumed.length).toBe(3000);
    expect(resumed).toEqual(whole);
  });

  it("with strict, refuses a column empty in every folder, not one empty in some", async () => {
    const options = { partitionBy: "kind", pageSize: 500, strict: true };
    const ok = await faultClient.materials.exportParquet(join(dir, "strict-ok"), {
      ...options,
      columns: ["_id", "kind", "alphaOnly"],
    });
    expect(ok.items).toBe(3000);
    const out = join(dir, "strict-empty");
    const error = await faultClient.materials
      .exportParquet(out, { ...options, columns: ["_id", "kind", "nowhere"] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmptyColumnError);
    expect((error as Error).message).toContain("none of the 3,000 records");
    expect(existsSync(out)).toBe(false);
  });

  it("with strict, resumes past a column whose values were all in the first run", async () => {
    const target = join(dir, "strict-resumed");
    const options = {
      columns: ["_id", "kind", "early"],
      partitionBy: "kind",
      pageSize: 100,
      rowGroupSize: 250,
      resume: true,
      strict: true,
    };
    const controller = new AbortController();
    await faultClient.materials
      .exportParquet(target, {
        ...options,
        signal: controller.signal,
        onProgress: (p) => p.items >= 1300 && controller.abort(new Error("link lost")),
      })
      .catch(() => undefined);
    const result = await faultClient.materials.exportParquet(target, options);
    expect(result.items).toBe(3000);
    expect(
      await count(`SELECT count(early) AS n FROM read_parquet('${target}/**/*.parquet', hive_partitioning = true)`),
    ).toBe(100);
  });

  it("refuses to continue with another partition column", async () => {
    const target = join(dir, "kinds-other");
    const controller = new AbortController();
    const options = { columns: ["_id", "name", "kind", "n"], pageSize: 100, rowGroupSize: 250, resume: true };
    await faultClient.materials
      .exportParquet(target, {
        ...options,
        partitionBy: "kind",
        signal: controller.signal,
        onProgress: (p) => p.items >= 500 && controller.abort(new Error("link lost")),
      })
      .catch(() => undefined);
    await expect(faultClient.materials.exportParquet(target, { ...options, partitionBy: "name" })).rejects.toThrow(
      /its partition column was "kind"/,
    );
  });
});
