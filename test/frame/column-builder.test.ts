import { describe, expect, it } from "vitest";
import { ColumnBuilder, columnOf } from "../../src/frame/table/column-builder";
import { planColumns } from "../../src/frame/table/column-spec";
import { InvalidMethodError } from "../../src/errors";
import { at, defined } from "../support/checked";

function build(records: unknown[], columns?: string[], strict = false) {
  const builder = new ColumnBuilder(planColumns(columns), { strict });
  builder.addPage(records);
  const built = builder.finish();
  // Every row has one cell per column; the checks below read the table by column.
  for (const row of built.table) expect(row).toHaveLength(built.names.length);
  return { ...built, data: Object.fromEntries(built.names.map((name) => [name, columnOf(built, name)])) };
}

describe("ColumnBuilder", () => {
  it("puts each value in its own column whatever the key order, and missing as null", () => {
    const built = build(
      [
        { _id: "a", formula: "Si", lattice: { a: 3.8, c: 3.8 } },
        { lattice: { c: 5.1, a: 4.1 }, formula: "GaAs", _id: "b" },
        { _id: "c", name: "only a name" },
      ],
      ["formula", "name", "lattice.a", "lattice.c"],
    );
    expect(built.names).toEqual(["_id", "formula", "name", "lattice.a", "lattice.c"]);
    expect(built.data).toEqual({
      _id: ["a", "b", "c"],
      formula: ["Si", "GaAs", null],
      name: [null, null, "only a name"],
      "lattice.a": [3.8, 4.1, null],
      "lattice.c": [3.8, 5.1, null],
    });
    expect(Object.keys(built.data)).toEqual(built.names);
    expect(built.rows).toBe(3);
  });

  it("keeps numbers as numbers and turns objects and arrays into JSON strings", () => {
    const built = build(
      [{ _id: "a", lattice: { a: 1, units: { length: "angstrom" } }, tags: ["3D", "bulk"], n: 2, ok: true }],
      ["lattice", "tags", "n", "ok", "lattice.units"],
    );
    expect(built.data.lattice).toEqual(['{"a":1,"units":{"length":"angstrom"}}']);
    expect(built.data.tags).toEqual(['["3D","bulk"]']);
    expect(built.data["lattice.units"]).toEqual(['{"length":"angstrom"}']);
    expect(built.data.n).toEqual([2]);
    expect(built.data.ok).toEqual([true]);
    expect(built.dtypes).toEqual(["string", "string", "string", "int32", "boolean", "string"]);
  });

  it("decides dtypes from all rows, not the first ones", () => {
    const records: unknown[] = [];
    for (let i = 0; i < 600; i++) records.push({ _id: `m${i}`, x: i % 3 === 0 ? null : i * 0.5, n: i, b: i % 2 === 0 });
    records.push({ _id: "last", x: "n/a", n: 2.5, b: null });
    const built = build(records, ["x", "n", "b"]);
    expect(built.dtypes).toEqual(["string", "string", "float32", "boolean"]);
    // A string column holds strings (or null) only, so danfo's string methods work on it.
    const x = defined(built.data.x, "column x");
    const n = defined(built.data.n, "column n");
    const b = defined(built.data.b, "column b");
    expect(x[1]).toBe("0.5");
    expect(x[0]).toBeNull();
    expect(x[600]).toBe("n/a");
    expect(n[600]).toBe(2.5);
    expect(b[600]).toBeNull();
  });

  it.each([
    [[1, 2, 3], "int32"],
    [[1, null, 3], "float32"],
    [[1, 2.5], "float32"],
    [[2 ** 40], "float32"],
    [[true, false], "boolean"],
    [[true, 1], "string"],
    [[null, null], "float32"],
    [[undefined], "float32"],
    [["a", 1], "string"],
  ])("%j -> %s", (values, dtype) => {
    const built = build(
      values.map((v, i) => ({ _id: String(i), v })),
      ["v"],
    );
    expect(built.dtypes[1]).toBe(dtype);
  });

  it("fills method columns from valid methods and nulls from invalid ones, with a warning", () => {
    const built = build(
      [
        { _id: "ok", method: { type: "pseudopotential", subtype: "paw", data: { pseudo: [] } } },
        { _id: "none" },
        { _id: "bad1", method: "DFT" },
        { _id: "bad2", method: { type: "DFT" } },
        { _id: "bad3", method: { type: "DFT", subtype: 7 } },
      ],
      ["method"],
    );
    expect(built.data["method.type"]).toEqual(["pseudopotential", null, null, null, null]);
    expect(built.data["method.subtype"]).toEqual(["paw", null, null, null, null]);
    expect(built.warnings).toHaveLength(1);
    const warning = at(built.warnings, 0, "the warnings");
    expect(warning).toMatchObject({
      code: "INVALID_METHOD",
      path: "method",
      rows: 3,
      ids: ["bad1", "bad2", "bad3"],
    });
    expect(warning.message).toContain("3 rows have an invalid method");
    expect(warning.message).toContain("bad1, bad2, bad3");
  });

  it("lists only some ids when many rows are invalid", () => {
    const records = Array.from({ length: 40 }, (_, i) => ({ _id: `id${i}`, method: { type: i } }));
    const warning = at(build(records, ["method.type"]).warnings, 0, "the warnings");
    expect(warning.rows).toBe(40);
    expect(warning.ids).toEqual(["id0", "id1", "id2", "id3", "id4"]);
    expect(warning.message).toContain("and 35 more");
  });

  it("checks a nested method object (model.method)", () => {
    const built = build(
      [
        { _id: "a", model: { method: { type: "localorbital", subtype: "pople" } } },
        { _id: "b", model: { method: { subtype: "pople" } } },
      ],
      ["model.method"],
    );
    expect(built.data["model.method.type"]).toEqual(["localorbital", null]);
    expect(built.warnings[0]).toMatchObject({ path: "model.method", ids: ["b"] });
  });

  it("throws InvalidMethodError on an invalid method with strict: true", () => {
    const records = [
      { _id: "ok", method: { type: "a", subtype: "b" } },
      { _id: "bad", method: ["a", "b"] },
    ];
    let thrown: unknown;
    try {
      build(records, ["method"], true);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidMethodError);
    expect(thrown).toMatchObject({ code: "ERR_INVALID_METHOD", id: "bad", path: "method" });
    expect((thrown as Error).message).toContain("material bad (row 1)");
  });

  it("gives empty columns and no warnings for zero rows", () => {
    const built = build([], ["formula", "method"]);
    expect(built.rows).toBe(0);
    expect(built.data).toEqual({ _id: [], formula: [], "method.type": [], "method.subtype": [] });
    expect(built.warnings).toEqual([]);
  });
});
