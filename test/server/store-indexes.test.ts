import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SortKey } from "../../src/server/query/projection";
import { compileQuery, type QueryDocument } from "../../src/server/query/query-filter";
import { compareKeys, sortValue } from "../../src/server/query/sort-order";
import { FIND_CHANNEL, type FindReport, MaterialStore, type StoredRecord } from "../../src/server/records/store";
import { findVisible } from "../../src/server/records/visible-find";
import type { ServerHandle } from "../../src/server/start-server";
import { at } from "../support/checked";
import { seededRandom } from "../support/seeded-random";
import { listMaterials, login, PREFIX, rawRequest, startTestServer } from "./helpers";

// Lookups by `_id` and by the join paths are answered from indexes. The answers must be the
// scan's, record for record: seeded random queries mixing indexed and other conditions are
// checked against a plain scan (every record judged by the compiled query, then sorted), and an
// indexed lookup must judge only its candidates, counted through the store's find channel.

const OWNERS = ["ownerA", "ownerB", "ownerC"];
const SETS = ["set1", "set2", "set3", "set4"];
const SLUGS = ["band_gaps", "total_energy", "fermi_energy"];

function makeRecords(random: () => number, n: number, owner?: string): StoredRecord[] {
  const pick = <T>(list: readonly T[]) => at(list, Math.floor(random() * list.length), "a seeded pick");
  return Array.from({ length: n }, (_, i) => {
    const record: StoredRecord = {
      _id: `${pick("abcdefgh".split(""))}${Math.floor(random() * 1e6)
        .toString(36)
        .padStart(4, "0")}${owner ?? ""}${i}`,
      owner: { _id: owner ?? pick(OWNERS.slice(0, 2)) },
      band: Math.floor(random() * 10),
      name: `${pick(["alpha", "beta", "gamma"])}-${i % 7}`,
    };
    const kind = random();
    // Reference paths in every shape MongoDB reads through: objects, arrays of objects, absent.
    if (kind < 0.6) record._material = { _id: `mat${Math.floor(random() * 40)}` };
    else if (kind < 0.7) record._material = [{ _id: `mat${Math.floor(random() * 40)}` }, { _id: "mat0" }];
    if (random() < 0.5) record.source = { info: { jobId: `job${Math.floor(random() * 30)}` } };
    if (random() < 0.6) record.inSet = SETS.filter(() => random() < 0.4).map((_id) => ({ _id }));
    // A property's kind: a string mostly, sometimes absent or not a string (which no index names).
    const slug = random();
    if (slug < 0.8) record.slug = pick(SLUGS);
    else if (slug < 0.85) record.slug = 7;
    return record;
  });
}

function randomQuery(random: () => number, ids: readonly string[], depth = 0): QueryDocument {
  const pick = <T>(list: readonly T[]) => at(list, Math.floor(random() * list.length), "a seeded pick");
  const someIds = () =>
    Array.from({ length: 1 + Math.floor(random() * 12) }, () => (random() < 0.2 ? `absent${random()}` : pick(ids)));
  const leaves: Array<() => [string, unknown]> = [
    () => ["_id", pick(ids)],
    () => ["_id", { $eq: random() < 0.8 ? pick(ids) : "absent" }],
    () => ["_id", { $in: someIds() }],
    () => ["_id", { $gt: pick(ids) }],
    () => ["_id", { $nin: someIds() }],
    () => ["owner._id", pick(OWNERS)],
    () => ["owner._id", { $ne: pick(OWNERS) }],
    () => ["_material._id", { $in: [`mat${Math.floor(random() * 45)}`, `mat${Math.floor(random() * 45)}`] }],
    () => ["_material._id", { $exists: random() < 0.5 }],
    () => ["source.info.jobId", `job${Math.floor(random() * 35)}`],
    () => ["inSet._id", pick(SETS)],
    () => ["inSet._id", { $in: [pick(SETS), pick(SETS)], $ne: pick(SETS) }],
    () => ["slug", pick([...SLUGS, "absent"])],
    () => ["slug", { $in: [pick(SLUGS), pick(SLUGS)] }],
    () => ["slug", { $nin: [pick(SLUGS)] }],
    () => ["band", { $gte: Math.floor(random() * 10) }],
    () => ["name", { $regex: `^${pick(["a", "b", "g"])}` }],
  ];
  const document: QueryDocument = {};
  for (let n = 1 + Math.floor(random() * 3); n > 0; n -= 1) {
    const [key, condition] = pick(leaves)();
    document[key] = condition;
  }
  if (depth < 2 && random() < 0.3)
    document.$and = [randomQuery(random, ids, depth + 1), randomQuery(random, ids, depth + 1)];
  if (depth < 2 && random() < 0.3)
    document.$or = [randomQuery(random, ids, depth + 1), randomQuery(random, ids, depth + 1)];
  return document;
}

