import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { startServer, type ServerHandle } from "../../src/server";
import { resumePaths } from "../../src/frame/export/resume/progress-files";
import { runCli, type CliResult } from "./run-cli";
import { at } from "../support/checked";

// `matframe export --partition-by --resume` killed with SIGKILL at every step of one run where
// its files on disk change (each state file replaced, each file finished, placed, cleared: the
// steps the export publishes on its "matframe:export:commit" diagnostics channel), then run
// again: the dataset holds every record exactly once, and the second run never refuses. The
// kill is the child's own (test/support/kill-at-commit.cjs, loaded with --require), at the Nth
// step: the same step in every run, no clock involved. Then SIGINT at a step of the resumed run
// and SIGKILL at each step of its stopping. The walk's pages (4 records) are cut by row groups
// (7 rows), and three lattice types interleave along the _id order.

const KILLER = path.join(__dirname, "..", "support", "kill-at-commit.cjs");
const TYPES = ["FCC", "HEX", "TET"];

let server: ServerHandle;
let dir: string;
let duck: DuckDBConnection;
let login: Record<string, string>;
let reference: string;
let totalSteps: number;

function args(target: string): string[] {
  return [
    "export",
    "--base-url",
    server.baseUrl.replace(/\/api\/.*$/, ""),
    "--format",
    "parquet",
    "--columns",
    "_id,formula,lattice.type",
    "--partition-by",
    "lattice.type",
    "--query",
    JSON.stringify({ "lattice.type": { $in: TYPES } }),
    "--row-group-size",
    "7",
    "--page-size",
    "4",
    "--resume",
    "--quiet",
    "--output",
    target,
  ];
}

function exportTo(target: string, kill: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args(target), { env: { ...login, NODE_OPTIONS: `--require ${KILLER}`, ...kill } });
}

/** The steps a run took, as the child's kill-at-commit.cjs counts them at exit. */
function stepsOf(run: CliResult): number {
  const match = /commit points: (\d+)/.exec(run.stderr);
  if (!match) throw new Error(`no step count in the export's output: ${run.stderr}`);
  return Number(match[1]);
}

async function rows(sql: string): Promise<unknown[][]> {
  return (await duck.runAndReadAll(sql)).getRows();
}

const table = (where: string) =>
  `(SELECT _id, formula, "lattice.type" FROM read_parquet('${where}/**/*.parquet', hive_partitioning = true))`;

/** Every record of the uninterrupted export, each once, in its lattice type's folder; nothing else. */
async function expectEveryRecordOnce(target: string, label: string): Promise<void> {
  const [all, distinct] = at(await rows(`SELECT count(*), count(DISTINCT _id) FROM ${table(target)}`), 0, "the counts");
  const [expected] = at(await rows(`SELECT count(*) FROM ${table(reference)}`), 0, "the reference's count");
  expect({ label, rows: all, ids: distinct }).toEqual({ label, rows: expected, ids: expected });
  expect(await rows(`SELECT count(*) FROM (${table(reference)} EXCEPT ALL ${table(target)})`)).toEqual([[0n]]);
  expect(await rows(`SELECT count(*) FROM (${table(target)} EXCEPT ALL ${table(reference)})`)).toEqual([[0n]]);
  const { partial, state } = resumePaths(target);
  expect(existsSync(path.join(target, "_SUCCESS")) && !existsSync(partial) && !existsSync(state)).toBe(true);
}

beforeAll(async () => {
  server = await startServer({ port: 0, synthetic: 60 });
  const answer = await fetch(`${server.baseUrl}/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "demo", password: "demo" }),
  });
  const session = ((await answer.json()) as { data: { "X-Account-Id": string; "X-Auth-Token": string } }).data;
  login = { MATFRAME_ACCOUNT_ID: session["X-Account-Id"], MATFRAME_AUTH_TOKEN: session["X-Auth-Token"] };
  dir = mkdtempSync(path.join(tmpdir(), "matframe-hive-kill-"));
  duck = await (await DuckDBInstance.create(":memory:")).connect();
  reference = path.join(dir, "reference");
  const whole = await exportTo(reference);
  expect(whole.code, whole.stderr).toBe(0);
  totalSteps = stepsOf(whole);
  console.log(`hive-resume-kill: ${totalSteps} steps`);
  const counts = await rows(`SELECT count(*), count(DISTINCT "lattice.type") FROM ${table(reference)}`);
  const [records, folders] = at(counts, 0, "the reference's counts");
  // Enough records for several row groups per folder, every folder in use.
  expect(Number(records)).toBeGreaterThan(30);
  expect(folders).toBe(BigInt(TYPES.length));
});

afterAll(async () => {
  duck?.closeSync();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a hive-partitioned export killed at every step and resumed", () => {
  it("SIGKILL at each step, then the same command: every record exactly once, never refused", async () => {
    expect(totalSteps).toBeGreaterThan(20);
    for (let step = 1; step <= totalSteps; step++) {
      const target = path.join(dir, `kill-${step}`);
      const killed = await exportTo(target, { MATFRAME_TEST_KILL_AT: String(step) });
      expect({ step, signal: killed.signal }).toEqual({ step, signal: "SIGKILL" });
      const resumed = await exportTo(target);
      if (step < totalSteps)
        expect({ step, code: resumed.code, stderr: resumed.stderr }).toMatchObject({ step, code: 0 });
      // The last step removes the state: the export had finished, and a second run says so.
      else
        expect(resumed.stderr).toMatch(
          /already exists: the export that wrote it finished .*--resume has nothing to continue/,
        );
      await expectEveryRecordOnce(target, `killed at step ${step} of ${totalSteps}`);
      rmSync(target, { recursive: true, force: true });
    }
  }, 900_000);

  it("SIGINT on the resumed run, then SIGKILL at each step of its stopping: every record exactly once", async () => {
    // The first run killed a third of the way, kept as it is for each case below.
    const saved = path.join(dir, "saved");
    mkdirSync(saved);
    const first = await exportTo(path.join(saved, "out"), {
      MATFRAME_TEST_KILL_AT: String(Math.floor(totalSteps / 3)),
    });
    expect(first.signal).toBe("SIGKILL");
    for (let after = 1; ; after++) {
      const cases = path.join(dir, `interrupted-${after}`);
      cpSync(saved, cases, { recursive: true });
      const target = path.join(cases, "out");
      const stopping = await exportTo(target, {
        MATFRAME_TEST_SIGNAL_AT: "3",
        MATFRAME_TEST_KILL_AFTER_SIGNAL: String(after),
      });
      const resumed = await exportTo(target);
      expect({ after, code: resumed.code, stderr: resumed.stderr }).toMatchObject({ after, code: 0 });
      await expectEveryRecordOnce(target, `SIGINT, then SIGKILL at step ${after} of the stop`);
      rmSync(cases, { recursive: true, force: true });
      if (stopping.signal === "SIGKILL") continue;
      // The stop finished before this step: every step of it was tried.
      expect(stopping.code, stopping.stderr).toBe(130);
      expect(after).toBeGreaterThan(1);
      break;
    }
  }, 900_000);
});
