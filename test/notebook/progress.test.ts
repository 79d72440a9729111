import { describe, expect, it } from "vitest";
import { progress } from "../../src/notebook";

function sink(isTTY: boolean) {
  const writes: string[] = [];
  return { isTTY, write: (s: string) => writes.push(s), writes };
}

describe("progress outside a notebook", () => {
  it("writes a line per drawn state to a log, and the final count at done()", () => {
    const out = sink(false);
    const onPage = progress({ label: "materials", expected: 1500, output: out });
    onPage({ pages: 1, items: 500 });
    onPage({ pages: 2, items: 1000 });
    onPage({ pages: 3, items: 1500 });
    onPage.done();
    expect(out.writes[0]).toBe("500 / 1,500 materials (33%)\n");
    expect(out.writes).toContain("1,500 / 1,500 materials (100%)\n");
    expect(out.writes.at(-1)).toBe("done: 1,500 / 1,500 materials (100%)\n");
    expect(out.writes.every((w) => !w.includes("\r"))).toBe(true);
    expect(onPage.count).toBe(1500);
  });

  it("redraws one line in place on a terminal", () => {
    const out = sink(true);
    const onRows = progress({ output: out });
    onRows(250);
    onRows.done({ items: 300, pages: 1 });
    expect(out.writes[0]).toBe("\r\x1b[2K250 items");
    expect(out.writes.at(-1)).toBe("\r\x1b[2Kdone: 300 items\n");
  });

  it("ignores updates after done() and a second done()", () => {
    const out = sink(false);
    const p = progress({ output: out });
    p(10);
    p.done();
    p(20);
    p.done();
    expect(out.writes).toEqual(["10 items\n", "done: 10 items\n"]);
    expect(p.count).toBe(10);
  });

  it("counts every progress object by items, the running total", () => {
    const out = sink(false);
    const a = progress({ output: out });
    a({ items: 1000, pages: 2, bytes: 50_000 });
    expect(a.count).toBe(1000);
  });
});
