import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as apacheArrow from "apache-arrow";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { exportParquet, toArrow } from "../../src";
import { COLUMN_TYPE_RECORDS, COLUMN_TYPES, type ColumnTypeRecord } from "../../src/frame/table/column-type-registry";

// Every type of the registry, written by matframe and read back by readers it does not contain:
// apache-arrow (through Arrow IPC) and DuckDB (Parquet) must see the declared type and the same
// values, nulls as nulls. CSV is read back by pandas in column-type-registry-pandas.test.ts. A
// type added to the registry is tested here with its own examples, and must be in the guide's table.

let dir: string;
let duck: DuckDBConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "matframe-column-types-"));
  duck = await (await DuckDBInstance.create(":memory:")).connect();
});

afterAll(() => {
  duck?.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

async function sql(query: string): Promise<Record<string, unknown>[]> {
  return (await duck.runAndReadAll(query)).getRowObjectsJS() as Record<string, unknown>[];
}

/** One record per example, then one without the value: column `v` holds the examples and a null. */
function recordsOf(type: ColumnTypeRecord): Record<string, unknown>[] {
  return [...type.examples.map((v, i) => ({ _id: `r${i}`, v })), { _id: "missing" }];
}

describe("every registered column type", () => {
  for (const type of COLUMN_TYPE_RECORDS) {
    it(`${type.name}: an Arrow table read back through IPC has its Arrow type and values`, async () => {
      const table = await toArrow(recordsOf(type), { columns: ["v"], types: { v: type.name }, arrow: apacheArrow });
      const read = apacheArrow.tableFromIPC(apacheArrow.tableToIPC(table as never, "stream"));
      const field = read.schema.fields.find((f) => f.name === "v");
      expect(String(field?.type)).toBe(String(type.arrow(apacheArrow)));
      const column = read.getChild("v");
      expect(column?.nullCount).toBe(1);
      expect([...(column?.toArray() ?? [])].slice(0, type.examples.length)).toEqual([...type.examples]);
      expect(column?.get(type.examples.length)).toBeNull();
    });

    it(`${type.name}: DuckDB reads the Parquet file with its physical and converted type, values and statistics`, async () => {
      const file = join(dir, `${type.name}.parquet`);
      await exportParquet([recordsOf(type)], file, { columns: ["v"], types: { v: type.name } });
      const [schema] = await sql(`SELECT type, converted_type FROM parquet_schema('${file}') WHERE name = 'v'`);
      expect(schema).toEqual({ type: type.parquet.physical, converted_type: type.parquet.converted ?? null });
      const rows = await sql(`SELECT v FROM read_parquet('${file}')`);
      expect(rows.map((row) => row.v)).toEqual([...type.examples, null]);
      const [stats] = await sql(
        `SELECT stats_min_value, stats_max_value FROM parquet_metadata('${file}') WHERE path_in_schema = 'v'`,
      );
      expect(stats?.stats_min_value !== null && stats?.stats_max_value !== null).toBe(type.parquet.statistics);
    });

    if (type.inferred) {
      it(`${type.name}: a column of its examples, without types, is inferred as ${type.name}`, async () => {
        const file = join(dir, `${type.name}-inferred.parquet`);
        await exportParquet([recordsOf(type)], file, { columns: ["v"] });
        const [schema] = await sql(`SELECT type FROM parquet_schema('${file}') WHERE name = 'v'`);
        expect(schema?.type).toBe(type.parquet.physical);
      });
    }
  }

  it("refuses a value that does not fit, naming the type: every non-text type refuses text", async () => {
    for (const type of COLUMN_TYPE_RECORDS.filter((t) => t.name !== "string")) {
      await expect(
        exportParquet([[{ _id: "bad", v: "text" }]], join(dir, "bad.parquet"), {
          columns: ["v"],
          types: { v: type.name },
        }),
      ).rejects.toMatchObject({ code: "ERR_COLUMN_TYPE", message: expect.stringContaining(type.name) });
    }
  });
});

describe("docs/exports.md", () => {
  const guide = readFileSync(join(__dirname, "../../docs/exports.md"), "utf8");

  it("lists exactly the registry's types, as the registry describes them", () => {
    const header =
      "| type | holds | Arrow | Parquet | Parquet statistics | DataFrame dtype | pandas reads the CSV as |";
    const lines = guide.split("\n").map((line) => line.trim());
    const start = lines.indexOf(header);
    expect(start, "the column types table").toBeGreaterThan(-1);
    const rows: string[] = [];
    for (let i = start + 2; i < lines.length && lines[i]?.startsWith("|"); i++) rows.push(lines[i] ?? "");
    const expected = COLUMN_TYPE_RECORDS.map((type) => {
      const { physical, converted, statistics } = type.parquet;
      const parquet = `\`${physical}\`${converted ? ` (\`${converted}\`)` : ""}`;
      const arrow = `\`${String(type.arrow(apacheArrow))}\``;
      return `| \`${type.name}\` | ${type.holds} | ${arrow} | ${parquet} | ${statistics ? "min/max" : "none"} | \`${type.dtype}\` | \`${type.pandas}\` |`;
    });
    expect(rows).toEqual(expected);
  });

  it("names every type in the --types option's row", () => {
    const row = guide.split("\n").find((line) => line.startsWith("| `--types COL=TYPE,...`"));
    expect(row).toContain(`(${COLUMN_TYPES.map((name) => `\`${name}\``).join(", ")})`);
  });
});
