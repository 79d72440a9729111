import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { captured } from "../support/checked";
import { startFaultServer, type FaultServer } from "../support/fault-server";
import { runCli, startCli, startServe, type Running, type ServeProcess } from "../reliability/support/cli";
import { resumePaths } from "../../src/frame/export/resume/progress-files";

// `matframe export --resume` killed (SIGINT, SIGTERM, SIGKILL) and resumed ends with the file an
// uninterrupted export writes: byte for byte for CSV and NDJSON, the same table for Parquet (row
// groups may be cut differently). The child stops itself at a chosen step of its progress
// (test/support/kill-at-commit.cjs, which counts the steps the export publishes), so each case
// is killed at the same point in every run, with no clock involved. The server is slowed (30 ms
// a page) so that CSV and NDJSON, which commit once a second, commit more than once.

const KILLER = path.join(__dirname, "..", "support", "kill-at-commit.cjs");

let server: FaultServer;
let dir: string;
let duck: DuckDBConnection;
const env = (): Record<string, string> => ({
  MATFRAME_ACCOUNT_ID: server.accountId,
  MATFRAME_AUTH_TOKEN: server.authToken,
});

beforeAll(async () => {
  server = await startFaultServer({
    records: 4000,
    fault: (r) => (r.path.endsWith("/materials") ? { kind: "delay", ms: 30 } : undefined),
  });
  dir = mkdtempSync(path.join(tmpdir(), "matframe-resume-cli-"));
  duck = await (await DuckDBInstance.create(":memory:")).connect();
});

