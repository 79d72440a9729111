import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { DuckDBInstance } from "@duckdb/node-api";
import { toDataFrame } from "../../src";
import { planColumns } from "../../src/frame/table/column-spec";
import { runCli } from "../cli-export/run-cli";
import { usePlatform } from "../support/platform";
import { at } from "../support/checked";

// Issue 13: `units: true` labels numeric columns with the units their records carry.

const record = {
  _id: "m1",
  formula: "Si",
  lattice: {
    a: 3.867,
    alpha: 60,
    type: "FCC",
    units: { length: "angstrom", angle: "degree" },
    vectors: { a: [3.3, 0, 1.9], units: "angstrom" },
  },
  derivedProperties: [
    { name: "volume", value: 40.9, units: "angstrom^3" },
    { name: "density", value: 2.28, units: "g/cm^3" },
  ],
};

describe("units", () => {
  it("label numbers with their record's units: lattice lengths and angles, named entries, a parent's units string", async () => {
    const df = await toDataFrame([{ _id: "m0", formula: "X" }, record], {
      units: true,
      columns: [
        "formula",
        "lattice.a",
        "lattice.alpha",
        "lattice.type",
        "lattice.vectors.a",
        "derivedProperties.density",
        "derivedProperties.volume.units",
      ],
    });
    expect(df.columns).toEqual([
      "_id",
      "formula",
      "lattice.a [angstrom]",
      "lattice.alpha [degree]",
      "lattice.type",
      "lattice.vectors.a [angstrom]",
      "derivedProperties.density [g/cm^3]",
      "derivedProperties.volume.units",
    ]);
  });

  it("are off by default, and a column without units keeps its name", async () => {
    expect((await toDataFrame([record], { columns: ["lattice.a"] })).columns).toEqual(["_id", "lattice.a"]);
    expect(
      (await toDataFrame([{ _id: "x", lattice: { a: 1 } }], { columns: ["lattice.a"], units: true })).columns,
    ).toEqual(["_id", "lattice.a"]);
  });

  it("fetch the fields that hold the units", () => {
    expect(planColumns(["lattice.a", "derivedProperties.density"], { units: true }).fields).toStrictEqual({
      _id: 1,
      "lattice.a": 1,
      "lattice.units": 1,
      "derivedProperties.name": 1,
      "derivedProperties.value": 1,
      "derivedProperties.units": 1,
      "derivedProperties.density": 1,
    });
  });
});

describe("units in exports", () => {
  const platform = usePlatform("matframe-units-");

  it("CSV headers and Parquet column names carry the units the platform stores", async () => {
    const columns = ["formula", "lattice.a", "lattice.gamma", "derivedProperties.density"];
    const csv = join(platform.dir, "units.csv");
    await platform.client.materials.exportCsv(csv, { columns, units: true });
    const rows = parse(readFileSync(csv, "utf8"), { columns: true }) as Record<string, string>[];
    expect(Object.keys(at(rows, 0, "the CSV's rows"))).toEqual([
      "_id",
      "formula",
      "lattice.a [angstrom]",
      "lattice.gamma [degree]",
      "derivedProperties.density [g/cm^3]",
    ]);
    expect(rows).toHaveLength(29);

    const parquet = join(platform.dir, "units.parquet");
    await platform.client.materials.exportParquet(parquet, { columns, units: true });
    const duck = await (await DuckDBInstance.create(":memory:")).connect();
    const described = (await duck.runAndReadAll(`DESCRIBE SELECT * FROM '${parquet}'`))
      .getRows()
      .map((r) => [r[0], r[1]]);
    expect(described).toEqual([
      ["_id", "VARCHAR"],
      ["formula", "VARCHAR"],
      ["lattice.a [angstrom]", "DOUBLE"],
      ["lattice.gamma [degree]", "DOUBLE"],
      ["derivedProperties.density [g/cm^3]", "DOUBLE"],
    ]);
    duck.closeSync();
  });

  it("the CLI's --units labels the header; refused for structure formats", async () => {
    const out = await runCli([
      "export",
      "--columns",
      "formula,derivedProperties.volume",
      "--units",
      "--output",
      "-",
      "--quiet",
    ]);
    expect(out.code).toBe(0);
    expect(out.stdout.split("\n")[0]).toBe("_id,formula,derivedProperties.volume [angstrom^3]");
    const refused = await runCli(["export", "--format", "cif", "--units", "--output", join(platform.dir, "s")]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--units labels table columns/);
  });
});
