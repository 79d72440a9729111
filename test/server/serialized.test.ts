import { describe, expect, it } from "vitest";
import { SerializedRecords } from "../../src/server/http/serialized";
import { at } from "../support/checked";
import { seededRandom } from "../support/seeded-random";

// Issue 12: whole-record answers are sent from each record's kept JSON bytes.

const records = [
  { _id: "a", name: "Si", lattice: { a: 5.468, type: "FCC" }, tags: [] },
  { _id: "b", name: "Gd₂O₃ — ünïcode", formula: "Gd2O3", note: 'quote " and \\ backslash\n' },
  { _id: "c", name: "😀 astral", values: [1, 2.5, -0, 1e21, null], nested: { deep: { deeper: true } } },
];

describe("SerializedRecords", () => {
  it("writes the JSend body byte for byte as JSON.stringify does, cold and warm, in any order", () => {
    const kept = new SerializedRecords(1024 * 1024);
    const expected = (list: object[]) => Buffer.from(JSON.stringify({ status: "success", data: list }));
    expect(kept.successBody(records).equals(expected(records))).toBe(true);
    expect(kept.successBody(records).equals(expected(records))).toBe(true);
    const mixed = [at(records, 2), { _id: "d", name: "new" }, at(records, 0)];
    expect(kept.successBody(mixed).equals(expected(mixed))).toBe(true);
    expect(kept.successBody([]).equals(expected([]))).toBe(true);
  });

  it("stays correct once its budget is spent, and never answers from a record's earlier version", () => {
    const tiny = new SerializedRecords(120);
    for (let round = 0; round < 3; round++) {
      expect(tiny.successBody(records).toString()).toBe(JSON.stringify({ status: "success", data: records }));
    }
    const kept = new SerializedRecords(1024 * 1024);
    const before = { _id: "x", name: "before" };
    kept.successBody([before]);
    // A write puts a new object; the kept bytes belong to the old one.
    const after = { ...before, name: "after" };
    expect(JSON.parse(kept.successBody([after]).toString()).data[0].name).toBe("after");
  });
});

describe("SerializedRecords with a projection", () => {
  it("keeps each projection apart from the whole record and from other projections", () => {
    const kept = new SerializedRecords(1024 * 1024);
    const names = { key: '{"name":1}', select: (r: Record<string, unknown>) => ({ _id: r._id, name: r.name }) };
    const ids = { key: '{"_id":1}', select: (r: Record<string, unknown>) => ({ _id: r._id }) };
    for (let round = 0; round < 2; round++) {
      expect(kept.successBody(records).toString()).toBe(JSON.stringify({ status: "success", data: records }));
      expect(kept.successBody(records, names).toString()).toBe(
        JSON.stringify({ status: "success", data: records.map(names.select) }),
      );
      expect(kept.successBody(records, ids).toString()).toBe(
        JSON.stringify({ status: "success", data: records.map(ids.select) }),
      );
    }
  });
});

describe("SerializedRecords over seeded pages", () => {
  // ASCII-only pages take the shortcut (byte offsets from text lengths); one accented, CJK or
  // astral character anywhere in a page must not shift the records after it.
  const PIECES = ["Si", "Fe2O3", "lattice", "é", "ß", "日本", "😀", "\ud800", 'q"uote', "back\\slash", "\n"];

  it("answers pages of ASCII and non-ASCII records as JSON.stringify does, first and kept", () => {
    const generator = seededRandom(20261128);
    const random = () => generator.next();
    const word = (n: number) =>
      Array.from({ length: n }, () => PIECES[Math.floor(random() * (random() < 0.9 ? 3 : PIECES.length))]).join("");
    const all = Array.from({ length: 400 }, (_, i) => ({
      _id: `id${i}`,
      name: word(1 + Math.floor(random() * 6)),
      lattice: { a: random() * 10 },
    }));
    const kept = new SerializedRecords(1024 * 1024 * 1024);
    const names = { key: '{"name":1}', select: (r: Record<string, unknown>) => ({ _id: r._id, name: r.name }) };
    for (let round = 0; round < 60; round += 1) {
      const page = Array.from({ length: 1 + Math.floor(random() * 40) }, () => all[Math.floor(random() * all.length)]!);
      const whole = kept.successBody(page).toString();
      expect(whole, `round ${round}`).toBe(JSON.stringify({ status: "success", data: page }));
      const projected = kept.successBody(page, names).toString();
      expect(projected, `round ${round}`).toBe(JSON.stringify({ status: "success", data: page.map(names.select) }));
    }
  });
});
