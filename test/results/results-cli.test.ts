import { mkdtempSync, readFileSync, rmSync } from "node:fs";
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
    await client.logout();
    expect(Object.keys(lines[0])).toEqual(df.columns);
    expect(lines.map((line) => df.columns.map((name) => line[name]))).toEqual(
      (df.values as unknown[][]).map((row) => row.map((v) => (typeof v === "number" && Number.isNaN(v) ? null : v))),
    );
  });

  it("refuses material-only flags and a structure format, writing nothing", async () => {
    const query = await runCli([
      "export",
      "--results",
      "band_gaps",
      "--query",
      "{}",
      "--output",
      path.join(dir, "q.csv"),
    ]);
    expect(query.code).toBe(1);
    expect(query.stderr).toMatch(/--query applies to material exports, not to results; leave out --query/);
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
