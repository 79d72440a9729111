import { describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { EmptyColumnError, toDataFrame, type FrameWarning } from "../../src";
import { editDistance, nearestPath } from "../../src/frame/table/suggest";
import { runCli } from "../cli-export/run-cli";
import { usePlatform } from "../support/platform";
import { at } from "../support/checked";

// Issue 13: a misspelt column is not silently empty. A column that is null in every row gives a
// warning naming it and the nearest known path; `strict` makes it an error before anything is written.

describe("nearestPath", () => {
  it.each([
    ["lattice.aa", "lattice.a"],
    ["densty", "derivedProperties.density"],
    ["density", "derivedProperties.density"],
    ["derivedProperties.densty", "derivedProperties.density"],
    ["lattcie.b", "lattice.b"],
    ["fromula", "formula"],
    ["Formula", "formula"],
    ["method.subtyp", "method.subtype"],
  ])("%s -> %s", (typo, known) => {
    expect(nearestPath(typo)).toBe(known);
  });

  it("suggests nothing for a known path or one far from every known path", () => {
    expect(nearestPath("lattice.a")).toBeUndefined();
    expect(nearestPath("bandGap.direct")).toBeUndefined();
    expect(nearestPath("x")).toBeUndefined();
  });

  it("counts a swap of two neighbours as one edit", () => {
    expect(editDistance("lattcie", "lattice")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });
});

describe("empty columns", () => {
  const records = [
    { _id: "a", formula: "Si", lattice: { a: 3.8 }, derivedProperties: [{ name: "density", value: 2.3 }] },
    { _id: "b", formula: "GaAs", lattice: { a: 4.0 }, derivedProperties: [{ name: "density", value: 5.3 }] },
  ];

  it("warn with the nearest known path, and leave filled and partly filled columns alone", async () => {
    const warnings: FrameWarning[] = [];
    const df = await toDataFrame([...records, { _id: "c", formula: "X" }], {
      columns: ["formula", "lattice.aa", "densty", "lattice.a"],
      onWarning: (w) => warnings.push(w),
    });
    expect(df.shape).toEqual([3, 5]);
    expect(warnings.map((w) => [w.code, w.path, w.suggestion, w.rows])).toEqual([
      ["EMPTY_COLUMN", "lattice.aa", "lattice.a", 3],
      ["EMPTY_COLUMN", "densty", "derivedProperties.density", 3],
    ]);
    expect(at(warnings, 0, "the warnings").message).toBe(
      'column "lattice.aa" is empty: none of the 3 records has a value at that path; did you mean lattice.a?',
    );
  });

  it("do not call a material field misspelt when the records just lack it (one record without a method)", async () => {
    const warnings: FrameWarning[] = [];
    await toDataFrame([{ _id: "a", name: "Si", formula: "Si" }], { onWarning: (w) => warnings.push(w) });
    const method = warnings.find((w) => w.path === "method.type");
    expect(method?.message).toBe(
      'column "method.type" is empty: none of the 1 record has a value at that path (the path is a material field; these records do not carry it).',
    );
    expect(warnings.map((w) => w.message).join("\n")).not.toMatch(/spelling|did you mean/);
  });

  it("say to check the spelling when no known path is near", async () => {
    const warnings: FrameWarning[] = [];
    await toDataFrame(records, { columns: ["bandGap.direct"], onWarning: (w) => warnings.push(w) });
    const warning = at(warnings, 0, "the warnings");
    expect(warning.message).toMatch(/column "bandGap.direct" is empty: .*check the path's spelling/);
    expect(warning.suggestion).toBeUndefined();
  });

  it("give no warning for an empty table", async () => {
    const warnings: FrameWarning[] = [];
    await toDataFrame([], { columns: ["lattice.aa"], onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual([]);
  });

  it("with strict, are an EmptyColumnError", async () => {
    const error = await toDataFrame(records, { columns: ["formula", "lattice.aa"], strict: true }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EmptyColumnError);
    expect(error).toMatchObject({ code: "ERR_EMPTY_COLUMN", column: "lattice.aa", suggestion: "lattice.a" });
  });
});

describe("empty columns in exports", () => {
  const platform = usePlatform("matframe-empty-");

  it("strict to a stream holds rows back until every column has a value: nothing reaches the pipe of a failing export", async () => {
    const { PassThrough } = await import("node:stream");
    const failing = new PassThrough();
    let sent = "";
    failing.on("data", (chunk: Buffer) => (sent += chunk.toString()));
    await expect(
      platform.client.materials.exportCsv(failing, { columns: ["formula", "densty"], strict: true, pageSize: 5 }),
    ).rejects.toThrow(EmptyColumnError);
    expect(sent).toBe("");
    const passing = new PassThrough();
    let out = "";
    passing.on("data", (chunk: Buffer) => (out += chunk.toString()));
    await platform.client.materials.exportCsv(passing, {
      columns: ["formula", "lattice.a"],
      strict: true,
      pageSize: 5,
    });
    expect(out.trim().split("\n")).toHaveLength(30);
  });

  it("a resumed export still knows which columns an earlier run filled: the warning, and strict's refusal, hold across runs", async () => {
    const target = join(platform.dir, "resumed-empty.csv");
    const stop = new AbortController();
    await platform.client.materials
      .exportCsv(target, {
        columns: ["formula", "densty"],
        resume: true,
        pageSize: 5,
        signal: stop.signal,
        onWarning: () => {},
        onProgress: (p) => p.pages === 2 && stop.abort(),
      })
      .catch(() => undefined);
    const warnings: FrameWarning[] = [];
    await platform.client.materials.exportCsv(target, {
      columns: ["formula", "densty"],
      resume: true,
      pageSize: 5,
      onWarning: (w) => warnings.push(w),
    });
    expect(warnings.map((w) => [w.path, w.rows])).toEqual([["densty", 29]]);

    const strictTarget = join(platform.dir, "resumed-strict.csv");
    await expect(
      platform.client.materials.exportCsv(strictTarget, { columns: ["formula", "densty"], resume: true, strict: true }),
    ).rejects.toThrow(EmptyColumnError);
    // Nothing kept: a second run would meet the same refusal.
    await expect(
      platform.client.materials.exportCsv(strictTarget, { columns: ["formula", "densty"], resume: true, strict: true }),
    ).rejects.toThrow(EmptyColumnError);
    expect(existsSync(strictTarget)).toBe(false);
  });

  it("exportCsv and exportParquet with strict write nothing", async () => {
    for (const [method, file] of [
      ["exportCsv", "strict.csv"],
      ["exportParquet", "strict.parquet"],
    ] as const) {
      const target = join(platform.dir, file);
      await expect(
        platform.client.materials[method](target, { columns: ["formula", "lattice.aa"], strict: true }),
      ).rejects.toThrow(EmptyColumnError);
      expect(existsSync(target)).toBe(false);
    }
  });

  it("the CLI warns on stderr with the suggestion and exits 0; with --strict it exits 1 and writes nothing", async () => {
    const target = join(platform.dir, "typos.csv");
    const warned = await runCli(["export", "--columns", "formula,lattice.aa,densty", "--output", target, "--quiet"]);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain(
      'warning: column "lattice.aa" is empty: none of the 29 records has a value at that path; did you mean lattice.a?',
    );
    expect(warned.stderr).toContain("did you mean derivedProperties.density?");
    expect((parse(readFileSync(target, "utf8"), { columns: true }) as unknown[]).length).toBe(29);

    const strictTarget = join(platform.dir, "strict-typos.csv");
    const strict = await runCli([
      "export",
      "--columns",
      "formula,lattice.aa",
      "--output",
      strictTarget,
      "--strict",
      "--quiet",
    ]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toBe(
      'matframe export: Column "lattice.aa" is empty: none of the 29 records has a value at that path; did you mean lattice.a? Nothing was written (--strict).\n',
    );
    const toStdout = await runCli(["export", "--columns", "formula,densty", "--output", "-", "--strict", "--quiet"]);
    expect(toStdout.code).toBe(1);
    expect(toStdout.stdout).toBe("");
    expect(existsSync(strictTarget)).toBe(false);
  });
});
