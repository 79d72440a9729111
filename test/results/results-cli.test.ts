import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../src";
import type { ServerHandle } from "../../src/server";
import { startTestServer } from "../server/helpers";
import { runCli } from "../cli-export/run-cli";

// `matframe export --results` (the built CLI, in its own process) writes the rows the library's
// results view gives, and answers flags that do not apply in the words of the flags.

let server: ServerHandle;
let dir: string;

beforeAll(async () => {
  server = await startTestServer();
  dir = mkdtempSync(path.join(tmpdir(), "matframe-results-cli-"));
});
afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("matframe export --results", () => {
  it("writes the rows of client.results, with the columns added", async () => {
    const file = path.join(dir, "gaps.ndjson");
    const env = { MATFRAME_BASE_URL: server.baseUrl, MATFRAME_USERNAME: "demo", MATFRAME_PASSWORD: "demo" };
    const result = await runCli(
      [
        "export",
        "--results",
        "band_gaps",
        "--columns",
        "material.derivedProperties.density",
        "--output",
        file,
        "--quiet",
      ],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
    const df = await client.results.toDataFrame({
      properties: ["band_gaps"],
      columns: ["material.derivedProperties.density"],
    });
    // A misspelt material column: the suggestion keeps the table's `material.` prefix.
    const warnings: string[] = [];
    await client.results.toDataFrame({
      properties: ["band_gaps"],
      columns: ["material.derivedProperties.densty"],
      onWarning: (w) => warnings.push(w.message),
    });
    expect(warnings).toEqual([expect.stringContaining("did you mean material.derivedProperties.density?")]);
    await client.logout();
    expect(Object.keys(lines[0])).toEqual(df.columns);
    expect(lines.map((line) => df.columns.map((name) => line[name]))).toEqual(
      (df.values as unknown[][]).map((row) => row.map((v) => (typeof v === "number" && Number.isNaN(v) ? null : v))),
    );
  });

  it("filters with --query over the table's columns, and refuses a kind the platform does not hold with a did-you-mean", async () => {
    const env = { MATFRAME_BASE_URL: server.baseUrl, MATFRAME_USERNAME: "demo", MATFRAME_PASSWORD: "demo" };
    const file = path.join(dir, "cubic.ndjson");
    const query = JSON.stringify({ "material.matframe:crystalSystem": "cubic", "band_gaps.indirect": { $gt: 1 } });
    const result = await runCli(
      [
        "export",
        "--results",
        "band_gaps",
        "--columns",
        "material.matframe:crystalSystem",
        "--query",
        query,
        "--output",
        file,
        "--quiet",
      ],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line["material.matframe:crystalSystem"]).toBe("cubic");
      expect(line["band_gaps.indirect"]).toBeGreaterThan(1);
    }
    const missing = path.join(dir, "gap.csv");
    const wrong = await runCli(["export", "--results", "band_gap", "--output", missing], { env });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/did you mean "band_gaps"/i);
    expect(wrong.stderr).toMatch(/The kinds it holds: band_gaps/);
    expect(existsSync(missing)).toBe(false);
  });

  it("writes the reference dielectric properties with --results, and suggests the kind near a misspelt one", async () => {
    const env = { MATFRAME_BASE_URL: server.baseUrl, MATFRAME_USERNAME: "demo", MATFRAME_PASSWORD: "demo" };
    const file = path.join(dir, "optics.ndjson");
    const result = await runCli(
      ["export", "--results", "refractive_index,dielectric_tensor", "--output", file, "--quiet"],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2 * 1056);
    const indices = lines.filter((line) => line["refractive_index.value"] !== null);
    expect(indices).toHaveLength(1056);
    expect(indices.every((line) => typeof line["refractive_index.value"] === "number")).toBe(true);
    const tensors = lines.filter((line) => line["dielectric_tensor.xx"] !== null);
    expect(tensors).toHaveLength(1056);
    expect(tensors.every((line) => typeof line["dielectric_tensor.zz"] === "number")).toBe(true);
    const missing = path.join(dir, "n.csv");
    const wrong = await runCli(["export", "--results", "refractive_indx", "--output", missing], { env });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/did you mean "refractive_index" for "refractive_indx"/i);
    expect(existsSync(missing)).toBe(false);
  });

  it("refuses material-only flags and a structure format, writing nothing", async () => {
    const sort = await runCli([
      "export",
      "--results",
      "band_gaps",
      "--sort",
      '{"formula":1}',
      "--output",
      path.join(dir, "q.csv"),
    ]);
    expect(sort.code).toBe(1);
    expect(sort.stderr).toMatch(/--sort applies to material exports, not to results; leave out --sort/);
    // Was taken and left unused: one Parquet file where a dataset folder was asked for.
    const hive = path.join(dir, "hive");
    const partitioned = await runCli([
      "export",
      "--results",
      "band_gaps",
      "--format",
      "parquet",
      "--partition-by",
      "method.subtype",
      "--output",
      hive,
    ]);
    expect(partitioned.code).toBe(1);
    expect(partitioned.stderr).toMatch(
      /--partition-by applies to material exports, not to results; leave out --partition-by/,
    );
    expect(existsSync(hive)).toBe(false);
    const cif = await runCli([
      "export",
      "--results",
      "band_gaps",
      "--format",
      "cif",
      "--output",
      path.join(dir, "cif"),
    ]);
    expect(cif.code).toBe(1);
    expect(cif.stderr).toMatch(/--results writes a table/);
    const slug = await runCli(["export", "--results", "Band-Gaps", "--output", path.join(dir, "s.csv")]);
    expect(slug.code).toBe(1);
    expect(slug.stderr).toMatch(/--results holds "Band-Gaps", which is not a property slug/);
  });
});
