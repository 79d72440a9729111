import { describe, expect, it } from "vitest";
import { MaterialStore, type StoredRecord } from "../../src/server/records/store";

// A keyset walk with a query (`{$and: [q, {_id: {$gt: last}}]}` page after page) goes on with
// the matches its first page's scan kept, as an offset walk does: every record is judged once
// per walk, and a later walk of the same query judges none. Each record here counts how often
// the query reads its field.

function countedRecords(n: number) {
  let reads = 0;
  const records = Array.from({ length: n }, (_, i) => {
    const record = { _id: `m${String(i).padStart(5, "0")}` } as StoredRecord;
    Object.defineProperty(record, "band", {
      enumerable: true,
      get: () => {
        reads += 1;
        return i % 3;
      },
    });
    return record;
  });
  return { records, reads: () => reads };
}

const byId = (direction: 1 | -1) => [{ path: "_id", direction }];

async function keysetWalk(store: MaterialStore, query: object, direction: 1 | -1, limit: number): Promise<string[]> {
  const out: string[] = [];
  for (;;) {
    const last = out.at(-1);
    const bound = last === undefined ? query : { $and: [query, { _id: { [direction === 1 ? "$gt" : "$lt"]: last } }] };
    const page = await store.find({ query: bound as never, sort: byId(direction) as never, skip: 0, limit });
    out.push(...page.map((r) => r._id));
    if (page.length < limit) return out;
  }
}

async function offsetWalk(store: MaterialStore, query: object, limit: number): Promise<string[]> {
  const out: string[] = [];
  for (let skip = 0; ; skip += limit) {
    const page = await store.find({ query: query as never, sort: byId(1) as never, skip, limit });
    out.push(...page.map((r) => r._id));
    if (page.length < limit) return out;
  }
}

const N = 1000;
const matching = (band: number) =>
  Array.from({ length: N }, (_, i) => i)
    .filter((i) => i % 3 === band)
    .map((i) => `m${String(i).padStart(5, "0")}`);

describe("keyset pages with a query", () => {
  it("judge each record once per walk, and a later walk of the same query reads the kept matches", async () => {
    const { records, reads } = countedRecords(N);
    const store = new MaterialStore(records);
    expect(await keysetWalk(store, { band: 0 }, 1, 70)).toEqual(matching(0));
    const once = reads();
    expect(once).toBeGreaterThanOrEqual(N);
    expect(once).toBeLessThanOrEqual(N + 70); // not once per page
    expect(await keysetWalk(store, { band: 0 }, 1, 70)).toEqual(matching(0));
    expect(reads()).toBe(once);
  });

  it("do the same walking down (_id < last, sorted descending)", async () => {
    const { records, reads } = countedRecords(N);
    const store = new MaterialStore(records);
    expect(await keysetWalk(store, { band: 1 }, -1, 45)).toEqual(matching(1).reverse());
    const once = reads();
    expect(once).toBeLessThanOrEqual(N + 45);
    expect(await keysetWalk(store, { band: 1 }, -1, 45)).toEqual(matching(1).reverse());
    expect(reads()).toBe(once);
  });

  it("read a deep page from the matches an offset walk kept, and scan from the cursor when none are kept", async () => {
    const { records, reads } = countedRecords(N);
    const store = new MaterialStore(records);
    const deep = { $and: [{ band: 2 }, { _id: { $gt: "m00600" } }] };
    const expected = matching(2).filter((id) => id > "m00600");
    // Cold: only the records past the cursor are judged.
    const cold = await store.find({ query: deep as never, sort: byId(1) as never, skip: 0, limit: 500 });
    expect(cold.map((r) => r._id)).toEqual(expected);
    expect(reads()).toBeLessThanOrEqual(N - 600);
    expect(await offsetWalk(store, { band: 2 }, 100)).toEqual(matching(2));
    const warm = reads();
    const again = await store.find({ query: deep as never, sort: byId(1) as never, skip: 10, limit: 20 });
    expect(again.map((r) => r._id)).toEqual(expected.slice(10, 30));
    expect(reads()).toBe(warm);
  });

  it("keep to an upper bound: a page between two _ids is never read from the kept matches past it", async () => {
    const { records } = countedRecords(N);
    const store = new MaterialStore(records);
    await offsetWalk(store, { band: 0 }, 100);
    const between = { $and: [{ band: 0 }, { _id: { $gt: "m00300", $lt: "m00400" } }] };
    const page = await store.find({ query: between as never, sort: byId(1) as never, skip: 0, limit: 500 });
    expect(page.map((r) => r._id)).toEqual(matching(0).filter((id) => id > "m00300" && id < "m00400"));
  });
});
