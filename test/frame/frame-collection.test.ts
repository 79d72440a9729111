import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import type { FrameWarning } from "../../src/frame/table/row-reader";
import { Client, Collection, type Progress } from "../../src";
import { usePlatform } from "../support/platform";
import { at } from "../support/checked";

// Records as a platform might hold them: keys in different orders, fields missing, names that
// need CSV quoting, one method that is not a method.
const records = [
  {
    _id: "m01",
    name: "Fe2O3, hematite",
    formula: "Fe2O3",
    lattice: { a: 5.03, b: 5.03, c: 13.7 },
    method: { type: "DFT", subtype: "GGA" },
  },
  { formula: "Si", _id: "m02", lattice: { c: 3.87, b: 3.87, a: 3.87 }, name: 'silicon "diamond"\nsecond line' },
  {
    _id: "m03",
    formula: "C",
    derivedProperties: [
      { name: "density", value: 2.27 },
      { name: "volume", value: 10.5 },
    ],
    method: "DFT",
  },
  { _id: "m04", name: "empty", lattice: { a: 1 }, extra: { nested: [1, 2] } },
];

const platform = usePlatform("matframe-frame-", { data: records });

describe("Client", () => {
  it("is one Client whose collections read tables too", () => {
    expect(platform.client).toBeInstanceOf(Client);
    expect(platform.client.materials).toBeInstanceOf(Collection);
    expect(platform.client.collection("materials")).toBeInstanceOf(Collection);
    expect(typeof platform.client.materials.toDataFrame).toBe("function");
  });
});

describe("FrameCollection.toDataFrame", () => {
  it("reads the default columns over HTTP, page by page, with progress and warnings", async () => {
    const progress: Progress[] = [];
    const warnings: FrameWarning[] = [];
    const df = await platform.client.materials.toDataFrame({
      pageSize: 3,
      onProgress: (p) => progress.push(p),
      onWarning: (w) => warnings.push(w),
    });
    expect(df.shape).toEqual([4, 10]);
    expect(df.column("_id").values).toEqual(["m01", "m02", "m03", "m04"]);
    expect(df.column("lattice.a").values).toEqual([5.03, 3.87, null, 1]);
    expect(df.column("lattice.c").values).toEqual([13.7, 3.87, null, null]);
    expect(df.column("derivedProperties.volume").values).toEqual([null, null, 10.5, null]);
    expect(df.column("method.type").values).toEqual(["DFT", null, null, null]);
    expect(progress).toEqual([
      { items: 3, pages: 1 },
      { items: 4, pages: 2 },
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ rows: 1, ids: ["m03"] });
  });

  it("applies query, sort and maxItems, and fetches only the needed fields", async () => {
    const df = await platform.client.materials.toDataFrame({
      query: { formula: { $in: ["Si", "C", "Fe2O3"] } },
      sort: { formula: 1 },
      columns: ["formula", "extra"],
      maxItems: 2,
    });
    expect(df.values).toEqual([
      ["m03", "C", null],
      ["m01", "Fe2O3", null],
    ]);
  });

  it("gives an empty DataFrame with the columns when nothing matches", async () => {
    const df = await platform.client.materials.toDataFrame({
      query: { formula: "Unobtainium" },
      columns: ["formula", "method"],
    });
    expect(df.shape).toEqual([0, 4]);
    expect(df.columns).toEqual(["_id", "formula", "method.type", "method.subtype"]);
  });

  it("turns nested values into JSON strings and leaves _id out on request, with keyset paging", async () => {
    const warnings: FrameWarning[] = [];
    const df = await platform.client.materials.toDataFrame({
      columns: ["-_id", "extra", "method.subtype"],
      paging: "keyset",
      pageSize: 2,
      onWarning: (w) => warnings.push(w),
    });
    expect(df.columns).toEqual(["extra", "method.subtype"]);
    expect(df.column("extra").values).toEqual([null, null, null, '{"nested":[1,2]}']);
    // Without an _id column, warnings still name the rows.
    expect(at(warnings, 0, "the warnings").ids).toEqual(["m03"]);
  });

  it("rejects bad options before any request", async () => {
    await expect(platform.client.materials.toDataFrame({ columns: ["a..b"] })).rejects.toMatchObject({
      code: "ERR_INVALID_OPTION",
    });
    await expect(platform.client.materials.toDataFrame({ pageSize: 0 })).rejects.toMatchObject({
      code: "ERR_INVALID_OPTION",
    });
  });
});

describe("FrameCollection.exportCsv / exportNdjson", () => {
  it("writes a CSV file that reads back through csv-parse", async () => {
    const target = join(platform.dir, "materials.csv");
    const result = await platform.client.materials.exportCsv(target, {
      columns: ["name", "formula", "lattice.a", "derivedProperties.density"],
      pageSize: 2,
      onWarning: () => undefined,
    });
    expect(result).toMatchObject({ items: 4, pages: 2, path: target });
    expect(parse(readFileSync(target, "utf8"))).toEqual([
      ["_id", "name", "formula", "lattice.a", "derivedProperties.density"],
      ["m01", "Fe2O3, hematite", "Fe2O3", "5.03", ""],
      ["m02", 'silicon "diamond"\nsecond line', "Si", "3.87", ""],
      ["m03", "", "C", "", "2.27"],
      ["m04", "empty", "", "1", ""],
    ]);
  });

  it("refuses to overwrite without force and makes no request", async () => {
    const target = join(platform.dir, "materials.csv");
    await expect(platform.client.materials.exportCsv(target)).rejects.toMatchObject({ code: "ERR_TARGET_EXISTS" });
    const again = await platform.client.materials.exportCsv(target, { force: true, columns: ["formula"] });
    expect(again.items).toBe(4);
  });

  it("writes NDJSON keyed by column", async () => {
    const target = join(platform.dir, "materials.ndjson");
    const warnings: FrameWarning[] = [];
    await platform.client.materials.exportNdjson(target, {
      columns: ["method", "lattice"],
      onWarning: (w) => warnings.push(w),
    });
    const lines = readFileSync(target, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines[0]).toEqual({
      _id: "m01",
      "method.type": "DFT",
      "method.subtype": "GGA",
      lattice: { a: 5.03, b: 5.03, c: 13.7 },
    });
    expect(lines[2]).toEqual({ _id: "m03", "method.type": null, "method.subtype": null, lattice: null });
    expect(at(warnings, 0, "the warnings").ids).toEqual(["m03"]);
    expect(readdirSync(platform.dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});
