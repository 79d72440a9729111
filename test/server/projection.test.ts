import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Query } from "mingo";
import type { ServerHandle } from "../../src/server";
import { makeFieldSelector } from "../../src/server/query/projection";
import { errorMessage, listMaterials, login, startTestServer, type Session } from "./helpers";

let server: ServerHandle;
let session: Session;
let all: any[];

async function page(projection: unknown, query: unknown = {}): Promise<any[]> {
  const res = await listMaterials(server, session, query, projection);
  if (res.status !== 200) throw new Error(`${JSON.stringify(projection)}: ${res.status} ${res.text}`);
  return res.body.data;
}

beforeAll(async () => {
  server = await startTestServer({ synthetic: 300 });
  session = await login(server);
  all = [];
  for (let skip = 0; ; skip += 500) {
    const records = await page({ skip, limit: 500 });
    all.push(...records);
    if (records.length < 500) break;
  }
});
afterAll(() => server.close());

describe("fields", () => {
  it("includes dotted paths and keeps _id", async () => {
    const [first] = await page({ fields: { formula: 1, "lattice.a": 1 }, limit: 1 });
    expect(first).toEqual({ _id: all[0]._id, formula: all[0].formula, lattice: { a: all[0].lattice.a } });
  });

  it("drops _id when asked", async () => {
    const [first] = await page({ fields: { formula: 1, _id: 0 }, limit: 1 });
    expect(first).toEqual({ formula: all[0].formula });
  });

  it("projects a path through an array of objects", async () => {
    const [first] = await page({ fields: { "derivedProperties.name": 1 }, limit: 1 });
    expect(first).toEqual({
      _id: all[0]._id,
      derivedProperties: all[0].derivedProperties.map((p: { name: string }) => ({ name: p.name })),
    });
    expect(first.derivedProperties.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["volume", "density", "symmetry"]),
    );
  });

  it("projects (and excludes) as mingo, a MongoDB engine, does on awkward shapes: arrays of arrays, scalars, nulls, missing parents", () => {
    const records = [
      { _id: "a", p: [{ x: 1, y: 2 }, 3, null, [{ x: 4 }], { y: 5 }], q: { r: { s: 1, t: 2 }, u: [1, 2] } },
      { _id: "b", p: { x: { z: 1 }, y: null }, q: null },
      { _id: "c", p: "text", q: { r: [{ s: [{ t: 1 }, 2] }, { s: { t: 3 } }] } },
      { _id: "d" },
      { _id: "e", p: [], q: { r: [] }, "constructor-like": { toString: 1 } },
    ];
    const projections: Record<string, 0 | 1>[] = [
      { "p.x": 1 },
      { "p.x": 1, "p.y": 1, "q.r.s": 1 },
      { "q.r.s.t": 1, _id: 0 },
      { p: 1, "q.u": 1 },
      { "p.x.z": 1, "constructor-like.toString": 1 },
      { "p.x": 0, "q.r.s": 0 },
      { p: 0, _id: 0 },
    ];
    for (const fields of projections) {
      const ours = records.map(makeFieldSelector(fields));
      expect(ours, JSON.stringify(fields)).toEqual(new Query({}).find(records, fields).all());
    }
    // Each page of a walk names the same projection: it is compiled once, not per request.
    expect(makeFieldSelector({ "p.x": 1 })).toBe(makeFieldSelector({ "p.x": 1 }));
    expect(makeFieldSelector({ "p.x": 1 })).not.toBe(makeFieldSelector({ "p.y": 1 }));
  });

  it("excludes dotted paths and leaves the rest", async () => {
    const [first] = await page({ fields: { basis: 0, "lattice.units": 0 }, limit: 1 });
    const { basis: _basis, ...rest } = all[0];
    const { units: _units, ...lattice } = all[0].lattice;
    expect(first).toEqual({ ...rest, lattice });
  });

  it("treats an empty fields object, or none, as the whole record", async () => {
    expect(await page({ fields: {}, limit: 3 })).toEqual(all.slice(0, 3));
    expect(await page({ limit: 3 })).toEqual(all.slice(0, 3));
  });

  it("refuses mixing inclusion and exclusion, bad flags and prototype keys", async () => {
    const bad = [
      { fields: { formula: 1, name: 0 } },
      { fields: { formula: 2 } },
      { fields: { formula: true } },
      { fields: ["formula"] },
      { fields: { "__proto__.x": 1 } },
      JSON.parse('{"fields": {"__proto__": 1}}'),
      JSON.parse('{"sort": {"__proto__": 1}}'),
      { fields: { "a..b": 1 } },
    ];
    for (const projection of bad) {
      const res = await listMaterials(server, session, {}, projection);
      expect(errorMessage(res, 400), JSON.stringify(projection)).toMatch(/fields|not allowed|dotted path/);
      expect(({} as any).x).toBeUndefined();
    }
  });
});

