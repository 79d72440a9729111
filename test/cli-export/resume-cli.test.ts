import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { startFaultServer, type FaultServer } from "../support/fault-server";
import { runCli, startCli, startServe, type ServeProcess } from "../reliability/support/cli";
import { resumePaths } from "../../src/frame/export/resume/progress-files";

// `matframe export --resume` killed at random points (SIGINT, SIGTERM, SIGKILL) and resumed ends
// with the file an uninterrupted export writes: byte for byte for CSV and NDJSON, the same table
// for Parquet (row groups may be cut differently). The server is slowed (30 ms a page) so kills
// land mid-run; each kill waits for the first committed progress, then a random while longer.

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

/** Resolves once the export has committed progress (its state file exists). */
async function committed(target: string, exited: () => boolean): Promise<void> {
  const { state } = resumePaths(target);
  while (!existsSync(state)) {
    if (exited()) throw new Error("the export ended before it committed any progress");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
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

  for (const format of ["csv", "ndjson", "parquet"] as const) {
    for (const signal of ["SIGINT", "SIGTERM", "SIGKILL"] as const) {
      it(`${format}, ${signal}: the resumed file equals an uninterrupted export`, async () => {
        const target = path.join(dir, `${format}-${signal}.${format}`);
        const run = startCli(args(format, target, ["--resume", "--quiet"]), { env: env() });
        let exited = false;
        void run.done.then(() => (exited = true));
        await committed(target, () => exited);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 600));
        run.child.kill(signal);
        const killed = await run.done;
        expect(existsSync(target)).toBe(false);
        if (signal !== "SIGKILL") {
          expect(killed.code).toBe(signal === "SIGINT" ? 130 : 143);
          expect(killed.stderr).toMatch(
            new RegExp(
              `interrupted by ${signal}; .* was not written; [\\d,]+ records are saved: run the same command again with --resume`,
            ),
          );
        }
        const resumed = await runCli(args(format, target, ["--resume"]), { env: env() });
        expect(resumed.stderr).toMatch(/Exported 4,000 materials .*, continuing the [\d,]+ saved by an earlier run\./);
        expect(resumed.code).toBe(0);
        if (format === "parquet") await sameTable(target, references.get(format)!);
        else expect(readFileSync(target)).toEqual(readFileSync(references.get(format)!));
        expect(readdirSync(dir).filter((name) => name.startsWith(`.${format}-${signal}`))).toEqual([]);
      }, 60_000);
    }
  }

  it("refuses a resume with other columns in the words of the flags, and --restart starts over", async () => {
    const target = path.join(dir, "changed.csv");
    const run = startCli(args("csv", target, ["--resume", "--quiet"]), { env: env() });
    let exited = false;
    void run.done.then(() => (exited = true));
    await committed(target, () => exited);
    run.child.kill("SIGINT");
    await run.done;
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
    const run = startCli(exportArgs(["--page-size", "5", "--quiet"]), { env: login });
    let exited = false;
    void run.done.then(() => (exited = true));
    await committed(target, () => exited);
    serve.child.kill("SIGKILL");
    await serve.done;
    const failed = await run.done;
    expect(failed.code).toBe(3); // a network error
    expect(failed.stderr).toMatch(/[\d,]+ records are saved: run the same command again with --resume to continue/);
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
