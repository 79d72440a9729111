import { describe, expect, it } from "vitest";
import { escapePathName, HIVE_DEFAULT_PARTITION, partitionFolder } from "../../src/frame/export/dataset/hive-path";
import { CommittedCursor } from "../../src/frame/export/dataset/committed-cursor";
import { RowBudget } from "../../src/frame/export/dataset/row-budget";
import { PageChannel } from "../../src/frame/export/dataset/page-channel";
import { ValidationError } from "../../src";

// The pieces of a hive-partitioned export that engines do not check for us: folder names for
// every character Hive and Spark escape, where a resumed walk restarts, and the shared row budget.

describe("partition folder names", () => {
  it("escape exactly the characters Hive's and Spark's escapePathName escape, as %XX", () => {
    const escaped = ['"', "#", "%", "'", "*", "/", ":", "=", "?", "\\", "\u007f", "{", "[", "]", "^"];
    for (const c of escaped)
      expect(escapePathName(c)).toBe(`%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
    for (let code = 1; code < 32; code++)
      expect(escapePathName(String.fromCharCode(code))).toBe(`%${code.toString(16).toUpperCase().padStart(2, "0")}`);
    // Everything else stays: spaces, punctuation Hive keeps, non-ASCII.
    expect(escapePathName(" !$&()+,-.;<>@_`|}~ é ü 中")).toBe(" !$&()+,-.;<>@_`|}~ é ü 中");
  });

  it("name null, missing and empty values __HIVE_DEFAULT_PARTITION__, numbers and booleans as printed", () => {
    for (const value of [null, undefined, ""])
      expect(partitionFolder("lattice.type", value, "m1")).toBe(`lattice.type=${HIVE_DEFAULT_PARTITION}`);
    expect(partitionFolder("n", 3, "m1")).toBe("n=3");
    expect(partitionFolder("n", 2.5, "m1")).toBe("n=2.5");
    expect(partitionFolder("ok", false, "m1")).toBe("ok=false");
    expect(partitionFolder("a=b", "c/d", "m1")).toBe("a%3Db=c%2Fd");
  });

  it("refuse objects and names too long for a file system, naming the record", () => {
    expect(() => partitionFolder("method", { type: "DFT" }, "m7")).toThrow(ValidationError);
    expect(() => partitionFolder("method", { type: "DFT" }, "m7")).toThrow(/record m7.*such as method\.type/);
    expect(() => partitionFolder("name", "x".repeat(260), "m8")).toThrow(/too long for a folder name/);
  });
});

describe("the committed cursor of a resumed dataset", () => {
  it("passes a walk page only once every folder has committed its share of it", () => {
    const cursor = new CommittedCursor(undefined);
    // Page 1 (01-05), interleaved: a holds 01 and 03, b holds 02, 04 and 05.
    cursor.routed("a", "03");
    cursor.routed("b", "05");
    cursor.pageRouted("05");
    // Page 2 (06-08): all a's.
    cursor.routed("a", "08");
    cursor.pageRouted("08");
    expect(cursor.cursor).toBeUndefined();
    cursor.committed("a", "03");
    // b's share of page 1 starts at 02: resuming after 03 would lose 02.
    expect(cursor.cursor).toBeUndefined();
    cursor.committed("b", "05");
    expect(cursor.cursor).toBe("05"); // a's share of page 2 is not committed
    cursor.committed("a", "06"); // a row group cut inside a page: the page is not committed
    expect(cursor.cursor).toBe("05");
    cursor.committed("a", "08");
    expect(cursor.cursor).toBe("08");
  });

  it("starts from a resumed run's cursor, and waits for the shares of a page still being routed", () => {
    const cursor = new CommittedCursor("10");
    expect(cursor.cursor).toBe("10");
    // Page 11-15: a holds 11 and 13 and commits them before b's share (12, 14, 15) is handed over.
    cursor.routed("a", "13");
    cursor.committed("a", "13");
    expect(cursor.cursor).toBe("10");
    cursor.routed("b", "15");
    cursor.pageRouted("15");
    expect(cursor.cursor).toBe("10");
    cursor.committed("b", "15");
    expect(cursor.cursor).toBe("15");
  });
});

describe("the row budget of a dataset's writers", () => {
  it("asks a writer with at least its share to close its group once the writers hold more than the limit", () => {
    const budget = new RowBudget(100);
    budget.writers = 4;
    budget.held = 100;
    expect(budget.over(60)).toBe(false);
    budget.held = 101;
    expect(budget.over(20)).toBe(false);
    expect(budget.over(26)).toBe(true);
  });
});

describe("a page channel", () => {
  it("hands pages over one at a time and ends", async () => {
    const channel = new PageChannel<number>();
    const got: number[] = [];
    const reading = (async () => {
      for await (const n of channel) got.push(n);
    })();
    await channel.push(1);
    await channel.push(2);
    channel.end();
    await reading;
    expect(got).toEqual([1, 2]);
  });

  it("fails the producer when the consumer stops, and the consumer when the producer fails", async () => {
    const stopped = new PageChannel<number>();
    const waiting = stopped.push(1);
    for await (const _ of stopped) break;
    await expect(waiting).resolves.toBeUndefined();
    await expect(stopped.push(2)).rejects.toThrow(/stopped/);

    const failed = new PageChannel<number>();
    const reading = (async () => {
      for await (const _ of failed) void _;
    })();
    failed.fail(new Error("link lost"));
    await expect(reading).rejects.toThrow("link lost");
  });
});
