import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Query } from "mingo";
import { describe, expect, it } from "vitest";
import { toDataFrame } from "../../src";
import { makeFieldSelector } from "../../src/server/query/projection";
import { DEFAULT_COLUMNS, planColumns } from "../../src/frame/table/column-spec";
import { ValidationError } from "../../src/errors";
import { DOCUMENTED_DEFAULT_COLUMNS } from "../support/default-columns";

describe("planColumns", () => {
  it("uses the documented default columns, _id first", () => {
    const plan = planColumns();
    expect(plan.names).toEqual(DOCUMENTED_DEFAULT_COLUMNS);
    expect(plan.names).toEqual([...DEFAULT_COLUMNS]);
    expect(plan.fields).toEqual({
      _id: 1,
      name: 1,
      formula: 1,
      method: 1,
      "lattice.a": 1,
      "lattice.b": 1,
      "lattice.c": 1,
      "derivedProperties.name": 1,
      "derivedProperties.value": 1,
      "derivedProperties.volume": 1,
      "derivedProperties.density": 1,
    });
  });

  it("puts _id first when it is not named", () => {
    expect(planColumns(["formula", "lattice.a"]).names).toEqual(["_id", "formula", "lattice.a"]);
  });

  it("keeps _id where the caller put it", () => {
    expect(planColumns(["formula", "_id"]).names).toEqual(["formula", "_id"]);
  });

  it("leaves the _id column out on purpose with -_id, still fetching it to name rows in warnings", () => {
    const plan = planColumns(["formula", "-_id"]);
    expect(plan.names).toEqual(["formula"]);
    expect(plan.fields).toEqual({ _id: 1, formula: 1 });
  });

  it("expands a method column into type and subtype, in place", () => {
    expect(planColumns(["formula", "method", "name"]).names).toEqual([
      "_id",
      "formula",
      "method.type",
      "method.subtype",
      "name",
    ]);
    const nested = planColumns(["model.method"]);
    expect(nested.names).toEqual(["_id", "model.method.type", "model.method.subtype"]);
    expect(nested.columns[1]).toMatchObject({ method: { path: "model.method", part: "type" } });
    expect(nested.fields).toEqual({ _id: 1, "model.method": 1 });
  });

  it("fetches the whole method object for a single method column", () => {
    const plan = planColumns(["method.subtype"]);
    expect(plan.columns[1]).toMatchObject({ method: { path: "method", part: "subtype" } });
    expect(plan.fields).toEqual({ _id: 1, method: 1 });
  });

  it("keeps a repeated column once, at its first place", () => {
    expect(planColumns(["method.type", "method", "formula", "formula"]).names).toEqual([
      "_id",
      "method.type",
      "method.subtype",
      "formula",
    ]);
  });

  it("collapses a parent and its child to the parent in the projection", () => {
    const plan = planColumns(["lattice.a", "lattice", "owner._id", "lattice.alpha"]);
    expect(plan.names).toEqual(["_id", "lattice.a", "lattice", "owner._id", "lattice.alpha"]);
    expect(plan.fields).toEqual({ _id: 1, lattice: 1, "owner._id": 1 });
  });

  it("does not collapse a sibling that merely shares a prefix", () => {
    expect(planColumns(["lattice", "latticeType"]).fields).toEqual({ _id: 1, lattice: 1, latticeType: 1 });
  });

  it("fetches of a named entry its name and what the column reads, and stops at array indexes", () => {
    expect(planColumns(["derivedProperties.volume", "derivedProperties.symmetry.spaceGroupSymbol"]).fields).toEqual({
      _id: 1,
      "derivedProperties.name": 1,
      "derivedProperties.value": 1,
      "derivedProperties.spaceGroupSymbol": 1,
      // The column's own path, for a record whose derivedProperties is an object.
      "derivedProperties.volume": 1,
      "derivedProperties.symmetry.spaceGroupSymbol": 1,
    });
    expect(planColumns(["derivedProperties.volume.0"]).fields).toEqual({ _id: 1, derivedProperties: 1 });
    // A column per element: the array whole rather than dozens of paths.
    const elements = ["H", "He", "Li", "Be", "B", "C", "N", "O"].map((e) => `derivedProperties.elemental_ratio.${e}`);
    expect(planColumns(elements).fields).toEqual({ _id: 1, derivedProperties: 1 });
    expect(Object.keys(planColumns(elements.slice(0, 4)).fields)).toHaveLength(1 + 3 + 4);
    expect(planColumns(["derivedProperties.volume", "derivedProperties"]).fields).toEqual({
      _id: 1,
      derivedProperties: 1,
    });
    expect(planColumns(["tags.0", "basis.elements.1.value"]).fields).toEqual({
      _id: 1,
      tags: 1,
      "basis.elements": 1,
    });
  });

  describe("a table from the records as the server projects them equals the table from whole records", () => {
    const bundled = JSON.parse(readFileSync(join(__dirname, "../../data/materials.json"), "utf8")) as object[];
    const odd = [
      // derivedProperties as an object: the columns read its keys.
      {
        _id: "object-form",
        derivedProperties: {
          volume: 5,
          density: { value: 2, units: "kg/m^3" },
          symmetry: { spaceGroupSymbol: "P1", tolerance: { value: 0.1, units: "bohr" } },
        },
      },
      // Entries that are not objects, a repeated name (the first wins), entries without a value.
      {
        _id: "odd-entries",
        derivedProperties: [
          1,
          null,
          { name: "volume", units: "angstrom^3" },
          { name: "volume", value: 7, units: "bohr^3" },
          { name: "p-norm", degree: 2, value: 0.5, units: "none" },
          { name: "symmetry", tolerance: { value: 0.01, units: "angstrom" }, spaceGroupSymbol: "Fm-3m" },
        ],
      },
    ];
    // The odd records first: a column's unit label comes from the first records that carry one.
    const records = [...odd, ...bundled] as Record<string, unknown>[];
    const columns = [
      ...DEFAULT_COLUMNS,
      "derivedProperties.symmetry.spaceGroupSymbol",
      "derivedProperties.symmetry.tolerance.value",
      "derivedProperties.symmetry.tolerance",
      "derivedProperties.elemental_ratio.Si",
      "derivedProperties.p-norm.2",
      "derivedProperties.volume.units",
      "derivedProperties.density.units",
    ];
    // All together, and each alone (alone, a column's units come only from what it fetches itself).
    const sets = [columns, ...columns.map((column) => [column])];
    it.each([false, true])("units: %s", async (units) => {
      for (const set of sets) {
        const plan = planColumns(set, { units });
        const project = makeFieldSelector(plan.fields);
        const options = { columns: set, units, onWarning: () => {} };
        const whole = await toDataFrame(records, options);
        const projected = await toDataFrame(records.map(project), options);
        expect(projected.columns, set.join()).toEqual(whole.columns);
        expect(projected.values, set.join()).toEqual(whole.values);
        // mingo, a MongoDB query engine we did not write, projects the records as the server does.
        const byMingo = new Query({}).find<Record<string, unknown>>(records, plan.fields).all();
        expect(byMingo, set.join()).toEqual(records.map(project));
      }
      // The projection really leaves bytes behind (units, elements, degrees of other entries).
      const project = makeFieldSelector(planColumns(DEFAULT_COLUMNS, { units }).fields);
      const whole = makeFieldSelector(planColumns([...DEFAULT_COLUMNS, "derivedProperties"], { units }).fields);
      expect(JSON.stringify(records.map(project)).length).toBeLessThan(0.9 * JSON.stringify(records.map(whole)).length);
    });
  });

  it.each([
    [[], "at least one column"],
    [["-_id"], "at least one column"],
    [[""], "non-empty"],
    [["lattice..a"], "empty segment"],
    [[".a"], "empty segment"],
    [["a."], "empty segment"],
    [[" formula"], "spaces"],
    [["$where"], '"$"'],
    [["a.__proto__"], "__proto__"],
    [["constructor"], "refuses as a field name"],
    [["lattice.prototype"], "refuses as a field name"],
    [["0.a"], "array index"],
    [[42], "non-empty dotted path"],
    [["_id", "-_id"], "keep one"],
  ])("rejects %j with a ValidationError", (columns, message) => {
    let thrown: unknown;
    try {
      planColumns(columns as string[]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect((thrown as ValidationError).code).toBe("ERR_INVALID_OPTION");
    expect((thrown as ValidationError).option).toBe("columns");
    expect((thrown as Error).message).toContain(message);
  });
});
