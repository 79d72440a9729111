// Contract test of danfojs-node's public behaviour, for the adapter that is to replace matframe's
// re-parenting of danfo's objects (src/frame/operations/frames.ts): what a frame built through
// danfo's public constructors gives back through its public getters, and the three facts that
// decide the adapter's shape. A danfo release that changes any of them fails here first.
import { describe, expect, it } from "vitest";
import type * as DanfoModule from "danfojs-node";

// danfo is an optional dependency loaded on first use (src/frame/dataframe/danfo.ts); so here.
const danfo = require("danfojs-node") as typeof DanfoModule;

const ROWS = [
  ["Si", 5.43, 2],
  ["GaN", 3.19, null],
  ["Cu", 3.61, 1],
];
const OPTIONS = {
  columns: ["formula", "lattice.a", "n"],
  dtypes: ["string", "float32", "int32"],
  index: ["m3", "m1", "m2"],
  config: { lowMemoryMode: true },
};

describe("danfo's public constructors and getters", () => {
  it("a frame from rows in column order, with names, dtypes, labels and low-memory mode, reads back as given", () => {
    const df = new danfo.DataFrame(ROWS, OPTIONS);
    expect(df.columns).toEqual(OPTIONS.columns);
    expect(df.dtypes).toEqual(OPTIONS.dtypes);
    expect(df.index).toEqual(OPTIONS.index);
    expect(df.shape).toEqual([3, 3]);
    expect(df.values).toEqual(ROWS);
    expect(df.column("lattice.a").values).toEqual([5.43, 3.19, 3.61]);
    expect(df.column("lattice.a").index).toEqual(OPTIONS.index);
  });

  it("a column from values, labels and a dtype reads back as given; an empty one takes no dtype", () => {
    const s = new danfo.Series([1, 2.5, null], { index: ["a", "b", "c"], dtypes: ["float32"] });
    expect(s.values).toEqual([1, 2.5, null]);
    expect(s.index).toEqual(["a", "b", "c"]);
    expect(s.dtype).toBe("float32");
    expect(new danfo.Series([], {}).values).toEqual([]);
  });

  it("can be subclassed: the constructor makes the subclass, with danfo's column properties", () => {
    class Frame extends danfo.DataFrame {
      own(): string {
        return "matframe";
      }
    }
    const df = new Frame(ROWS, OPTIONS);
    expect(df).toBeInstanceOf(Frame);
    expect(df).toBeInstanceOf(danfo.DataFrame);
    expect(df.own()).toBe("matframe");
    expect((df as unknown as { "lattice.a": { values: unknown[] } })["lattice.a"].values).toEqual([5.43, 3.19, 3.61]);
  });
});

describe("the facts that shape an adapter through the public API", () => {
  it("danfo's methods make frames of danfojs-base's class, not the subclass nor even danfojs-node's export: each result is rebuilt by the adapter", () => {
    class Frame extends danfo.DataFrame {}
    const df = new Frame(ROWS, OPTIONS);
    const head = df.head(2);
    expect(head).not.toBeInstanceOf(Frame);
    expect(head).not.toBeInstanceOf(danfo.DataFrame);
    // danfojs-node's DataFrame extends danfojs-base's, whose methods build frames with `new DataFrame`.
    expect(head).toBeInstanceOf(Object.getPrototypeOf(danfo.DataFrame));
    expect(head.values).toEqual(ROWS.slice(0, 2));
    const rebuilt = new Frame(head.values, { columns: head.columns, dtypes: head.dtypes, index: head.index });
    expect(rebuilt).toBeInstanceOf(Frame);
    expect(rebuilt.index).toEqual(["m3", "m1"]);
  });

  it("refuses repeated row labels, which pandas allows (iloc([0, 0])): the adapter keeps such labels itself", () => {
    expect(() => new danfo.DataFrame([ROWS[0], ROWS[0]], { ...OPTIONS, index: ["m3", "m3"] })).toThrow(
      /Row index must contain unique values/,
    );
  });

  it("gives each column a property that cannot be redefined: df[name] is danfo's column, not the adapter's", () => {
    const df = new danfo.DataFrame(ROWS, OPTIONS);
    const property = Object.getOwnPropertyDescriptor(df, "lattice.a");
    expect(typeof property?.get).toBe("function");
    expect(property?.configurable).toBe(false);
  });
});
