import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { toDataFrame } from "../../src/frame/dataframe/to-dataframe";
import type { FrameWarning } from "../../src/frame/table/row-reader";
import { DOCUMENTED_DEFAULT_COLUMNS } from "../support/default-columns";
import { at } from "../support/checked";

const materials = JSON.parse(readFileSync(join(__dirname, "../../data/materials.json"), "utf8")) as Array<
  Record<string, any>
>;

describe("toDataFrame", () => {
  it("builds the default columns from the bundled materials", async () => {
    const df = await toDataFrame(materials);
    expect(df.shape).toEqual([materials.length, 10]);
    expect(df.columns).toEqual(DOCUMENTED_DEFAULT_COLUMNS);
    const volume = materials.map((m) => m.derivedProperties.find((p: any) => p.name === "volume").value);
    expect(df.column("derivedProperties.volume").values).toEqual(volume);
    expect(df.column("lattice.a").values).toEqual(materials.map((m) => m.lattice.a));
    expect(df.column("method.subtype").values).toEqual(materials.map((m) => m.method?.subtype ?? null));
    expect(df.dtypes).toEqual([
      "string",
      "string",
      "string",
      "string",
      "string",
      "float32",
      "float32",
      "float32",
      "float32",
      "float32",
    ]);
  });

  it("keeps values in the right columns when keys are reordered or missing", async () => {
    const rows = [
      { _id: "a", formula: "Si", name: "silicon" },
      { name: "gallium arsenide", _id: "b" },
      { formula: "C", _id: "c" },
    ];
    const df = await toDataFrame(rows, { columns: ["name", "formula"] });
    expect(df.column("name").values).toEqual(["silicon", "gallium arsenide", null]);
    expect(df.column("formula").values).toEqual(["Si", null, "C"]);
    expect(df.values).toEqual([
      ["a", "silicon", "Si"],
      ["b", "gallium arsenide", null],
      ["c", null, "C"],
    ]);
  });

  it("gives an empty DataFrame with the requested columns for zero records", async () => {
    const df = await toDataFrame([], { columns: ["formula", "lattice.a"] });
    expect(df.shape).toEqual([0, 3]);
    expect(df.columns).toEqual(["_id", "formula", "lattice.a"]);
    expect(df.column("formula").values).toEqual([]);
  });

  it("reads async iterables and reports invalid methods to onWarning", async () => {
    async function* records() {
      yield { _id: "a", method: { type: "DFT", subtype: "GGA" } };
      yield { _id: "b", method: { type: "DFT" } };
    }
    const warnings: FrameWarning[] = [];
    const df = await toDataFrame(records(), { columns: ["method"], onWarning: (w) => warnings.push(w) });
    expect(df.column("method.type").values).toEqual(["DFT", null]);
    expect(warnings.map((w) => w.ids)).toEqual([["b"]]);
  });

  it("turns nested values into JSON strings that parse back", async () => {
    const df = await toDataFrame(materials.slice(0, 3), { columns: ["lattice", "tags"] });
    expect(df.dtypes).toEqual(["string", "string", "string"]);
    expect(JSON.parse(df.column("lattice").values[0] as string)).toEqual(at(materials, 0, "the materials").lattice);
    expect(JSON.parse(df.column("tags").values[2] as string)).toEqual(at(materials, 2, "the materials").tags);
  });

  it("works with danfo operations on numeric columns", async () => {
    const df = await toDataFrame(materials, { columns: ["lattice.a"] });
    const mean = materials.reduce((s, m) => s + m.lattice.a, 0) / materials.length;
    expect(df.column("lattice.a").mean()).toBeCloseTo(mean, 6);
  });
});