const SORTS: SortKey[][] = [
  [],
  [{ path: "_id", direction: -1 }],
  [{ path: "band", direction: 1 }],
  [
    { path: "name", direction: -1 },
    { path: "band", direction: 1 },
  ],
];

/** The answer of a plain scan: every record judged, then ordered with ties by `_id`. */
function scanAnswer(records: readonly StoredRecord[], query: QueryDocument, sort: SortKey[]): string[] {
  const predicate = compileQuery(query);
  const keyed = sort.map((key) => ({ ...key, segments: key.path.split(".") }));
  const keys = (record: StoredRecord) => keyed.map((key) => sortValue(record, key));
  const byId = (a: StoredRecord, b: StoredRecord) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
  const [first] = sort;
  const direction = sort.length === 1 && first?.path === "_id" ? first.direction : 1;
  const ordered = sort.length === 0 || (sort.length === 1 && first?.path === "_id");
  return records
    .filter((record) => predicate(record))
    .sort((a, b) => (ordered ? byId(a, b) * direction : compareKeys(keys(a), keys(b), sort) || byId(a, b)))
    .map((record) => record._id);
}

function watchFinds(): { reports: FindReport[]; stop: () => void } {
  const reports: FindReport[] = [];
  const listener = (message: unknown) => reports.push(message as FindReport);
  subscribe(FIND_CHANNEL, listener);
  return { reports, stop: () => unsubscribe(FIND_CHANNEL, listener) };
}

