import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { startServer, type ServerHandle } from "../../src/server";
import { Client, ColumnTypeError, exportParquet, ValidationError } from "../../src";
import { at } from "../support/checked";

// Parquet files are read back by two readers matframe does not contain: DuckDB (C++) and
// hyparquet (JavaScript, by another author than the writer's), and compared with the CSV of the
// same export read by csv-parse.

let server: ServerHandle;
let client: Client;
let dir: string;
let duck: DuckDBConnection;
// hyparquet is an ES module only.
interface Hyparquet {
  asyncBufferFromFile(file: string): Promise<unknown>;
  parquetReadObjects(options: { file: unknown }): Promise<Record<string, unknown>[]>;
  parquetMetadataAsync(
    file: unknown,
  ): Promise<{ row_groups: { num_rows: bigint; columns: { meta_data?: { codec: string } }[] }[] }>;
}
let hyparquet: Hyparquet;

beforeAll(async () => {
  server = await startServer({ port: 0, synthetic: 1500 });
  client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
  dir = mkdtempSync(join(tmpdir(), "matframe-parquet-"));
  duck = await (await DuckDBInstance.create(":memory:")).connect();
  hyparquet = (await import("hyparquet")) as unknown as Hyparquet;
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

async function duckTypes(file: string): Promise<Record<string, string>> {
  const rows = await sql(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
  return Object.fromEntries(rows.map((r) => [r.column_name as string, r.column_type as string]));
}

async function hyparquetRows(file: string): Promise<Record<string, unknown>[]> {
  return (await hyparquet.parquetReadObjects({ file: await hyparquet.asyncBufferFromFile(file) })) as Record<
    string,
    unknown
  >[];
}

const COLUMNS = [
  "formula",
  "lattice.a",
  "lattice.type",
  "isSynthetic",
  "derivedProperties.density",
  "method",
  "lattice.vectors.a",
  "tags.0",
];

describe("exportParquet", () => {
  it("writes typed columns that DuckDB and hyparquet read as the CSV export's values, nulls as nulls", async () => {
    const file = join(dir, "typed.parquet");
    const csvFile = join(dir, "typed.csv");
    const result = await client.materials.exportParquet(file, { columns: COLUMNS, rowGroupSize: 400 });
    await client.materials.exportCsv(csvFile, { columns: COLUMNS, escapeFormulas: false });
    expect(result.items).toBe(server.materialCount);
    expect(result.bytes).toBe(readFileSync(file).length);

    expect(await duckTypes(file)).toEqual({
      _id: "VARCHAR",
      formula: "VARCHAR",
      "lattice.a": "DOUBLE",
      "lattice.type": "VARCHAR",
      isSynthetic: "BOOLEAN",
      "derivedProperties.density": "DOUBLE",
      "method.type": "VARCHAR",
      "method.subtype": "VARCHAR",
      "lattice.vectors.a": "VARCHAR",
      "tags.0": "VARCHAR",
    });

    const csv = parse(readFileSync(csvFile, "utf8"), { columns: true }) as Record<string, string>[];
    const viaDuck = await sql(`SELECT * FROM read_parquet('${file}') ORDER BY _id`);
    const viaHyparquet = await hyparquetRows(file);
    expect(viaDuck).toHaveLength(csv.length);
    expect(viaHyparquet).toHaveLength(csv.length);
    // The bundled materials are not synthetic and carry no isSynthetic field: nulls, not false.
    expect(viaDuck.filter((r) => r.isSynthetic === null)).toHaveLength(29);
    const text = (v: unknown): string => (v === null || v === undefined ? "" : String(v));
    for (const [i, row] of csv.entries()) {
      const duckRow = at(viaDuck, i, "DuckDB's rows");
      const hyparquetRow = at(viaHyparquet, i, "hyparquet's rows");
      for (const [name, value] of Object.entries(row)) {
        expect(text(duckRow[name]), `${row._id} ${name} (DuckDB)`).toBe(value);
        expect(text(hyparquetRow[name]), `${row._id} ${name} (hyparquet)`).toBe(value);
      }
      expect(typeof duckRow["lattice.a"]).toBe("number");
    }
    // rowGroupSize 400 over 1,529 records: 4 row groups, each with its rows.
    const metadata = await hyparquet.parquetMetadataAsync(await hyparquet.asyncBufferFromFile(file));
    expect(metadata.row_groups.map((g) => Number(g.num_rows))).toEqual([400, 400, 400, 329]);
  });

  it("is the CSV's size or less by far, and snappy by default (gzip and none on request)", async () => {
    const sizes = { snappy: 0, gzip: 0, none: 0 };
    for (const compression of ["snappy", "gzip", "none"] as const) {
      const file = join(dir, `default-${compression}.parquet`);
      await client.materials.exportParquet(file, { compression });
      sizes[compression] = readFileSync(file).length;
      const metadata = await hyparquet.parquetMetadataAsync(await hyparquet.asyncBufferFromFile(file));
      const codecs = new Set(metadata.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data?.codec)));
      expect([...codecs]).toEqual([{ snappy: "SNAPPY", gzip: "GZIP", none: "UNCOMPRESSED" }[compression]]);
      const [counted] = await sql(`SELECT count(*)::INTEGER AS n FROM read_parquet('${file}')`);
      expect(counted?.n).toBe(server.materialCount);
    }
    const csvFile = join(dir, "default.csv");
    await client.materials.exportCsv(csvFile);
    const csvSize = readFileSync(csvFile).length;
    expect(sizes.snappy).toBeLessThan(0.5 * csvSize);
    expect(sizes.gzip).toBeLessThan(sizes.snappy);
    expect(sizes.none).toBeGreaterThan(sizes.snappy);
  });

  it("writes int32 and int64 columns when asked, and the known integer paths as int32", async () => {
    const file = join(dir, "ids.parquet");
    await client.materials.exportParquet(file, { columns: ["basis.elements.0.id"] });
    expect((await duckTypes(file))["basis.elements.0.id"]).toBe("INTEGER");
    expect(await sql(`SELECT DISTINCT "basis.elements.0.id" AS id FROM read_parquet('${file}')`)).toEqual([{ id: 0 }]);

    const ints = join(dir, "ints.parquet");
    const records = [
      { _id: "r1", atoms: 2, steps: 9_007_199_254_740_991 },
      { _id: "r2", atoms: null, steps: -3 },
      { _id: "r3", atoms: 2_147_483_647 },
    ];
    await exportParquet([records], ints, { columns: ["atoms", "steps"], types: { atoms: "int32", steps: "int64" } });
    expect(await duckTypes(ints)).toEqual({ _id: "VARCHAR", atoms: "INTEGER", steps: "BIGINT" });
    expect(await sql(`SELECT * FROM read_parquet('${ints}') ORDER BY _id`)).toEqual([
      { _id: "r1", atoms: 2, steps: 9_007_199_254_740_991n },
      { _id: "r2", atoms: null, steps: -3n },
      { _id: "r3", atoms: 2_147_483_647, steps: null },
    ]);
    // 2^31 does not fit int32, 1.5 no integer type.
    await expect(
      exportParquet([[{ _id: "x", atoms: 2 ** 31 }]], join(dir, "big.parquet"), {
        columns: ["atoms"],
        types: { atoms: "int32" },
      }),
    ).rejects.toThrow(ColumnTypeError);
    await expect(
      exportParquet([[{ _id: "x", steps: 1.5 }]], join(dir, "half.parquet"), {
        columns: ["steps"],
        types: { steps: "int64" },
      }),
    ).rejects.toThrow(/typed int64, but record x has 1.5/);
  });

  it("writes a valid empty file, with the columns, when nothing matches", async () => {
    const file = join(dir, "empty.parquet");
    const result = await client.materials.exportParquet(file, { query: { formula: "Unobtainium" } });
    expect(result.items).toBe(0);
    expect(Object.keys(await duckTypes(file))).toEqual([
      "_id",
      "name",
      "formula",
      "method.type",
      "method.subtype",
      "lattice.a",
      "lattice.b",
      "lattice.c",
      "derivedProperties.volume",
      "derivedProperties.density",
    ]);
    expect(await hyparquetRows(file)).toEqual([]);
  });

  it("refuses a value that does not fit its column's type, naming column, record and fix, and leaves no file", async () => {
    const records = [
      { _id: "a1", extra: 1.5 },
      { _id: "a2", extra: 2 },
      { _id: "a3", extra: "three" },
    ];
    const file = join(dir, "mismatch.parquet");
    const error = await exportParquet([records], file, { columns: ["extra"], rowGroupSize: 2 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ColumnTypeError);
    expect((error as ColumnTypeError).message).toContain(
      'Column "extra" is typed double, but record a3 has "three" (a string)',
    );
    expect((error as ColumnTypeError).message).toContain('types: { "extra": "string" }');
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(dir).filter((name) => name.includes("mismatch"))).toEqual([]);
    // With the type given, the same records are written, the numbers as text.
    await exportParquet([records], file, { columns: ["extra"], rowGroupSize: 2, types: { extra: "string" } });
    expect((await hyparquetRows(file)).map((r) => r.extra)).toEqual(["1.5", "2", "three"]);
  });

  it("checks its options before any request", async () => {
    // Nothing listens there: a request would fail with a ConnectionError, not a ValidationError.
    const offline = new Client({ baseUrl: "http://127.0.0.1:9", accountId: "a", authToken: "t" });
    await expect(
      offline.materials.exportParquet(join(dir, "x.parquet"), { compression: "zstd" as never }),
    ).rejects.toThrow(ValidationError);
    await expect(offline.materials.exportParquet(join(dir, "x.parquet"), { rowGroupSize: 0 })).rejects.toThrow(
      /rowGroupSize must be a whole number/,
    );
    await expect(
      offline.materials.exportParquet(join(dir, "x.parquet"), { types: { nope: "double" } }),
    ).rejects.toThrow(/types names "nope", which is not one of the columns/);
    await expect(
      offline.materials.exportParquet(join(dir, "x.parquet"), { types: { formula: "float" as never } }),
    ).rejects.toThrow(/use one of double, int32, int64, boolean, string/);
    await offline.close();
    expect(existsSync(join(dir, "x.parquet"))).toBe(false);
  });

  it("leaves nothing at the target when the walk is aborted midway", async () => {
    const file = join(dir, "aborted.parquet");
    const controller = new AbortController();
    const error = await client.materials
      .exportParquet(file, {
        pageSize: 100,
        rowGroupSize: 150,
        signal: controller.signal,
        onProgress: (p) => p.pages === 4 && controller.abort(),
      })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe("AbortError");
    expect(readdirSync(dir).filter((name) => name.includes("aborted"))).toEqual([]);
  });
});
