import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { inspect } from "node:util";
import { FrameOperationError, toDataFrame, type DataFrame } from "../../src";

// The wrong answers danfo 1.2 gave, each as a user met it; pandas' answers are the expectations
// (pandas_chains.py and the differential test check them against pandas itself).

const materials = JSON.parse(readFileSync(join(__dirname, "../../data/materials.json"), "utf8")) as Array<
  Record<string, any>
>;
const DENSITY = "derivedProperties.density";

const withNulls = [
  { _id: "a", g: "x", v: 1, w: null },
  { _id: "b", g: "y", v: null, w: null },
  { _id: "c", g: "x", v: 3, w: 2 },
  { _id: "d", g: null, v: 4, w: 5 },
  { _id: "e", g: "y", v: null, w: 1 },
];

async function small(): Promise<DataFrame> {
  return toDataFrame(withNulls, { columns: ["g", "v", "w"] });
}

describe("frames after a sort or a filter", () => {
  it("a filter after a sort keeps the rows the filter means (Au, Cu, HfO2, Ni above 8 g/cm3)", async () => {
    const df = await toDataFrame(materials, { columns: ["formula", DENSITY] });
    const s = df.sortValues(DENSITY, { ascending: false });
    const dense = s.query(s.column(DENSITY).gt(8));
    expect((dense.column(DENSITY).values as number[]).every((d) => d > 8)).toBe(true);
    const unsorted = df.query(df.column(DENSITY).gt(8));
    expect([...(dense.column("formula").values as string[])].sort()).toEqual(
      [...(unsorted.column("formula").values as string[])].sort(),
    );
    expect(unsorted.shape[0]).toBeGreaterThan(0);
    // The rows keep their labels, as in pandas, and the densest comes first.
    expect(dense.index).toEqual(s.index.slice(0, dense.shape[0]));
    // docs/tables.md's example goes on to count per method the values that are there.
    const withC = await toDataFrame(materials, { columns: ["formula", "method.type", "lattice.c", DENSITY] });
    const sorted = withC.sortValues(DENSITY, { ascending: false });
    const counts = sorted.query(sorted.column(DENSITY).gt(8)).groupby(["method.type"]).col(["lattice.c"]).count();
    expect(counts.columns).toEqual(["method.type", "lattice.c_count"]);
    const densityOf = (m: Record<string, any>) =>
      m.derivedProperties?.find((p: { name: string }) => p.name === "density")?.value;
    const counted = materials.filter(
      (m) => densityOf(m) > 8 && typeof m.method?.type === "string" && typeof m.lattice?.c === "number",
    );
    expect((counts.column("lattice.c_count").values as number[]).reduce((a, b) => a + b, 0)).toBe(counted.length);
  });

  it("two queries in a row run (danfo's _iloc threw) and give the rows of both", async () => {
    const df = await toDataFrame(materials, { columns: ["formula", DENSITY, "lattice.a"] });
    const first = df.query(df.column(DENSITY).gt(3));
    const second = first.query(first.column("lattice.a").lt(4));
    const both = df.query(df.column(DENSITY).gt(3).and(df.column("lattice.a").lt(4)));
    expect(second.values).toEqual(both.values);
    expect(second.index).toEqual(both.index);
  });

  it("a mask from the unsorted frame selects by row label, as pandas aligns it", async () => {
    const df = await toDataFrame(materials, { columns: ["formula", DENSITY] });
    const s = df.sortValues(DENSITY);
    const picked = s.query(df.column(DENSITY).gt(8));
    expect((picked.column(DENSITY).values as number[]).every((d) => d > 8)).toBe(true);
  });

  it("sorts missing values last in both directions, ties in their order", async () => {
    const df = await small();
    expect(df.sortValues("v").column("_id").values).toEqual(["a", "c", "d", "b", "e"]);
    expect(df.sortValues("v", { ascending: false }).column("_id").values).toEqual(["d", "c", "a", "b", "e"]);
    expect(
      df
        .column("v")
        .sortValues()
        .values.slice(3)
        .every((v) => v === null || Number.isNaN(v)),
    ).toBe(true);
  });

  it("compares a missing value false (true for ne), as pandas does", async () => {
    const df = await small();
    expect(df.column("v").lt(2).values).toEqual([true, false, false, false, false]);
    expect(df.column("v").ne(1).values).toEqual([false, true, true, true, true]);
  });
});

