import { describe, expectTypeOf, it } from "vitest";
import type { Client, DataFrame, Lattice, MaterialRecord, PlatformRecord, Progress, Series } from "../../src";

// Type tests: records follow the projection's fields, so notebooks and scripts need no casts
// (issue 10). This file is compiled, not run: `npm run typecheck` (part of `npm test`) fails on
// any assertion below that does not hold; vitest's runtime only picks up *.test.ts.
declare const client: Client;

describe("records are typed by what the projection asks for", () => {
  it("a whole record without fields", async () => {
    for await (const m of client.materials.iterate()) {
      expectTypeOf(m.lattice.a).toEqualTypeOf<number>();
      expectTypeOf(m.formula).toEqualTypeOf<string>();
      expectTypeOf(m).toMatchTypeOf<MaterialRecord>();
    }
  });

  it("only _id and the top-level fields asked for", async () => {
    for await (const m of client.materials.iterate({ fields: { formula: 1, "lattice.a": 1 } })) {
      expectTypeOf(m._id).toEqualTypeOf<string>();
      expectTypeOf(m.formula).toEqualTypeOf<string>();
      expectTypeOf(m.lattice).toEqualTypeOf<Lattice>();
      expectTypeOf(m).not.toHaveProperty("basis");
    }
  });

  it("an exclusion drops that field's type (left to the index signature: unknown)", async () => {
    const page = await client.materials.list({ projection: { fields: { basis: 0 }, limit: 5 } });
    for (const m of page) {
      expectTypeOf(m.basis).toBeUnknown();
      expectTypeOf(m.lattice.c).toEqualTypeOf<number>();
    }
  });

  it("_id: 0 with includes drops _id", async () => {
    for await (const m of client.materials.iterate({ fields: { formula: 1, _id: 0 } })) {
      expectTypeOf(m).not.toHaveProperty("_id");
      expectTypeOf(m.formula).toEqualTypeOf<string>();
    }
  });

  it("a type of the caller's own wins", async () => {
    interface Row {
      _id: string;
      formula: string;
    }
    for await (const r of client.materials.iterate<Row>({ fields: { formula: 1 } }))
      expectTypeOf(r).toEqualTypeOf<Row>();
    expectTypeOf(await client.materials.get<Row>("x")).toEqualTypeOf<Row>();
    const jobs = client.collection<{ _id: string; status: string }>("jobs");
    for await (const j of jobs.iterate()) expectTypeOf(j.status).toEqualTypeOf<string>();
  });

  it("other collections give plain records with a string _id", async () => {
    for await (const r of client.collection("workflows").iterate()) {
      expectTypeOf(r).toMatchTypeOf<PlatformRecord>();
      expectTypeOf(r._id).toEqualTypeOf<string>();
    }
  });
});

describe("DataFrame and progress types", () => {
  it("a DataFrame is never any", async () => {
    const df = await client.materials.toDataFrame({ columns: ["lattice.a"] });
    expectTypeOf(df).toEqualTypeOf<DataFrame>();
    expectTypeOf(df).not.toBeAny();
    expectTypeOf(df.column("lattice.a")).toEqualTypeOf<Series>();
    expectTypeOf(df.column("lattice.a").mean()).toEqualTypeOf<number>();
  });

  it("one progress type: items is the running total", () => {
    expectTypeOf<
      Parameters<NonNullable<Parameters<typeof client.materials.iterate>[0]>["onPage"] & Function>[0]
    >().toEqualTypeOf<Progress>();
    expectTypeOf<Progress["items"]>().toEqualTypeOf<number>();
  });
});
