import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { parse } from "csv-parse/sync";
import { exportCsv, exportNdjson } from "../../src/frame/export/export";
import type { Progress } from "../../src";
import { TargetExistsError } from "../../src/errors";
import { OutputError } from "../../src/errors";
import { at } from "../support/checked";

const materials = JSON.parse(readFileSync(join(__dirname, "../../data/materials.json"), "utf8")) as Array<
  Record<string, any>
>;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "matframe-export-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function pagesOf<T>(items: T[], size: number): T[][] {
  const pages: T[][] = [];
  for (let i = 0; i < items.length; i += size) pages.push(items.slice(i, i + size));
  return pages;
}

describe("exportCsv", () => {
  it("writes a CSV that csv-parse reads back, with names that need quoting", async () => {
    const records = [
      { _id: "a", name: "Fe2O3, hematite", formula: "Fe2O3", lattice: { a: 5.03 } },
      { _id: "b", name: 'the "best" one\nsecond line', formula: "Si" },
      { formula: "C", _id: "c", lattice: { a: 2.46 }, tags: ["2D", "graphene"] },
    ];
    const target = join(dir, "out.csv");
    const progress: Progress[] = [];
    const result = await exportCsv(pagesOf(records, 2), target, {
      columns: ["name", "formula", "lattice.a", "tags"],
      onProgress: (p) => progress.push(p),
    });
    expect(result).toMatchObject({ items: 3, pages: 2, path: target, warnings: [] });
    const text = readFileSync(target, "utf8");
    expect(result.bytes).toBe(Buffer.byteLength(text));
    expect(parse(text)).toEqual([
      ["_id", "name", "formula", "lattice.a", "tags"],
      ["a", "Fe2O3, hematite", "Fe2O3", "5.03", ""],
      ["b", 'the "best" one\nsecond line', "Si", "", ""],
      ["c", "", "C", "2.46", '["2D","graphene"]'],
    ]);
    expect(progress.map((p) => [p.items, p.pages])).toEqual([
      [2, 1],
      [3, 2],
    ]);
    expect(readdirSync(dir)).toEqual(["out.csv"]);
  });

  it("writes the default columns of the bundled materials", async () => {
    const target = join(dir, "materials.csv");
    await exportCsv(pagesOf(materials, 10), target);
    const rows = parse(readFileSync(target, "utf8"), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(materials.length);
    const first = at(rows, 0, "the CSV's rows");
    const material = at(materials, 0, "the bundled materials");
    expect(first._id).toBe(material._id);
    expect(Number(first["lattice.a"])).toBe(material.lattice.a);
    expect(rows.map((r) => r["method.subtype"])).toEqual(materials.map((m) => m.method?.subtype ?? ""));
  });

  it("writes only the header for zero records", async () => {
    const target = join(dir, "empty.csv");
    const result = await exportCsv([], target, { columns: ["formula"] });
    expect(result).toMatchObject({ items: 0, pages: 0 });
    expect(readFileSync(target, "utf8")).toBe("_id,formula\n");
  });

  it("refuses an existing target without force, before reading any page", async () => {
    const target = join(dir, "exists.csv");
    writeFileSync(target, "precious");
    let pulled = false;
    async function* pages() {
      pulled = true;
      yield materials;
    }
    await expect(exportCsv(pages(), target)).rejects.toBeInstanceOf(TargetExistsError);
    expect(pulled).toBe(false);
    expect(readFileSync(target, "utf8")).toBe("precious");
    expect(readdirSync(dir)).toEqual(["exists.csv"]);

    const result = await exportCsv(pages(), target, { force: true, columns: ["formula"] });
    expect(result.items).toBe(materials.length);
    expect(readFileSync(target, "utf8").split("\n")[0]).toBe("_id,formula");
  });

  it("leaves no file at the target and no temporary file when the page stream fails", async () => {
    const target = join(dir, "broken.csv");
    async function* pages() {
      yield materials.slice(0, 5);
      throw new Error("connection reset");
    }
    await expect(exportCsv(pages(), target)).rejects.toThrow("connection reset");
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("does not replace a file that appeared at the target during the export", async () => {
    const target = join(dir, "raced.csv");
    async function* pages() {
      yield materials.slice(0, 5);
      writeFileSync(target, "someone else's");
      yield materials.slice(5, 10);
    }
    await expect(exportCsv(pages(), target)).rejects.toBeInstanceOf(TargetExistsError);
    expect(readFileSync(target, "utf8")).toBe("someone else's");
    expect(readdirSync(dir)).toEqual(["raced.csv"]);
  });

  it("reports a missing directory as an OutputError", async () => {
    const error = await exportCsv([], join(dir, "nope", "x.csv")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputError);
    expect((error as Error).message).toContain("does not exist");
  });

  it("waits for a slow stream to drain and leaves it open", async () => {
    const chunks: string[] = [];
    let pending = 0;
    const slow = new Writable({
      highWaterMark: 64,
      write(chunk, _encoding, callback) {
        pending++;
        chunks.push(String(chunk));
        // Each write completes on a later turn of the event loop (no timer): the stream drains slowly.
        setImmediate(() => {
          pending--;
          callback();
        });
      },
    });
    const pages = pagesOf(materials, 3);
    let maxPending = 0;
    const result = await exportCsv(pages, slow, {
      columns: ["formula"],
      onProgress: () => {
        maxPending = Math.max(maxPending, slow.writableLength);
      },
    });
    expect(result.path).toBeUndefined();
    expect(result.pages).toBe(pages.length);
    expect(slow.writableEnded).toBe(false);
    // Each page waited for the previous one to drain, so at most one page was ever buffered.
    expect(maxPending).toBeLessThan(200);
    // Ending the stream waits for every write it still holds, which the export left to drain.
    await new Promise<void>((resolve) => slow.end(resolve));
    expect(pending).toBe(0);
    expect(parse(chunks.join(""))).toHaveLength(materials.length + 1);
  });

  it("rejects with an OutputError when the stream fails", async () => {
    const failing = new Writable({
      write(_chunk, _encoding, callback) {
        callback(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
      },
    });
    const error = await exportCsv(pagesOf(materials, 5), failing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputError);
    expect((error as Error).message).toBe("Cannot write the output stream: the reader closed the pipe.");
  });
});

describe("exportNdjson", () => {
  it("writes one object per line keyed by column, nested values kept as JSON", async () => {
    const target = join(dir, "out.ndjson");
    const records = [
      { _id: "a", lattice: { a: 5.03 }, tags: ["x"], method: { type: "DFT", subtype: "GGA" } },
      { _id: "b", method: "broken" },
    ];
    const warnings: string[] = [];
    const result = await exportNdjson([records], target, {
      columns: ["lattice.a", "tags", "method"],
      onWarning: (w) => warnings.push(w.message),
    });
    expect(result.items).toBe(2);
    const lines = readFileSync(target, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { _id: "a", "lattice.a": 5.03, tags: ["x"], "method.type": "DFT", "method.subtype": "GGA" },
      { _id: "b", "lattice.a": null, tags: null, "method.type": null, "method.subtype": null },
    ]);
    expect(Object.keys(lines[1])).toEqual(["_id", "lattice.a", "tags", "method.type", "method.subtype"]);
    expect(warnings).toHaveLength(1);
    expect(at(result.warnings, 0, "the result's warnings").ids).toEqual(["b"]);
  });
});