describe("missing values in groupby and statistics", () => {
  it("count counts values that are there; mean skips nulls and is NaN for an all-null group; null keys form no group", async () => {
    const df = await small();
    const count = df.groupby(["g"]).col(["v"]).count();
    expect(count.columns).toEqual(["g", "v_count"]);
    expect(count.values).toEqual([
      ["x", 2],
      ["y", 0],
    ]);
    const mean = df.groupby(["g"]).col(["v"]).mean().column("v_mean").values as number[];
    expect(mean[0]).toBe(2);
    expect(Number.isNaN(mean[1])).toBe(true);
    expect(df.groupby(["g"]).col(["w"]).sum().column("w_sum").values).toEqual([2, 1]);
  });

  it("column statistics and valueCounts skip missing values", async () => {
    const df = await small();
    expect(df.column("w").mean()).toBeCloseTo(8 / 3, 12);
    expect(df.column("w").count()).toBe(3);
    const counts = df.column("g").valueCounts();
    expect(counts.index).toEqual(["x", "y"]);
    expect(counts.values).toEqual([2, 2]);
  });

  it("a row-wise apply sees every cell, missing ones as null (danfo dropped them and shifted the rest)", async () => {
    const df = await small();
    const seen = df.apply((row: unknown[]) => JSON.stringify(row), { axis: 1 });
    expect((seen as { values: unknown[] }).values[0]).toBe(JSON.stringify(["a", "x", 1, null]));
  });
});

describe("danfo's inplace", () => {
  it("changes the frame itself and returns nothing, with pandas' answer", async () => {
    const df = await small();
    // danfo's signatures, which take `inplace` (matframe's DataFrame type leaves it out).
    const asDanfo = df as unknown as Record<"sortValues" | "addColumn" | "query", (...args: unknown[]) => unknown>;
    expect(asDanfo.sortValues("v", { ascending: false, inplace: true })).toBeUndefined();
    expect(df.column("_id").values).toEqual(["d", "c", "a", "b", "e"]);
    asDanfo.addColumn("twice", df.column("v").mul(2), { inplace: true });
    expect(df.columns).toContain("twice");
    expect((df as unknown as { twice: { values: unknown[] } }).twice.values.slice(0, 3)).toEqual([8, 6, 2]);
    asDanfo.query(df.column("v").gt(2), { inplace: true });
    expect(df.index).toEqual([3, 2]);
  });
});

describe("nothing the user had is changed", () => {
  it("asType and fillNa with columns return a copy and leave the frame as it was (danfo changed it)", async () => {
    const df = await small();
    const before = JSON.stringify(df.values);
    const text = df.asType("w", "string");
    const filled = df.fillNa([0], { columns: ["v"] });
    expect(JSON.stringify(df.values)).toBe(before);
    expect(text.column("w").values).toEqual([null, null, "2", "5", "1"]);
    expect(filled.column("v").values).toEqual([1, 0, 3, 4, 0]);
    // A missing value stays missing through asType (danfo wrote the text "null").
    expect(df.column("w").asType("string").values).toEqual([null, null, "2", "5", "1"]);
    expect(() => df.asType("v", "int32")).toThrow(FrameOperationError);
  });
});

describe("operations matframe refuses rather than guess", () => {
  it("loc label slices and masks from a frame filtered otherwise: FrameOperationError that says what to do", async () => {
    const df = await small();
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return error as FrameOperationError;
      }
      throw new Error("not refused");
    };
    const slice = refusal(() => df.loc({ rows: ["1:3"] }));
    expect(slice).toBeInstanceOf(FrameOperationError);
    expect(slice.code).toBe("ERR_FRAME_OPERATION");
    expect(refusal(() => df.loc({ rows: ["1:3"] })).message).toContain("iloc");
    const filtered = df.query(df.column("v").gt(2));
    expect(refusal(() => df.query(filtered.column("v").gt(3))).message).toContain("resetIndex()");
    expect(refusal(() => df.column("v").add(filtered.column("v"))).operation).toBe("add");
  });
});

describe("display", () => {
  it("is given to matframe's frames only, not to danfo's own DataFrame class", async () => {
    const df = await small();
    expect(inspect(df.sortValues("v"))).not.toContain("$data");
    const danfo = require("danfojs-node") as { DataFrame: new (rows: unknown[][]) => object };
    const theirs = new danfo.DataFrame([[1, 2]]);
    expect((theirs as Record<symbol, unknown>)[Symbol.for("Jupyter.display")]).toBeUndefined();
    expect((df as unknown as Record<symbol, unknown>)[Symbol.for("Jupyter.display")]).toBeTypeOf("function");
  });
});
