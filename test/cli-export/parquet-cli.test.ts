import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { lastLine, runCli } from "./run-cli";
import { at } from "../support/checked";

let dir: string;
let duck: DuckDBConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "matframe-parquet-cli-"));
  duck = await (await DuckDBInstance.create(":memory:")).connect();
});

afterAll(() => {
  duck?.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

async function count(source: string): Promise<number> {
  const rows = (
    await duck.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM read_parquet('${source}')`)
  ).getRowObjectsJS();
  return at(rows, 0, "the count row").n as number;
}

describe("matframe export, Parquet", () => {
  it("writes Parquet when --output ends in .parquet", async () => {
    const result = await runCli(["export", "--output", "materials.parquet"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(lastLine(result.stderr)).toMatch(
      /^Exported 29 materials \(1 page\) in [0-9.]+ s to .*materials\.parquet\.$/,
    );
    expect(await count(join(dir, "materials.parquet"))).toBe(29);
  });

  it("writes a dataset directory of part files with --partitions, read by DuckDB as one table", async () => {
    const result = await runCli(
      ["export", "--format", "parquet", "--partitions", "3", "--output", "dataset", "--quiet"],
      { cwd: dir },
    );
    expect(result.code).toBe(0);
    expect(readdirSync(join(dir, "dataset")).sort()).toEqual([
      "_SUCCESS",
      "part-0000.parquet",
      "part-0001.parquet",
      "part-0002.parquet",
    ]);
    expect(await count(join(dir, "dataset", "*.parquet"))).toBe(29);
  });

  it("writes a hive-partitioned dataset with --partition-by and --row-group-size, read by DuckDB with the folders' values", async () => {
    const args = [
      "export",
      "--format",
      "parquet",
      "--columns",
      "_id,formula,lattice.type,lattice.a",
      "--partition-by",
      "lattice.type",
      "--row-group-size",
      "4",
    ];
    const result = await runCli([...args, "--output", "by-type", "--quiet"], { cwd: dir });
    expect(result.code).toBe(0);
    const entries = readdirSync(join(dir, "by-type"));
    expect(entries).toContain("_SUCCESS");
    expect(entries).toContain("lattice.type=FCC");
    const rows = (
      await duck.runAndReadAll(
        `SELECT "lattice.type" AS type, count(*)::INTEGER AS n FROM read_parquet('${join(dir, "by-type")}/**/*.parquet', hive_partitioning = true) GROUP BY 1`,
      )
    ).getRowObjectsJS();
    expect(rows.reduce((n, r) => n + (r.n as number), 0)).toBe(29);
    expect(rows.length).toBe(entries.length - 1);
    const groups = (
      await duck.runAndReadAll(
        `SELECT max(row_group_num_rows)::INTEGER AS most FROM parquet_metadata('${join(dir, "by-type")}/**/*.parquet')`,
      )
    ).getRowObjectsJS();
    expect(groups[0]?.most).toBe(4);
  });

  it("writes Parquet bytes to a pipe", async () => {
    const result = await runCli(["export", "--format", "parquet", "--output", "-", "--quiet"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith("PAR1")).toBe(true);
  });

  it.each([
    [
      ["--types", "formula=float", "--output", "t.parquet"],
      'matframe export: --types gives "formula" the type "float"; use one of double, int32, int64, boolean, string.',
    ],
    [
      ["--types", "formula", "--output", "t.parquet"],
      'matframe export: --types takes COLUMN=TYPE pairs separated by commas, e.g. tags.0=string; got "formula".',
    ],
    [
      ["--types", "formula=string", "--output", "t.csv"],
      "matframe export: --types applies to --format parquet; --format csv writes values as they are.",
    ],
    [["--partitions", "two", "--output", "d"], 'matframe export: --partitions must be a whole number; got "two".'],
    [
      ["--partitions", "99", "--output", "d"],
      "matframe export: --partitions must be a whole number from 1 to 64; got 99.",
    ],
    [
      ["--partitions", "2", "--output", "-"],
      "matframe export: --partitions writes a directory of part files: give --output DIR (a directory to create).",
    ],
    [
      ["--partition-by", "lattice.type", "--output", "t.csv"],
      "matframe export: --partition-by applies to --format parquet.",
    ],
    [
      ["--partition-by", "lattice.type", "--columns", "formula,lattice.type", "--format", "parquet", "--output", "-"],
      "matframe export: --partition-by writes a directory of part files: give --output DIR (a directory to create).",
    ],
    [
      ["--partition-by", "lattice.type", "--output", "d.parquet"],
      "matframe export: --partition-by lattice.type is not one of the exported columns (_id, name, formula, method.type, method.subtype, lattice.a, lattice.b, lattice.c, derivedProperties.volume, derivedProperties.density): add it to the columns asked for.",
    ],
    [
      ["--row-group-bytes", "12", "--output", "t.parquet"],
      "matframe export: --row-group-bytes must be a whole number of bytes from 1024 to 2147483648; got 12.",
    ],
    [
      ["--parquet-compression", "zstd", "--output", "t.parquet"],
      'matframe export: --parquet-compression must be snappy or gzip or none; got "zstd".',
    ],
  ])("refuses %j in the words of the flag", async (args, message) => {
    const result = await runCli(["export", ...args], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(message);
  });

  it("names the column, the record and the flag when a value does not fit its type, and writes nothing", async () => {
    const result = await runCli(["export", "--types", "formula=double", "--output", "typed.parquet"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(lastLine(result.stderr)).toMatch(
      /^matframe export: column "formula" is typed double, but record \w+ has "\w+" \(a string\) there; give it a type that holds every value with --types formula=string, or leave it out of --columns\. Nothing was written\.$/,
    );
    expect(existsSync(join(dir, "typed.parquet"))).toBe(false);
    expect(readdirSync(dir).filter((name) => name.includes("typed"))).toEqual([]);
  });
});
