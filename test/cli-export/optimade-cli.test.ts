import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { DuckDBInstance } from "@duckdb/node-api";
import { startFakeProvider, startIndexProvider, type FakeProvider } from "../support/optimade-fake";
import { runCli } from "./run-cli";
import { captured } from "../support/checked";

const KILLER = join(__dirname, "..", "support", "kill-at-commit.cjs");

// `matframe export --optimade`, as a user runs it: the built CLI in its own process against a
// real (fake) provider on port 0.

let provider: FakeProvider;
let index: FakeProvider;
let dir: string;

beforeAll(async () => {
  provider = await startFakeProvider({ count: 25, next: "string" });
  index = await startIndexProvider([{ id: "fake", base: provider.base }]);
  dir = mkdtempSync(join(tmpdir(), "matframe-optimade-cli-"));
});

afterAll(async () => {
  await provider?.close();
  await index?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("matframe export --optimade", () => {
  it("writes the filter's entries with the columns asked for, following an index to its database", async () => {
    const output = join(dir, "binary.csv");
    const run = await runCli([
      "export",
      "--optimade",
      `${index.base}/`,
      "--filter",
      "nelements=2",
      "--columns",
      "id,chemical_formula_reduced,matframe:spaceGroupSymbol",
      "--page-size",
      "4",
      "--output",
      output,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`Exporting from the OPTIMADE provider ${index.base}.`);
    expect(run.stderr).toMatch(/Exported 13 structures \(4 pages\)/);
    const rows = parse(readFileSync(output, "utf8"), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(13);
    expect(rows[0]).toEqual({
      id: "fake-0000",
      chemical_formula_reduced: "ClNa",
      "matframe:spaceGroupSymbol": "Pm-3m",
    });
  });

  it("--format parquet writes nsites and nelements as INT64; a provider's non-integer is empty, with a warning", async () => {
    const offSpec = await startFakeProvider({ count: 4, attributes: { 2: { nsites: 2.5 } } });
    const output = join(dir, "integers.parquet");
    try {
      const run = await runCli([
        "export",
        "--optimade",
        offSpec.base,
        "--columns",
        "id,nsites,nelements",
        "--format",
        "parquet",
        "--output",
        output,
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(
        `nsites is empty in 1 row: the OPTIMADE provider ${offSpec.base} sent a value that is not an integer (2.5)`,
      );
    } finally {
      await offSpec.close();
    }
    const duck = await (await DuckDBInstance.create(":memory:")).connect();
    try {
      const read = async (q: string) => (await duck.runAndReadAll(q)).getRowObjectsJS();
      const types = await read(`DESCRIBE SELECT * FROM read_parquet('${output}')`);
      expect(types.map((r) => [r.column_name, r.column_type])).toEqual([
        ["id", "VARCHAR"],
        ["nsites", "BIGINT"],
        ["nelements", "BIGINT"],
      ]);
      const rows = await read(`SELECT nsites FROM read_parquet('${output}') ORDER BY id`);
      expect(rows.map((r) => r.nsites)).toEqual([2n, 2n, null, 2n]);
    } finally {
      duck.closeSync();
    }
  });

  it("exits 2 with the provider's message when it refuses the filter, and leaves no file", async () => {
    const output = join(dir, "refused.csv");
    const run = await runCli(["export", "--optimade", provider.base, "--filter", "nelements=", "--output", output]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n").at(-1)).toMatch(
      /^matframe export: The OPTIMADE provider refused the filter "nelements=": Unable to parse filter "nelements="\./,
    );
    expect(existsSync(output)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes("refused"))).toEqual([]);
  });

  it("--max-items and --format ndjson to stdout; cif files to a directory", async () => {
    const run = await runCli([
      "export",
      "--optimade",
      provider.base,
      "--columns",
      "id,nsites",
      "--max-items",
      "3",
      "--format",
      "ndjson",
      "--quiet",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(
      run.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { id: "fake-0000", nsites: 2 },
      { id: "fake-0001", nsites: 2 },
      { id: "fake-0002", nsites: 2 },
    ]);
    const out = join(dir, "cifs");
    const cif = await runCli([
      "export",
      "--optimade",
      provider.base,
      "--format",
      "cif",
      "--max-items",
      "4",
      "--output",
      out,
      "--quiet",
    ]);
    expect(cif.code, cif.stderr).toBe(0);
    expect(readdirSync(out).filter((f) => f.endsWith(".cif"))).toHaveLength(4);
  });

  it("--resume after a kill says what was saved and that the provider is read from the start", async () => {
    // Killed at its third row group (test/support/kill-at-commit.cjs counts the export's steps).
    const output = join(dir, "killed.parquet");
    const args = [
      "export",
      "--optimade",
      provider.base,
      "--format",
      "parquet",
      "--row-group-size",
      "5",
      "--page-size",
      "5",
    ];
    const killed = await runCli([...args, "--output", output, "--resume", "--quiet"], {
      env: { NODE_OPTIONS: `--require ${KILLER}`, MATFRAME_TEST_KILL_AT: "3" },
    });
    expect(killed.signal).toBe("SIGKILL");
    expect(existsSync(output)).toBe(false);
    const resumed = await runCli([...args, "--output", output, "--resume"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const saved = Number(
      captured(
        /Resuming: (\d+) structures already written; reading the provider's pages from the start again/,
        resumed.stderr,
        "the resuming line",
      ),
    );
    expect(saved).toBeGreaterThan(0);
    expect(resumed.stderr).toContain(`: ${saved} saved by an earlier run, ${25 - saved} added by this one.`);
    // Quiet runs say neither line.
    const quiet = await runCli([...args, "--output", join(dir, "quiet.parquet"), "--resume", "--quiet"]);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe("");
  });

  it("an index it cannot follow is reported as --optimade's, with the entry it skipped", async () => {
    const odd = await startIndexProvider([{ id: "odd", base: provider.base, attributes: { link_type: "sibling" } }]);
    try {
      const run = await runCli(["export", "--optimade", odd.base, "--output", join(dir, "odd.csv")]);
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split("\n").at(-1)).toMatch(
        /^matframe export: --optimade: http:\/\/127\.0\.0\.1:\d+ is an index meta-database whose \/links name no database with a base URL; matframe could not read the entry "odd" \(link_type: /,
      );
      expect(run.stderr).not.toContain("--base-url");
    } finally {
      await odd.close();
    }
  });

  it("refuses platform-only flags and a filter without a provider, exit 1", async () => {
    const query = await runCli(["export", "--optimade", provider.base, "--query", "{}"]);
    expect(query.code).toBe(1);
    expect(query.stderr).toMatch(
      /query applies to the platform's materials, not to an OPTIMADE provider; leave out --query/,
    );
    const filter = await runCli(["export", "--filter", "nelements=2"]);
    expect(filter.code).toBe(1);
    expect(filter.stderr).toMatch(
      /--filter is an OPTIMADE filter: it needs the provider's base URL \(optimade; --optimade URL/,
    );
  });
});
