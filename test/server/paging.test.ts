import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { listMaterials, login, startTestServer, type Session } from "./helpers";

// The specification's paging rule: limit=N, then skip=N and limit=N, ... must visit every
// record once. Checked over a synthetic collection big enough for many pages.
const SYNTHETIC = 3000;

let server: ServerHandle;
let session: Session;
let everything: any[];

async function walk(query: unknown, sort: unknown, pageSize: number): Promise<any[]> {
  const out: any[] = [];
  for (let skip = 0; ; skip += pageSize) {
    const projection: Record<string, unknown> = { limit: pageSize, fields: { formula: 1, "lattice.a": 1, tags: 1 } };
    if (skip > 0) projection.skip = skip;
    if (sort) projection.sort = sort;
    const res = await listMaterials(server, session, query, projection);
    if (res.status !== 200) throw new Error(`page at skip ${skip}: ${res.status} ${res.text}`);
    out.push(...res.body.data);
    if (res.body.data.length < pageSize) return out;
  }
}

async function keysetWalk(query: Record<string, unknown>, pageSize: number): Promise<any[]> {
  const out: any[] = [];
  let after: string | undefined;
  for (;;) {
    const q = after === undefined ? query : { $and: [query, { _id: { $gt: after } }] };
    const res = await listMaterials(server, session, q, { limit: pageSize, sort: { _id: 1 }, fields: { formula: 1 } });
    if (res.status !== 200) throw new Error(`keyset page after ${after}: ${res.status} ${res.text}`);
    out.push(...res.body.data);
    if (res.body.data.length < pageSize) return out;
    after = res.body.data[res.body.data.length - 1]._id;
  }
}

function expectNoRepeats(records: any[]) {
  const ids = records.map((r) => r._id);
  expect(new Set(ids).size).toBe(ids.length);
}

beforeAll(async () => {
  server = await startTestServer({ synthetic: SYNTHETIC });
  session = await login(server);
  everything = await walk({}, undefined, 500);
});
afterAll(() => server.close());

describe("offset paging walk", () => {
  it("visits every record once, in _id order, without a query", async () => {
    expect(server.materialCount).toBe(SYNTHETIC + 29);
    expect(everything.length).toBe(server.materialCount);
    expectNoRepeats(everything);
    const ids = everything.map((r) => r._id);
    expect(ids).toEqual([...ids].sort());
    // Another page size gives the same sequence.
    expect((await walk({}, undefined, 137)).map((r) => r._id)).toEqual(ids);
  });

  it("marks synthetic materials and gives them their own ids and names", async () => {
    const synthetic = everything.filter((r) => r.tags.includes("synthetic"));
    expect(synthetic.length).toBe(SYNTHETIC);
    const res = await listMaterials(server, session, { isSynthetic: true }, { limit: 3 });
    for (const record of res.body.data) {
      expect(record._id).toMatch(/^[23456789A-HJ-NP-Za-km-z]{17}$/);
      expect(record.name).toMatch(/synthetic [+-]\d+\.\d\d% strain #\d+$/);
      expect(record.derivedFrom._id).toMatch(/^[23456789A-HJ-NP-Za-km-z]{17}$/);
    }
    const real = await listMaterials(server, session, { isSynthetic: { $exists: false } }, { limit: 500 });
    expect(real.body.data.length).toBe(29);
  });

  it("visits every match once with a query", async () => {
    const expected = everything.filter((r) => r.formula === "Si" || r.lattice.a > 6).map((r) => r._id);
    expect(expected.length).toBeGreaterThan(2 * 97);
    const query = { $or: [{ formula: "Si" }, { "lattice.a": { $gt: 6 } }] };
    const walked = await walk(query, undefined, 97);
    expectNoRepeats(walked);
    expect(walked.map((r) => r._id)).toEqual(expected);
  });

  it("visits every record once with a sort on a field with many ties", async () => {
    const walked = await walk({}, { formula: 1 }, 250);
    expectNoRepeats(walked);
    expect(walked.length).toBe(everything.length);
    for (let i = 1; i < walked.length; i += 1) {
      const [a, b] = [walked[i - 1], walked[i]];
      expect(a.formula < b.formula || (a.formula === b.formula && a._id < b._id)).toBe(true);
    }
  });

  it("visits every match once with a query and a descending sort", async () => {
    const expected = everything.filter((r) => r.tags.includes("oxide"));
    const walked = await walk({ tags: "oxide" }, { "lattice.a": -1 }, 120);
    expectNoRepeats(walked);
    expect(walked.map((r) => r._id).sort()).toEqual(expected.map((r) => r._id).sort());
    for (let i = 1; i < walked.length; i += 1) {
      const [a, b] = [walked[i - 1], walked[i]];
      expect(a.lattice.a > b.lattice.a || (a.lattice.a === b.lattice.a && a._id < b._id)).toBe(true);
    }
  });

  it("walks the same query concurrently from several clients with identical results", async () => {
    const query = { "method.subtype": "paw" };
    const walks = await Promise.all([
      walk(query, undefined, 50),
      walk(query, undefined, 70),
      walk(query, undefined, 50),
    ]);
    expect(walks[0].length).toBeGreaterThan(100);
    expect(walks[1].map((r) => r._id)).toEqual(walks[0].map((r) => r._id));
    expect(walks[2].map((r) => r._id)).toEqual(walks[0].map((r) => r._id));
    expectNoRepeats(walks[0]);
  });
});

describe("keyset paging walk (_id > last)", () => {
  it("visits every record once without a query", async () => {
    const walked = await keysetWalk({}, 400);
    expect(walked.map((r) => r._id)).toEqual(everything.map((r) => r._id));
  });

  it("visits every match once with a query", async () => {
    const expected = everything.filter((r) => r.tags.includes("2D")).map((r) => r._id);
    const walked = await keysetWalk({ tags: "2D" }, 150);
    expect(walked.map((r) => r._id)).toEqual(expected);
  });

  it("honours $gte, $lt and a top-level _id bound", async () => {
    const ids = everything.map((r) => r._id);
    const [lo, hi] = [ids[100], ids[130]];
    const res = await listMaterials(server, session, { _id: { $gte: lo, $lt: hi } }, { limit: 500 });
    expect(res.body.data.map((r: any) => r._id)).toEqual(ids.slice(100, 130));
    const exact = await listMaterials(server, session, { _id: ids[7] }, {});
    expect(exact.body.data.map((r: any) => r._id)).toEqual([ids[7]]);
    const desc = await listMaterials(server, session, { _id: { $lt: ids[10] } }, { sort: { _id: -1 }, limit: 3 });
    expect(desc.body.data.map((r: any) => r._id)).toEqual([ids[9], ids[8], ids[7]]);
  });
});