describe("sort, skip and limit", () => {
  it("sorts by several keys, ties broken by _id", async () => {
    const records = await page({
      sort: { formula: 1, "lattice.a": -1 },
      limit: 500,
      fields: { formula: 1, "lattice.a": 1 },
    });
    expect(records.length).toBe(329);
    for (let i = 1; i < records.length; i += 1) {
      const [a, b] = [records[i - 1], records[i]];
      const order =
        a.formula < b.formula ? -1 : a.formula > b.formula ? 1 : b.lattice.a - a.lattice.a || (a._id < b._id ? -1 : 1);
      expect(order, `${JSON.stringify(a)} before ${JSON.stringify(b)}`).toBeLessThan(0);
    }
  });

  it("sorts by _id descending", async () => {
    const records = await page({ sort: { _id: -1 }, limit: 5 });
    expect(records.map((r) => r._id)).toEqual(
      all
        .slice(-5)
        .reverse()
        .map((r) => r._id),
    );
  });

  it("puts records missing the sort field first (ascending), as MongoDB does", async () => {
    const records = await page({ sort: { "method.subtype": 1 }, limit: 500, fields: { method: 1 } });
    const firstWithMethod = records.findIndex((r) => r.method !== undefined);
    expect(firstWithMethod).toBeGreaterThan(0);
    expect(records.slice(firstWithMethod).every((r) => r.method !== undefined)).toBe(true);
  });

  it("defaults to limit 50 and skip 0", async () => {
    const records = await page({});
    expect(records.map((r) => r._id)).toEqual(all.slice(0, 50).map((r) => r._id));
  });

  it("skips past the end to an empty page", async () => {
    expect(await page({ skip: 10_000 })).toEqual([]);
  });

  it("refuses limit outside 1..500, bad skip, bad sort and unknown keys", async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ limit: 0 }, /limit/],
      [{ limit: 501 }, /limit/],
      [{ limit: 1.5 }, /limit/],
      [{ limit: "10" }, /limit/],
      [{ skip: -1 }, /skip/],
      [{ skip: 0.5 }, /skip/],
      [{ skip: "1" }, /skip/],
      [{ sort: { formula: 2 } }, /sort/],
      [{ sort: { formula: "asc" } }, /sort/],
      [{ sort: ["formula"] }, /sort/],
      [{ sort: { constructor: 1 } }, /not allowed/],
      [{ order: { formula: 1 } }, /unknown key/],
    ];
    for (const [projection, message] of cases) {
      const res = await listMaterials(server, session, {}, projection);
      expect(errorMessage(res, 400), JSON.stringify(projection)).toMatch(message);
    }
  });
});

describe("sort on values of mixed types", () => {
  it("orders missing, numbers, strings, objects, arrays, booleans (MongoDB), objects by content, ties by _id", async () => {
    const records = [
      { _id: "r1", v: [1, 2] },
      { _id: "r2", v: { b: 1 } },
      { _id: "r3", v: true },
      { _id: "r4", v: "x" },
      { _id: "r5", v: 3 },
      { _id: "r6" },
      { _id: "r7", v: { a: 2 } },
      { _id: "r8", v: { a: 2 } },
      { _id: "r9", v: [0] },
    ];
    const mixed = await startTestServer({ data: records });
    try {
      const res = await listMaterials(mixed, await login(mixed), {}, { sort: { v: 1 }, fields: { _id: 1 } });
      // r1/r9 are arrays: an array sorts ascending by its smallest element (1 and 0), as MongoDB does.
      expect(res.body.data.map((r: { _id: string }) => r._id)).toEqual([
        "r6",
        "r9",
        "r1",
        "r5",
        "r4",
        "r7",
        "r8",
        "r2",
        "r3",
      ]);
    } finally {
      await mixed.close();
    }
  });
});
