import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { parse } from "csv-parse/sync";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { startServer, type ServerHandle } from "../../src/server";
import { Client, exportCsv, exportNdjson, exportParquet, toArrow, ValidationError, type DataFrame } from "../../src";
import { at } from "../support/checked";

// A frame a scientist filtered goes back to a file as it is: its column names (dots and all) as
// names, its types, its nulls, and nothing added. Read back by DuckDB, csv-parse and JSON.parse.

let server: ServerHandle;
let client: Client;
let dir: string;
let duck: DuckDBConnection;
let all: DataFrame;
let dense: DataFrame;

beforeAll(async () => {
  server = await startServer({ port: 0 });
  client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
  dir = mkdtempSync(join(tmpdir(), "matframe-frame-export-"));
  duck = await (await DuckDBInstance.create(":memory:")).connect();
  all = await client.materials.toDataFrame({ onWarning: () => {} });
  dense = all.query(all.column("derivedProperties.density").gt(5));
});

afterAll(async () => {
  duck?.closeSync();
  await client?.logout();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The frame's rows as plain arrays, nulls as null. */
function rowsOf(frame: DataFrame): unknown[][] {
  return (frame.values as unknown[][]).map((row) =>
    row.map((v) => (typeof v === "number" && Number.isNaN(v) ? null : v)),
  );
}

describe("a filtered DataFrame written back to files", () => {
  it("the filter keeps some materials and drops others (the test means something)", () => {
    expect(dense.shape[0]).toBeGreaterThan(0);
    expect(dense.shape[0]).toBeLessThan(at(all.shape, 0, "the frame's shape"));
  });

  it("Parquet: DuckDB reads the same column names, values and types, and no default column is added", async () => {
    const file = join(dir, "dense.parquet");
    const result = await exportParquet(dense, file);
    expect(result.items).toBe(dense.shape[0]);
    const described = (await duck.runAndReadAll(`DESCRIBE SELECT * FROM '${file}'`)).getRows().map((r) => [r[0], r[1]]);
    const expectedType = (dtype: string) =>
      dtype === "float32" ? "DOUBLE" : dtype === "int32" ? "INTEGER" : dtype === "boolean" ? "BOOLEAN" : "VARCHAR";
    expect(described).toEqual(dense.columns.map((name, c) => [name, expectedType(at(dense.dtypes, c, "the dtypes"))]));
    const rows = (await duck.runAndReadAll(`SELECT * FROM '${file}'`)).getRows();
    expect(rows).toEqual(rowsOf(dense));
    // The density column is numeric in DuckDB, and every value passes the filter.
    const low = await duck.runAndReadAll(`SELECT count(*) FROM '${file}' WHERE "derivedProperties.density" <= 5`);
    expect(low.getRows()).toEqual([[0n]]);
  });

  it("a grouped frame with a column of its own writes its own columns, types and nulls", async () => {
    const grouped = all.groupby(["method.type"]).col(["derivedProperties.density"]).mean();
    const named = grouped.addColumn(
      "rank",
      grouped.column("derivedProperties.density_mean").values.map((_, i) => i + 1) as number[],
    );
    const file = join(dir, "grouped.parquet");
    await exportParquet(named, file);
    const described = (await duck.runAndReadAll(`DESCRIBE SELECT * FROM '${file}'`)).getRows().map((r) => r[0]);
    expect(described).toEqual(named.columns);
    expect((await duck.runAndReadAll(`SELECT * FROM '${file}'`)).getRows()).toEqual(rowsOf(named));
  });

  it("CSV and NDJSON: the same rows under the frame's column names", async () => {
    const csv = join(dir, "dense.csv");
    await exportCsv(dense, csv);
    const parsed = parse(readFileSync(csv, "utf8"), { columns: false, cast: false }) as string[][];
    expect(parsed[0]).toEqual(dense.columns);
    expect(parsed.length - 1).toBe(dense.shape[0]);
    const ndjson = join(dir, "dense.ndjson");
    await exportNdjson(dense, ndjson);
    const lines = readFileSync(ndjson, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => Object.keys(line))).toEqual(lines.map(() => dense.columns));
    expect(lines.map((line) => dense.columns.map((name) => line[name]))).toEqual(rowsOf(dense));
  });

  it("Arrow: the frame's columns with their types", async () => {
    const table = (await toArrow(dense)) as unknown as {
      schema: { fields: { name: string; type: { toString(): string } }[] };
      numRows: number;
    };
    expect(table.numRows).toBe(dense.shape[0]);
    expect(table.schema.fields.map((f) => f.name)).toEqual(dense.columns);
    const density = table.schema.fields.find((f) => f.name === "derivedProperties.density")!;
    expect(density.type.toString()).toBe("Float64");
  });

  it("columns picks frame columns by name, and a name the frame lacks is refused with its columns listed", async () => {
    const file = join(dir, "two.csv");
    await exportCsv(dense, file, { columns: ["formula", "derivedProperties.density"] });
    expect(readFileSync(file, "utf8").split("\n")[0]).toBe("formula,derivedProperties.density");
    await expect(exportCsv(dense, join(dir, "bad.csv"), { columns: ["formla"] })).rejects.toThrow(ValidationError);
    await expect(exportCsv(dense, join(dir, "bad.csv"), { columns: ["formla"] })).rejects.toThrow(
      /The DataFrame has no column "formla"; its columns are _id, name, formula/,
    );
  });

  it("warns about nothing (no spelling warning for a frame's own columns)", async () => {
    const warnings: unknown[] = [];
    await exportCsv(dense, join(dir, "quiet.csv"), { onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual([]);
  });

  it("warns about nothing for a column of the frame without values (a results table's direct gaps)", async () => {
    const gaps = await client.results.toDataFrame({ properties: ["band_gaps"] });
    expect(gaps.column("band_gaps.direct").isNa().sum()).toBe(gaps.shape[0]);
    const warnings: unknown[] = [];
    const written = await exportCsv(gaps, join(dir, "gaps.csv"), { onWarning: (w) => warnings.push(w) });
    expect([warnings, written.warnings]).toEqual([[], []]);
    const rows = parse(readFileSync(join(dir, "gaps.csv"), "utf8"), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(at(gaps.shape, 0));
    expect(rows.every((row) => row["band_gaps.direct"] === "")).toBe(true);
    // strict to a stream: nothing to wait for (no warning will come), so its pages go out as written.
    const writes: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        writes.push(String(chunk));
        done();
      },
    });
    await exportCsv(gaps, sink, { strict: true });
    expect(writes.length).toBeGreaterThan(1);
    expect(writes.join("")).toBe(readFileSync(join(dir, "gaps.csv"), "utf8"));
  });
});