afterAll(async () => {
  duck?.closeSync();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function args(format: string, target: string, extra: string[] = []): string[] {
  const parquet = format === "parquet" ? ["--row-group-size", "300"] : [];
  return [
    "export",
    "--base-url",
    server.origin,
    "--format",
    format,
    "--output",
    target,
    "--page-size",
    "50",
    "--columns",
    "_id,name,formula,n",
    ...parquet,
    ...extra,
  ];
}

/** The environment that makes the export stop itself at its `step`th committed step. */
function stopAt(step: number, signal: "SIGINT" | "SIGTERM" | "SIGKILL"): Record<string, string> {
  const stop: Record<string, string> =
    signal === "SIGKILL"
      ? { MATFRAME_TEST_KILL_AT: String(step) }
      : { MATFRAME_TEST_SIGNAL_AT: String(step), MATFRAME_TEST_SIGNAL: signal };
  return { NODE_OPTIONS: `--require ${KILLER}`, ...stop };
}

/**
 * Resolves once the export says (on stderr) that it saved its progress mid-run (a state file
 * replaced, not the finished file); rejects if it exits first.
 */
function firstCommit(run: Running): Promise<void> {
  return new Promise((resolve, reject) => {
    const seen = (): void => {
      if (/commit point \d+: state/.test(run.stderr)) resolve();
    };
    run.child.stderr.on("data", seen);
    seen();
    void run.done.then(() => reject(new Error(`the export ended before it committed any progress: ${run.stderr}`)));
  });
}

async function sameTable(a: string, b: string): Promise<void> {
  const rows = async (sql: string) => (await duck.runAndReadAll(sql)).getRows();
  expect(await rows(`SELECT count(*) FROM (SELECT * FROM '${a}' EXCEPT ALL SELECT * FROM '${b}')`)).toEqual([[0n]]);
  expect(await rows(`SELECT count(*) FROM (SELECT * FROM '${b}' EXCEPT ALL SELECT * FROM '${a}')`)).toEqual([[0n]]);
  expect(await rows(`DESCRIBE SELECT * FROM '${a}'`)).toEqual(await rows(`DESCRIBE SELECT * FROM '${b}'`));
}

describe("matframe export --resume, killed and resumed", () => {
  const references = new Map<string, string>();

  beforeAll(async () => {
    for (const format of ["csv", "ndjson", "parquet"]) {
      const reference = path.join(dir, `reference.${format}`);
      const done = await runCli(args(format, reference, ["--paging", "keyset", "--quiet"]), { env: env() });
      expect(done.code).toBe(0);
      references.set(format, reference);
    }
  }, 60_000);

  // The step each case stops at: CSV and NDJSON commit once a second (a run takes at least 2.4 s
  // here), Parquet at each of its 14 row groups.
  const steps = {
    csv: { SIGINT: 1, SIGTERM: 2, SIGKILL: 2 },
    ndjson: { SIGINT: 2, SIGTERM: 1, SIGKILL: 1 },
    parquet: { SIGINT: 3, SIGTERM: 7, SIGKILL: 11 },
  };
  for (const format of ["csv", "ndjson", "parquet"] as const) {
    for (const signal of ["SIGINT", "SIGTERM", "SIGKILL"] as const) {
      const step = steps[format][signal];
      it(`${format}, ${signal} at step ${step}: the resumed file equals an uninterrupted export`, async () => {
        const target = path.join(dir, `${format}-${signal}.${format}`);
        const killed = await runCli(args(format, target, ["--resume", "--quiet"]), {
          env: { ...env(), ...stopAt(step, signal) },
        });
        if (signal === "SIGKILL") expect(killed.signal).toBe("SIGKILL");
        expect(existsSync(target)).toBe(false);
        if (signal !== "SIGKILL") {
          expect(killed.code).toBe(signal === "SIGINT" ? 130 : 143);
          expect(killed.stderr).toMatch(
            new RegExp(
              `interrupted by ${signal}; .* was not written; [\\d,]+ materials are saved: run the same command again with --resume`,
            ),
          );
        }
        const resumed = await runCli(args(format, target, ["--resume"]), { env: env() });
        // The run says at once that it resumes, and from where; its closing line agrees.
        const start =
          /Resuming: ([\d,]+) materials already written in ([\d,]+) pages?; continuing from page ([\d,]+)\./;
        const number = (group: number): number =>
          Number(captured(start, resumed.stderr, "the resuming line", group).replaceAll(",", ""));
        const kept = number(1);
        expect(number(3)).toBe(number(2) + 1);
        expect(kept).toBeGreaterThan(0);
        expect(resumed.stderr).toContain(
          `: ${kept.toLocaleString("en-US")} saved by an earlier run, ${(4000 - kept).toLocaleString("en-US")} added by this one.`,
        );
        expect(resumed.stderr.indexOf("Resuming:")).toBeLessThan(resumed.stderr.indexOf("Exported 4,000 materials"));
        expect(resumed.code).toBe(0);
        if (format === "parquet") await sameTable(target, references.get(format)!);
        else expect(readFileSync(target)).toEqual(readFileSync(references.get(format)!));
        expect(readdirSync(dir).filter((name) => name.startsWith(`.${format}-${signal}`))).toEqual([]);
      }, 60_000);
    }
  }

  it("says so when the earlier run stopped before its first save, and exports from the start", async () => {
    const target = path.join(dir, "before-first-save.parquet");
    // One row group bigger than the 4,000 rows, in pages of 5: nothing is saved for seconds.
    const once = (extra: string[]) => [
      ...args("parquet", target, extra),
      "--row-group-size",
      "10000",
      "--page-size",
      "5",
    ];
    const run = startCli(once(["--resume", "--quiet"]), { env: env() });
    // Its partial file is made before the first page; it is killed with nothing saved.
    // (A loaded machine takes seconds to start a node process.)
    await vi.waitFor(() => expect(existsSync(resumePaths(target).partial)).toBe(true), {
      interval: 5,
      timeout: 30_000,
    });
    run.child.kill("SIGKILL");
    expect((await run.done).signal).toBe("SIGKILL");
    expect(existsSync(resumePaths(target).state)).toBe(false);
    const resumed = await runCli(once(["--resume"]), { env: env() });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(
      "Resuming: the earlier run stopped before it saved any materials (a Parquet file saves at each complete row group of --row-group-size rows, other files about once a second); exporting from the start.",
    );
    expect(resumed.stderr).toContain("Exported 4,000 materials");
    await sameTable(target, references.get("parquet")!);
    // Once more: the file is there, finished; --resume has nothing to continue, and says so.
    const again = await runCli(once(["--resume"]), { env: env() });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `${target} already exists: the export that wrote it finished (or another command wrote it), so --resume has nothing to continue. Pass --force to export it again, or choose another --output.`,
    );
  }, 60_000);

  it("refuses a resume with other columns in the words of the flags, and --restart starts over", async () => {
    const target = path.join(dir, "changed.csv");
    const stopped = await runCli(args("csv", target, ["--resume", "--quiet"]), {
      env: { ...env(), ...stopAt(1, "SIGINT") },
    });
    expect(stopped.code).toBe(130);
    const changed = await runCli(
      ["export", "--base-url", server.origin, "--output", target, "--columns", "_id,name", "--resume"],
      { env: env() },
    );
    expect(changed.code).toBe(1);
    expect(changed.stderr).toMatch(
      /^(?:Exporting from [^\n]*\n)?matframe export: The saved progress of .*changed\.csv \([\d,]+ records\) is of another export: its columns were _id,name,formula,n, this run asks for _id,name\. .*--restart/,
    );
    const restarted = await runCli(
      [
        "export",
        "--base-url",
        server.origin,
        "--output",
        target,
        "--columns",
        "_id,name",
        "--page-size",
        "500",
        "--restart",
      ],
      { env: env() },
    );
    expect(restarted.code).toBe(0);
    expect(readFileSync(target, "utf8").split("\n")[0]).toBe("_id,name");
  }, 60_000);

  it("with --quiet, a resumed export prints nothing on stderr", async () => {
    const target = path.join(dir, "quiet.csv");
    const killed = await runCli(args("csv", target, ["--resume", "--quiet"]), {
      env: { ...env(), ...stopAt(1, "SIGKILL") },
    });
    expect(killed.signal).toBe("SIGKILL");
    const resumed = await runCli(args("csv", target, ["--resume", "--quiet"]), { env: env() });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toBe("");
    expect(readFileSync(target)).toEqual(readFileSync(references.get("csv")!));
  }, 60_000);

  it("refuses --resume to stdout and for a sort other than _id, naming the flag", async () => {
    const stdout = await runCli(["export", "--base-url", server.origin, "--resume"], { env: env() });
    expect(stdout.code).toBe(1);
    expect(stdout.stderr).toMatch(/--resume keeps the progress beside the output file: give --output FILE/);
    const sorted = await runCli(
      [
        "export",
        "--base-url",
        server.origin,
        "--output",
        path.join(dir, "s.csv"),
        "--resume",
        "--sort",
        '{"formula":1}',
      ],
      { env: env() },
    );
    expect(sorted.code).toBe(1);
    expect(sorted.stderr).toMatch(/--sort: A resumable export continues from an _id cursor/);
  });

  it("an export refused before any record (a token that no longer works) leaves no partial file", async () => {
    const empty = mkdtempSync(path.join(dir, "refused-"));
    const refused = await runCli(
      ["export", "--base-url", server.origin, "--output", path.join(empty, "r.csv"), "--resume"],
      {
        env: { MATFRAME_ACCOUNT_ID: server.accountId, MATFRAME_AUTH_TOKEN: "n0t-the-t0ken" },
      },
    );
    expect(refused.code, refused.stderr).toBe(2);
    expect(readdirSync(empty)).toEqual([]);
  });
});

describe("the server killed mid-export", () => {
  let serve: ServeProcess | undefined;
  afterAll(async () => {
    await serve?.stop();
  });

  it("the export stops with its progress saved, and resumes against the restarted server to the same bytes", async () => {
    serve = await startServe(["--synthetic", "5000", "--quiet"]);
    const port = String(serve.port);
    const login = { MATFRAME_USERNAME: "demo", MATFRAME_PASSWORD: "demo" };
    const target = path.join(dir, "server-killed.csv");
    const exportArgs = (extra: string[]) => [
      "export",
      "--base-url",
      serve!.baseUrl,
      "--username",
      "demo",
      "--output",
      target,
      "--resume",
      ...extra,
    ];
    // Pages of 2: 2,500 requests, seconds of work, so its once-a-second save comes mid-run.
    const run = startCli(exportArgs(["--page-size", "2", "--quiet"]), {
      env: { ...login, NODE_OPTIONS: `--require ${KILLER}`, MATFRAME_TEST_ANNOUNCE: "1" },
    });
    await firstCommit(run);
    serve.child.kill("SIGKILL");
    await serve.done;
    const failed = await run.done;
    expect(failed.code).toBe(3); // a network error
    expect(failed.stderr).toMatch(/[\d,]+ materials are saved: run the same command again with --resume to continue/);
    expect(existsSync(target)).toBe(false);

    serve = await startServe(["--synthetic", "5000", "--quiet", "--port", port]);
    expect(String(serve.port)).toBe(port);
    const resumed = await runCli(exportArgs(["--page-size", "500"]), { env: login });
    expect(resumed.code).toBe(0);
    const reference = path.join(dir, "server-reference.csv");
    expect(
      (
        await runCli(
          ["export", "--base-url", serve.baseUrl, "--username", "demo", "--output", reference, "--paging", "keyset"],
          { env: login },
        )
      ).code,
    ).toBe(0);
    expect(readFileSync(target)).toEqual(readFileSync(reference));
  }, 120_000);
});
