import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { parse } from "csv-parse/sync";
import { tableFromIPC, tableToIPC } from "apache-arrow";
import { DuckDBInstance } from "@duckdb/node-api";
import { toArrow } from "../../src";
import { usePlatform } from "../support/platform";
import { at } from "../support/checked";

const platform = usePlatform("matframe-arrow-", { synthetic: 300 });

describe("toArrow", () => {
  it("gives an apache-arrow Table with the export's typed columns and the CSV's values", async () => {
    const columns = ["formula", "lattice.a", "isSynthetic", "method", "tags"];
    const table = await platform.client.materials.toArrow({ columns });
    const csvFile = join(platform.dir, "same.csv");
    await platform.client.materials.exportCsv(csvFile, { columns, escapeFormulas: false });
    const csv = parse(readFileSync(csvFile, "utf8"), { columns: true }) as Record<string, string>[];

    expect(table.numRows).toBe(platform.server.materialCount);
    expect(table.schema.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual([
      "_id:Utf8",
      "formula:Utf8",
      "lattice.a:Float64",
      "isSynthetic:Bool",
      "method.type:Utf8",
      "method.subtype:Utf8",
      "tags:Utf8",
    ]);
    expect(table.getChild("isSynthetic")!.nullCount).toBe(29);
    for (const name of Object.keys(at(csv, 0, "the CSV's rows"))) {
      const column = table.getChild(name)!;
      for (const [i, row] of csv.entries()) {
        const value = column.get(i);
        expect(value === null ? "" : String(value), `${row._id} ${name}`).toBe(row[name]);
      }
    }
  });

  it("is apache-arrow's own Table, which serialises to Arrow IPC, and agrees with DuckDB on the Parquet export", async () => {
    // By default a Table of the CommonJS copy of apache-arrow, which matframe requires...
    const table = await platform.client.materials.toArrow({ columns: ["formula", "derivedProperties.density"] });
    const cjs = createRequire(__filename)("apache-arrow") as typeof import("apache-arrow");
    expect(cjs.tableFromIPC(cjs.tableToIPC(table as never, "stream")).numRows).toBe(table.numRows);
    // ...or of the caller's own copy (here the ES module one this test imports).
    const mine = await platform.client.materials.toArrow({
      columns: ["formula", "derivedProperties.density"],
      arrow: await import("apache-arrow"),
    });
    expect(tableFromIPC(tableToIPC(mine as never, "stream")).numRows).toBe(table.numRows);
    const parquet = join(platform.dir, "same.parquet");
    await platform.client.materials.exportParquet(parquet, { columns: ["formula", "derivedProperties.density"] });
    const duck = await (await DuckDBInstance.create(":memory:")).connect();
    const [{ total }] = (
      await duck.runAndReadAll(`SELECT sum("derivedProperties.density") AS total FROM read_parquet('${parquet}')`)
    ).getRowObjectsJS() as [{ total: number }];
    duck.closeSync();
    const density = table.getChild("derivedProperties.density")!.toArray() as Float64Array;
    expect(Array.from(density).reduce((a, b) => a + b, 0)).toBeCloseTo(total, 6);
  });

  it("types a column from every value it read: numbers then text make a text column", async () => {
    const table = await toArrow([{ _id: "a", x: 1 }, { _id: "b", x: "two" }, { _id: "c" }], { columns: ["x"] });
    expect(String(at(table.schema.fields, 1, "the fields").type)).toBe("Utf8");
    expect(table.getChild("x")!.toArray()).toEqual(["1", "two", null]);
  });
});