describe("indexed lookups answer as the scan does (random inputs from seed 20261128)", () => {
  const generator = seededRandom(20261128);
  const random = () => generator.next();
  const shared = makeRecords(random, 700);
  const own = makeRecords(random, 60, "ownerC");
  const all = [...shared, ...own];
  const ids = all.map((record) => record._id);

  it("pages of seeded random queries (offset, keyset, sorted, with the caller's own records) match a scan", async () => {
    const sharedStore = new MaterialStore(shared);
    const ownStore = new MaterialStore(own);
    let nonEmpty = 0;
    for (let round = 0; round < 250; round += 1) {
      const query = randomQuery(random, ids);
      const sort = at(SORTS, round % SORTS.length, "a sort");
      const expected = scanAnswer(all, query, sort);
      if (expected.length > 0) nonEmpty += 1;
      const skip = Math.floor(random() * 5);
      const limit = 1 + Math.floor(random() * 20);
      const page = await findVisible(sharedStore, ownStore, { query, sort, skip, limit });
      const replay = `seed 20261128, round ${round}, query ${JSON.stringify(query)}`;
      expect(
        page.map((record) => record._id),
        replay,
      ).toEqual(expected.slice(skip, skip + limit));
      // A keyset walk of the served records, in `_id` order, pages of 7.
      if (sort.length === 0) {
        const walked: string[] = [];
        for (;;) {
          const last = walked.at(-1);
          const bounded = last === undefined ? query : { $and: [query, { _id: { $gt: last } }] };
          const next = await sharedStore.find({ query: bounded, sort, skip: 0, limit: 7 });
          walked.push(...next.map((record) => record._id));
          if (next.length < 7) break;
        }
        expect(walked, replay).toEqual(scanAnswer(shared, query, sort));
      }
    }
    // The seed must exercise real answers, not only empty ones.
    expect(nonEmpty).toBeGreaterThan(80);
  });

  it("an indexed lookup judges only the records its index names", async () => {
    const store = new MaterialStore(all);
    const watch = watchFinds();
    try {
      const wanted = [ids[3], ids[99], ids[512], "absent-1", ids[700], "absent-2"];
      const found = await store.find({ query: { _id: { $in: wanted } }, sort: [], skip: 0, limit: 100 });
      expect(found.map((record) => record._id).sort()).toEqual([ids[3], ids[99], ids[512], ids[700]].sort());
      expect(watch.reports.at(-1)).toEqual({ size: all.length, judged: 4, plan: "index" });

      await store.find({ query: { _id: ids[42], band: { $gte: 0 } }, sort: [], skip: 0, limit: 10 });
      expect(watch.reports.at(-1)).toMatchObject({ judged: 1, plan: "range" });

      const inSet2 = all.filter((record) => JSON.stringify(record.inSet ?? []).includes('"set2"')).length;
      await store.find({ query: { "inSet._id": "set2" }, sort: [{ path: "band", direction: 1 }], skip: 0, limit: 5 });
      expect(watch.reports.at(-1)).toMatchObject({ judged: inSet2, plan: "index" });

      await store.find({
        query: { $or: [{ "owner._id": "ownerC" }, { _id: ids[1] }] },
        sort: [],
        skip: 0,
        limit: 1000,
      });
      expect(watch.reports.at(-1)).toMatchObject({ judged: own.length + 1, plan: "index" });

      // A results table's first request: the properties of some kinds.
      const gaps = all.filter((record) => record.slug === "band_gaps").length;
      await store.find({ query: { slug: { $in: ["band_gaps"] } }, sort: [], skip: 0, limit: 1000 });
      expect(watch.reports.at(-1)).toMatchObject({ judged: gaps, plan: "index" });

      // A condition no index answers is a scan, as before.
      await store.find({ query: { band: 3 }, sort: [], skip: 0, limit: 500 });
      expect(watch.reports.at(-1)).toMatchObject({ judged: all.length, plan: "scan" });
    } finally {
      watch.stop();
    }
  });
});

describe("indexed lookups over HTTP on a served collection", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await startTestServer({ synthetic: 3000 });
  });
  afterAll(async () => {
    await server.close();
  });

  it("an `_id` `$in` of materials and a `_material._id` `$in` of jobs judge only their matches", async () => {
    const session = await login(server);
    const first = await listMaterials(server, session, {}, { fields: { _id: 1 }, limit: 500 });
    expect(first.status, first.text).toBe(200);
    const some = (first.body.data as Array<{ _id: string }>)
      .filter((_, i) => i % 17 === 0)
      .map((material) => material._id);
    const watch = watchFinds();
    try {
      const res = await listMaterials(
        server,
        session,
        { _id: { $in: [...some, "nonexistent"] } },
        { fields: { _id: 1 } },
      );
      expect(res.status).toBe(200);
      expect((res.body.data as unknown[]).length).toBe(some.length);
      const served = watch.reports.filter((report) => report.size > 3000);
      expect(served).toEqual([{ size: 3029, judged: some.length, plan: "index" }]);

      watch.reports.length = 0;
      const query = encodeURIComponent(JSON.stringify({ "_material._id": { $in: some } }));
      const jobs = await rawRequest(
        server,
        "GET",
        `${PREFIX}/jobs?query=${query}&projection=${encodeURIComponent('{"fields":{"_id":1}}')}`,
        {
          headers: { ...session },
        },
      );
      expect(jobs.status).toBe(200);
      const matched = (jobs.body.data as unknown[]).length;
      expect(matched).toBeGreaterThan(0);
      const big = watch.reports.filter((report) => report.size >= 3000);
      expect(big.map((report) => report.plan)).toEqual(["index"]);
      expect(at(big, 0, "the report of the big store").judged).toBe(matched);
    } finally {
      watch.stop();
    }
  });
});
