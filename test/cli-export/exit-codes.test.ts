// One exit code rule for every command, and remedies worded from the errors' fields.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthenticationError, ResponseValidationError, ResumeError, ValidationError } from "../../src/errors";
import { describeError, exitCodeFor } from "../../src/cli/errors";
import { failureError } from "../../src/client/transport/failure";
import { FLAG_FOR_OPTION, parseExportFlags } from "../../src/cli/export-flags";
import { runCli } from "./run-cli";

/** A real server on a free port that answers every request, once read, with `status` and `body`; its base URL. */
function answeringEvery(status: number, body: unknown): { baseUrl: () => string } {
  let server: Server;
  let baseUrl = "";
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { baseUrl: () => baseUrl };
}

describe("a platform whose login answer is malformed", () => {
  // A real server that accepts every login but answers it without the account id and token.
  const platform = answeringEvery(200, { status: "success", data: { nothing: "here" } });

  it("makes login and export exit alike, with 2, on one line", async () => {
    const args = ["--base-url", platform.baseUrl(), "--username", "alice", "--password-stdin"];
    const login = await runCli(["login", ...args], { stdin: "secret-pw\n" });
    const exported = await runCli(["export", ...args, "--quiet"], { stdin: "secret-pw\n" });
    for (const [command, result] of [
      ["login", login],
      ["export", exported],
    ] as const) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(new RegExp(`^matframe ${command}: `));
      expect(result.stderr).not.toContain("secret-pw");
    }
  });
});

describe("a platform whose refusal holds terminal controls", () => {
  // The reason is the server's text: a hostile or broken one must not drive the user's terminal.
  const platform = answeringEvery(400, {
    status: "error",
    message: "no \u001b]0;owned\u0007 such \u009b2J \u202euser",
  });

  it("login and export write its controls out", async () => {
    const args = ["--base-url", platform.baseUrl(), "--username", "alice", "--password-stdin"];
    for (const command of ["login", "export"]) {
      const result = await runCli([command, ...args, ...(command === "export" ? ["--quiet"] : [])], {
        stdin: "secret-pw\n",
      });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      expect(result.stderr).toContain("no \\u001b]0;owned\\u0007 such \\u009b2J \\u202euser");
    }
  });
});

describe("the exit code rule", () => {
  it("is 2 for a malformed answer, 1 for a mistake to fix here", () => {
    expect(exitCodeFor(new ResponseValidationError("bad", { endpoint: "POST /login", status: 200, issues: [] }))).toBe(
      2,
    );
    expect(exitCodeFor(new ValidationError("sort", "bad sort"))).toBe(1);
    expect(exitCodeFor(new ResumeError("cannot continue", "x.csv", { to: "to start over" }))).toBe(1);
  });
});

describe("remedies in the command's words", () => {
  const wording = { flags: FLAG_FOR_OPTION };

  it("names flags where the library names options", () => {
    const error = new ValidationError("sort", "A partitioned export walks in _id order", {
      remedy: { leaveOut: ["sort", "partitions"] },
    });
    expect(error.message).toBe("A partitioned export walks in _id order; leave out sort, or leave out partitions.");
    expect(describeError(error, wording)).toBe(
      "--sort: A partitioned export walks in _id order; leave out --sort, or leave out --partitions.",
    );
  });

  it("names every flag of an option the export refuses for results", () => {
    for (const [option, flag] of [
      ["units", "--units"],
      ["strict", "--strict"],
      ["force", "--force"],
    ]) {
      const error = new ValidationError(option!, `${option} applies to material exports, not to results`, {
        remedy: { leaveOut: [option!] },
      });
      expect(describeError(error, wording)).toBe(
        `${flag} applies to material exports, not to results; leave out ${flag}.`,
      );
    }
  });

  it("says --restart, and restart: true to a library caller", () => {
    const error = new ResumeError("The saved progress of x.csv cannot be read.", "x.csv", {
      to: "to discard it and start over",
    });
    expect(error.message).toBe(
      "The saved progress of x.csv cannot be read. Pass restart: true to discard it and start over.",
    );
    expect(describeError(error, wording)).toBe(
      "The saved progress of x.csv cannot be read. Pass --restart to discard it and start over.",
    );
  });

  it("leaves out a client option the CLI has no flag for: a request's timeout", () => {
    const error = failureError(
      { kind: "timeout", cause: undefined },
      {
        endpoint: "GET /api/2018-10-01/materials",
        origin: "http://platform.example.org",
        read: true,
        attempts: 2,
        timeoutMs: 30_000,
        maxResponseBytes: 1 << 20,
        secrets: [],
      },
    );
    expect(error.message).toBe(
      "GET /api/2018-10-01/materials got no complete answer within 30000 ms (2 attempts). The server may be overloaded or unreachable: try again later, or raise timeout.",
    );
    expect(describeError(error, wording)).toBe(
      "GET /api/2018-10-01/materials got no complete answer within 30000 ms (2 attempts). The server may be overloaded or unreachable: try again later.",
    );
  });

  it("says how to renew the credentials that were refused", () => {
    const error = new AuthenticationError(
      "Not authenticated",
      { status: 401, endpoint: "GET /materials" },
      { remedy: { logInAgain: true } },
    );
    expect(error.message).toBe("Not authenticated: log in again.");
    expect(describeError(error, { ...wording, credentialsFrom: 'the saved login "lab"' })).toBe(
      'Not authenticated: log in again (`matframe login` to replace the saved login "lab").',
    );
  });
});

describe("the export flags", () => {
  const terminal = Object.assign(new Writable({ write: (_c, _e, done) => done() }), { isTTY: true });

  it("are read without I/O: the login is named, the password left to the command", () => {
    const parsed = parseExportFlags(["--base-url", "http://127.0.0.1:9", "--username", "alice", "--max-items", "5"], {
      stdout: terminal,
      env: {},
    });
    expect(parsed.task.maxItems).toBe(5);
    expect(parsed.login).toMatchObject({
      username: "alice",
      baseUrl: "http://127.0.0.1:9/api/2018-10-01",
      passwordStdin: false,
    });
  });

  it("refuse binary Parquet to a terminal", () => {
    expect(() => parseExportFlags(["--format", "parquet"], { stdout: terminal, env: {} })).toThrow(
      /writes binary data/,
    );
  });
});
