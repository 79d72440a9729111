import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { startServer, type ServerHandle } from "../../src/server";
import { Client } from "../../src";
import { lastLine, runCli } from "./run-cli";
import { DOCUMENTED_DEFAULT_COLUMNS } from "../support/default-columns";
import { at } from "../support/checked";

const bundled = JSON.parse(readFileSync(join(__dirname, "../../data/materials.json"), "utf8")) as Array<{
  _id: string;
  formula: string;
}>;

let dir: string;
let server: ServerHandle;
const PASSWORD = "correct horse battery staple";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "matframe-cli-"));
  server = await startServer({ port: 0, users: [`alice:${PASSWORD}`] });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function expectOneLineError(stderr: string, text: string): void {
  // The line saying which platform is read (before the first request) is not part of the error.
  const lines = stderr
    .trimEnd()
    .split("\n")
    .filter((line) => !line.startsWith("Exporting from "));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^matframe export: /);
  expect(lines[0]).toContain(text);
  expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
}

describe("matframe export with no base URL (the local platform)", () => {
  it("writes the bundled materials as CSV to stdout, with a summary on stderr", async () => {
    const result = await runCli(["export", "--output", "-"], { cwd: dir });
    expect(result.code).toBe(0);
    const rows = parse(result.stdout, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r._id)).toEqual(bundled.map((m) => m._id));
    expect(Object.keys(at(rows, 0, "a CSV row"))).toEqual(DOCUMENTED_DEFAULT_COLUMNS);
    expect(result.stderr).toContain("built-in local platform");
    expect(lastLine(result.stderr)).toMatch(
      new RegExp(`^Exported ${bundled.length} materials \\(1 page\\) in \\d+\\.\\d s to stdout\\.$`),
    );
    // stderr is not a terminal here: no progress bar escape codes.
    expect(result.stderr).not.toContain("\x1b[");
  });

  it("an --output that cannot be written says why in words, and never names a temporary file", async () => {
    writeFileSync(join(dir, "a-file"), "not a directory");
    const cases: [string[], RegExp][] = [
      [
        ["--output", "/proc/matframe-new.csv"],
        /Cannot write \/proc\/matframe-new\.csv: no file can be created in \/proc\.$/,
      ],
      [
        ["--output", "a-file/x.csv"],
        /Cannot write a-file\/x\.csv: .*a-file is not a directory \(a part of that path is a file\)\.$/,
      ],
      [
        ["--output", "no-such-dir/x.csv"],
        /Cannot write no-such-dir\/x\.csv: the directory .*no-such-dir does not exist\.$/,
      ],
      [["--partitions", "2", "--output", "a-file/parts"], /Cannot create a-file\/parts: .*a-file is not a directory/],
      [
        ["--partitions", "2", "--output", "no-such-dir/parts"],
        /Cannot create no-such-dir\/parts: the directory .*no-such-dir does not exist\.$/,
      ],
      [
        ["--partition-by", "method.type", "--format", "parquet", "--output", "no-such-dir/ds"],
        /Cannot create no-such-dir\/ds: the directory .*no-such-dir does not exist\.$/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(["export", ...args], { cwd: dir });
      expect(result.code, args.join(" ")).toBe(1);
      // A folder that is missing or a file is said before the platform is started (or logged in
      // to); /proc is a folder, and only the file's creation finds it takes none.
      if (!args.includes("/proc/matframe-new.csv"))
        expect(result.stderr, args.join(" ")).not.toContain("local platform");
      // The line saying the built-in platform is read, then the error, on one line and no stack.
      const errors = result.stderr.split("\n").filter((line) => line.startsWith("matframe export: "));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.stderr).not.toMatch(/\.tmp|\.partial|ENOTDIR|ENOENT/);
    }
  });

  it("writes a file, refuses to overwrite it, and overwrites it with --force", async () => {
    const first = await runCli(
      ["export", "--output", "materials.csv", "--columns", "formula,lattice.a", "--page-size", "10"],
      { cwd: dir },
    );
    expect(first.code).toBe(0);
    expect(first.stdout).toBe("");
    const target = join(dir, "materials.csv");
    expect(lastLine(first.stderr)).toMatch(/^Exported 29 materials \(3 pages\) in \d+\.\d s to .*materials\.csv\.$/);
    const rows = parse(readFileSync(target, "utf8"));
    expect(rows[0]).toEqual(["_id", "formula", "lattice.a"]);
    expect(rows).toHaveLength(bundled.length + 1);

    writeFileSync(target, "keep me");
    const refused = await runCli(["export", "--output", "materials.csv"], { cwd: dir });
    expect(refused.code).toBe(1);
    expectOneLineError(refused.stderr, "materials.csv already exists");
    expect(readFileSync(target, "utf8")).toBe("keep me");

    const forced = await runCli(["export", "--output", "materials.csv", "--force", "--quiet"], { cwd: dir });
    expect(forced.code).toBe(0);
    expect(forced.stderr).toBe("");
    expect(parse(readFileSync(target, "utf8"))).toHaveLength(bundled.length + 1);
  });

  it("writes NDJSON with --format ndjson, query, sort and max items", async () => {
    const result = await runCli(
      [
        "export",
        "--format",
        "ndjson",
        "--columns",
        "formula",
        "--query",
        '{"tags":"3D"}',
        "--sort",
        '{"formula":-1}',
        "--max-items",
        "3",
        "--quiet",
      ],
      { cwd: dir },
    );
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(3);
    const formulas = lines.map((l) => l.formula);
    expect(formulas).toEqual([...formulas].sort().reverse());
    expect(Object.keys(lines[0])).toEqual(["_id", "formula"]);
  });

  it("picks NDJSON for a .ndjson output file", async () => {
    const result = await runCli(["export", "--output", "out.ndjson", "--columns", "formula", "--quiet"], { cwd: dir });
    expect(result.code).toBe(0);
    const lines = readFileSync(join(dir, "out.ndjson"), "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(bundled.length);
    const first = at(bundled, 0, "a bundled material");
    expect(JSON.parse(at(lines, 0, "an NDJSON line"))).toEqual({ _id: first._id, formula: first.formula });
  });

  it("shows its help on stdout", async () => {
    const result = await runCli(["export", "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Usage: matframe export");
    expect(result.stdout).toContain("--password-stdin");
  });
});

describe("matframe export usage errors (exit 1)", () => {
  it.each([
    [["--paging", "sideways"], '--paging must be offset or keyset; got "sideways".'],
    [["--format", "xlsx"], "--format must be csv or ndjson"],
    [["--query", "{nope"], "--query must be a JSON object"],
    [["--query", "[1]"], "--query must be a JSON object"],
    [["--page-size", "ten"], '--page-size must be a whole number; got "ten".'],
    [["--page-size", "900"], "--page-size must be an integer from 1 to 500"],
    [["--columns", "lattice..a"], 'Column "lattice..a" has an empty segment'],
    [["--bogus"], "--help"],
    [["--password", "hunter2"], "--password is not accepted"],
    [["--username", "alice"], "--username needs a platform to log in to"],
  ])("%j", async (args, message) => {
    const result = await runCli(["export", "--output", "-", ...args], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expectOneLineError(result.stderr, message);
    expect(result.stderr).not.toContain("hunter2");
  });
});

describe("matframe export usage errors that need the environment or the disk", () => {
  it("--username without a base URL is refused, not ignored for the demo platform", async () => {
    const result = await runCli(["export", "--output", "-", "--username", "alice"], {
      cwd: dir,
      env: { MATFRAME_PASSWORD: "x" },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expectOneLineError(result.stderr, "--username needs a platform to log in to");
  });

  it("a directory as --output is refused before anything starts, even with --force", async () => {
    const result = await runCli(["export", "--output", dir, "--force"], { cwd: dir });
    expect(result.code).toBe(1);
    expectOneLineError(result.stderr, "is a directory");
    expect(result.stderr).not.toContain("built-in local platform");
  });
});

describe("matframe export against a platform", () => {
  it("logs in with --username and MATFRAME_PASSWORD", async () => {
    const result = await runCli(
      ["export", "--base-url", server.baseUrl, "--username", "alice", "--columns", "formula", "--quiet"],
      {
        env: { MATFRAME_PASSWORD: PASSWORD },
      },
    );
    expect(result.code).toBe(0);
    expect(parse(result.stdout)).toHaveLength(bundled.length + 1);
  });

  it("reads the password from --password-stdin", async () => {
    const result = await runCli(
      ["export", "--base-url", server.baseUrl, "--username", "alice", "--password-stdin", "--quiet"],
      {
        stdin: `${PASSWORD}\n`,
      },
    );
    expect(result.code).toBe(0);
    expect(parse(result.stdout)).toHaveLength(bundled.length + 1);
  });

  it("logs in with MATFRAME_USERNAME and MATFRAME_PASSWORD", async () => {
    const result = await runCli(["export", "--quiet", "--max-items", "2"], {
      env: { MATFRAME_BASE_URL: server.baseUrl, MATFRAME_USERNAME: "alice", MATFRAME_PASSWORD: PASSWORD },
    });
    expect(result.code).toBe(0);
    expect(parse(result.stdout)).toHaveLength(3);
  });

  it("uses MATFRAME_ACCOUNT_ID and MATFRAME_AUTH_TOKEN as they are, and does not revoke the token", async () => {
    const login = await fetch(`${server.baseUrl}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ username: "alice", password: PASSWORD }).toString(),
    });
    const { data } = (await login.json()) as { data: { "X-Account-Id": string; "X-Auth-Token": string } };
    const accountId = data["X-Account-Id"];
    const authToken = data["X-Auth-Token"];
    const result = await runCli(["export", "--quiet", "--max-items", "2"], {
      env: { MATFRAME_BASE_URL: server.baseUrl, MATFRAME_ACCOUNT_ID: accountId, MATFRAME_AUTH_TOKEN: authToken },
    });
    expect(result.code).toBe(0);
    expect(parse(result.stdout)).toHaveLength(3);
    expect(result.stderr).not.toContain(authToken);
    const client = new Client({ baseUrl: server.baseUrl, accountId, authToken });
    expect(await client.materials.list({ projection: { limit: 1 } })).toHaveLength(1);
    await client.logout();
  });

  it("exits 2 on a wrong password, naming neither password nor token", async () => {
    const result = await runCli(["export", "--base-url", server.baseUrl, "--username", "alice"], {
      env: { MATFRAME_PASSWORD: "wrong-password-123" },
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expectOneLineError(result.stderr, "");
    expect(result.stderr).not.toContain("wrong-password-123");
    // Which platform refused it is said before the login, so it is there when the login fails.
    expect(result.stderr.split("\n")[0]).toBe(
      `Exporting from ${server.baseUrl} (address from --base-url; credentials from --username + its password).`,
    );
  });

  it("exits 2 on a query the platform rejects, with nothing on stdout", async () => {
    const result = await runCli(
      ["export", "--base-url", server.baseUrl, "--username", "alice", "--query", '{"$where":"1"}'],
      {
        env: { MATFRAME_PASSWORD: PASSWORD },
      },
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expectOneLineError(result.stderr, "400");
  });

  it("exits 3 when the platform cannot be reached", async () => {
    // Port 1 (tcpmux), which nothing here serves; a closed server's port may go to another test's.
    const baseUrl = "http://127.0.0.1:1/api/2018-10-01";
    const result = await runCli(["export", "--base-url", baseUrl, "--username", "demo", "--output", "x.csv"], {
      cwd: dir,
      env: { MATFRAME_PASSWORD: "demo" },
    });
    expect(result.code).toBe(3);
    expectOneLineError(result.stderr, "ECONNREFUSED");
  });
});
