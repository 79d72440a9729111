import { describe, expect, it } from "vitest";
import { namedEntryIndex } from "../../src/frame/table/column-spec";
import { compileGetter } from "../../src/frame/table/getters";

const get = (path: string, record: unknown): unknown => {
  const segments = path.split(".");
  return compileGetter(segments, namedEntryIndex(segments))(record);
};

const record = {
  _id: "x1",
  formula: "Fe2O3",
  lattice: { a: 5.03, units: { length: "angstrom" } },
  derivedProperties: [
    { name: "volume", value: 100.5, units: "angstrom^3" },
    { name: "density", value: 5.26 },
    { name: "symmetry", spaceGroupSymbol: "R-3c", tolerance: { value: 0.3 } },
  ],
  tags: ["3D", "oxide"],
  basis: {
    elements: [
      { id: 0, value: "Fe" },
      { id: 1, value: "O" },
    ],
  },
  deep: { a: { b: { c: { d: 4 } } } },
  numericKeys: { "0": "zero" },
};

describe("compileGetter", () => {
  it("reads top-level, nested and deeply nested fields", () => {
    expect(get("formula", record)).toBe("Fe2O3");
    expect(get("lattice.a", record)).toBe(5.03);
    expect(get("lattice.units.length", record)).toBe("angstrom");
    expect(get("deep.a.b.c.d", record)).toBe(4);
    expect(get("lattice", record)).toBe(record.lattice);
  });

  it("gives undefined for anything missing on the way", () => {
    expect(get("name", record)).toBeUndefined();
    expect(get("lattice.b", record)).toBeUndefined();
    expect(get("owner._id", record)).toBeUndefined();
    expect(get("formula.length", record)).toBeUndefined();
    expect(get("deep.a.x.c.d", record)).toBeUndefined();
    expect(get("a", null)).toBeUndefined();
    expect(get("a.b", 7)).toBeUndefined();
  });

  it("picks named entries by name: the value when last, the entry when deeper", () => {
    expect(get("derivedProperties.volume", record)).toBe(100.5);
    expect(get("derivedProperties.density", record)).toBe(5.26);
    expect(get("derivedProperties.volume.units", record)).toBe("angstrom^3");
    expect(get("derivedProperties.symmetry.spaceGroupSymbol", record)).toBe("R-3c");
    expect(get("derivedProperties.symmetry", record)).toBeUndefined();
    expect(get("derivedProperties.bandGap", record)).toBeUndefined();
  });

  it("picks by name only in named-entry arrays: the projection could not fetch a name from any other", () => {
    expect(get("basis.elements.value", record)).toBeUndefined();
    expect(get("tags.oxide", record)).toBeUndefined();
  });

  it("indexes arrays with numeric segments and objects with numeric keys", () => {
    expect(get("tags.1", record)).toBe("oxide");
    expect(get("tags.2", record)).toBeUndefined();
    expect(get("basis.elements.1.value", record)).toBe("O");
    expect(get("numericKeys.0", record)).toBe("zero");
  });

  it("never returns inherited members such as constructor or toString", () => {
    expect(get("constructor", record)).toBeUndefined();
    expect(get("lattice.toString", record)).toBeUndefined();
    expect(get("constructor.name", record)).toBeUndefined();
    expect(get("tags.length", record)).toBeUndefined();
  });

  it("is independent of key order", () => {
    const a = { x: 1, y: { z: 2 } };
    const b = { y: { z: 2 }, x: 1 };
    expect(get("y.z", a)).toBe(get("y.z", b));
  });
});
