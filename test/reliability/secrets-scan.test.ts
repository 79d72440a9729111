import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthenticationError, Client, MatframeError } from "../../src";
import { startServer, type ServerHandle } from "../../src/server";
import { ROOT, runCli, startServe, type Finished, type ServeProcess } from "./support/cli";
import { login, PREFIX, send } from "./support/http";
import { Figures } from "./support/report";
import { capturedAll } from "../support/checked";

// A full run of what matframe prints (the CLI serving and exporting with a password on stdin
// and in MATFRAME_* variables, the server's log, client errors for a wrong password and a
// revoked token, the committed notebooks' outputs), scanned for the passwords and tokens used.

const USER = "scanner";
const PASSWORD = `pw-${randomBytes(12).toString("hex")}`;
const WRONG_PASSWORD = `wrong-${randomBytes(12).toString("hex")}`;
/** The local platform's tokens: 64 base64url characters. */
const TOKEN_SHAPE = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{64}(?![A-Za-z0-9_-])/;

const figures = new Figures("secrets-scan");
/** Everything printed, by where it came from. */
const printed = new Map<string, string>();
const secrets = new Set<string>([PASSWORD, WRONG_PASSWORD]);

let serve: ServeProcess;
let inProcess: ServerHandle;
const inProcessLog: string[] = [];
let dir: string;

function record(label: string, text: string): void {
  printed.set(label, (printed.get(label) ?? "") + text);
}

function recordRun(label: string, finished: Finished): Finished {
  record(`${label} (stdout)`, finished.stdout);
  record(`${label} (stderr)`, finished.stderr);
  return finished;
}

/** Every error text a user or a log could show: message, stack, inspect, JSON, cause chain. */
function errorTexts(error: unknown): string {
  return [
    String(error),
    (error as Error)?.stack ?? "",
    inspect(error, { depth: 6, showHidden: true }),
    JSON.stringify(error) ?? "",
  ].join("\n");
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "matframe-secrets-"));
  serve = await startServe(["--user", `${USER}:${PASSWORD}`, "--synthetic", "300"]);
  inProcess = await startServer({
    host: "127.0.0.1",
    port: 0,
    users: [{ username: USER, password: PASSWORD }],
    log: (line) => inProcessLog.push(line),
  });
});

afterAll(async () => {
  figures.write();
  await inProcess?.close();
});

describe("no password or token in anything matframe prints", () => {
  // Six CLI processes one after another: generous, as npm test runs every file side by side.
  it("matframe export with --password-stdin, MATFRAME_* variables, a wrong password and a revoked token", {
    timeout: 180_000,
  }, async () => {
    const base = serve.baseUrl;
    const ok1 = recordRun(
      "export --password-stdin",
      await runCli(
        ["export", "--base-url", base, "--username", USER, "--password-stdin", "--output", path.join(dir, "a.csv")],
        { input: `${PASSWORD}\n` },
      ),
    );
    expect(ok1.code, ok1.stderr).toBe(0);
    expect(ok1.stderr).toMatch(/Exported 3\d\d materials/);

    const env = { MATFRAME_BASE_URL: base, MATFRAME_USERNAME: USER, MATFRAME_PASSWORD: PASSWORD };
    const ok2 = recordRun(
      "export with MATFRAME_USERNAME/PASSWORD",
      await runCli(["export", "--columns", "formula,name", "--max-items", "50"], { env }),
    );
    expect(ok2.code, ok2.stderr).toBe(0);
    expect(ok2.stdout.split("\n")[0]).toBe("_id,formula,name");

    const wrong = recordRun(
      "export with a wrong MATFRAME_PASSWORD",
      await runCli(["export", "--output", path.join(dir, "b.csv")], {
        env: { ...env, MATFRAME_PASSWORD: WRONG_PASSWORD },
      }),
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/username or password/i);

    const wrongStdin = recordRun(
      "export --password-stdin, wrong password",
      await runCli(["export", "--base-url", base, "--username", USER, "--password-stdin"], { input: WRONG_PASSWORD }),
    );
    expect(wrongStdin.code).toBe(2);

    const onCommandLine = recordRun(
      "export --password on the command line",
      await runCli(["export", "--base-url", base, "--username", USER, "--password", PASSWORD]),
    );
    expect(onCommandLine.code).toBe(1);
    expect(onCommandLine.stderr).toMatch(/MATFRAME_PASSWORD or use --password-stdin/);

    const session = await login(serve.port, USER, PASSWORD);
    secrets.add(session["X-Auth-Token"]);
    const tokenEnv = {
      MATFRAME_BASE_URL: base,
      MATFRAME_ACCOUNT_ID: session["X-Account-Id"],
      MATFRAME_AUTH_TOKEN: session["X-Auth-Token"],
    };
    const ok3 = recordRun(
      "export with MATFRAME_ACCOUNT_ID/AUTH_TOKEN",
      await runCli(["export", "--format", "ndjson", "--output", path.join(dir, "c.ndjson")], { env: tokenEnv }),
    );
    expect(ok3.code, ok3.stderr).toBe(0);
    // The user's own token was only closed, not logged out: it still works.
    expect((await send(serve.port, "GET", `${PREFIX}/materials`, { headers: { ...session } })).status).toBe(200);

    await send(serve.port, "GET", `${PREFIX}/logout`, { headers: { ...session } });
    const revoked = recordRun(
      "export with a revoked MATFRAME_AUTH_TOKEN",
      await runCli(["export", "--output", path.join(dir, "d.csv")], { env: tokenEnv }),
    );
    expect(revoked.code).toBe(2);
    expect(revoked.stderr).toMatch(/log in again/i);
    for (const file of readdirSync(dir)) record(`output file ${file}`, readFileSync(path.join(dir, file), "utf8"));
  });

  it("client errors for a wrong password and a revoked token, and the client object itself", async () => {
    const wrong = await Client.login({ baseUrl: inProcess.baseUrl, username: USER, password: WRONG_PASSWORD }).catch(
      (e: unknown) => e,
    );
    expect(wrong).toBeInstanceOf(AuthenticationError);
    record("client error: wrong password", errorTexts(wrong));

    const client = await Client.login({ baseUrl: inProcess.baseUrl, username: USER, password: PASSWORD });
    record(
      "client object",
      `${inspect(client, { depth: 6, showHidden: true })}\n${JSON.stringify(client)}\n${String(client)}`,
    );
    const raw = await login(inProcess.port, USER, PASSWORD);
    secrets.add(raw["X-Auth-Token"]);
    const second = new Client({
      baseUrl: inProcess.baseUrl,
      accountId: raw["X-Account-Id"],
      authToken: raw["X-Auth-Token"],
    });
    record(
      "client object from a token",
      `${inspect(second, { depth: 6, showHidden: true })}\n${JSON.stringify(second)}`,
    );
    await send(inProcess.port, "GET", `${PREFIX}/logout`, { headers: { ...raw } });
    const revoked = await (async () => {
      for await (const _ of second.materials.iterate({ pageSize: 10 })) void _;
    })().catch((e: unknown) => e);
    expect(revoked).toBeInstanceOf(AuthenticationError);
    record("client error: revoked token", errorTexts(revoked));

    await client.logout();
    const afterLogout = await client.materials.list().catch((e: unknown) => e);
    expect(afterLogout).toBeInstanceOf(MatframeError);
    record("client error: used after logout", errorTexts(afterLogout));
    await second.close();
    // A dead server: the connection error names the endpoint, not the credentials.
    const dead = new Client({
      baseUrl: "http://127.0.0.1:9",
      accountId: raw["X-Account-Id"],
      authToken: raw["X-Auth-Token"],
      maxRetries: 0,
    });
    record("client error: connection refused", errorTexts(await dead.materials.list().catch((e: unknown) => e)));
    await dead.close();
  });

  it("the server logs (matframe serve's stderr and startServer's log option)", async () => {
    const finished = await serve.stop();
    record("matframe serve (stdout)", finished.stdout);
    record("matframe serve log (stderr)", finished.stderr);
    record("startServer log", inProcessLog.join("\n"));
    // The log is not empty: it holds one line per request, logins included.
    expect(finished.stderr).toMatch(/POST \/api\/2018-10-01\/login 200/);
    expect(finished.stderr).toMatch(/POST \/api\/2018-10-01\/login 401/);
    expect(inProcessLog.join("\n")).toMatch(/POST \/api\/2018-10-01\/login 401/);
  });

  it("the committed notebooks' outputs", () => {
    const notebooks = path.join(ROOT, "notebooks");
    const files = readdirSync(notebooks).filter((f) => f.endsWith(".ipynb"));
    for (const file of files) {
      const notebook = JSON.parse(readFileSync(path.join(notebooks, file), "utf8")) as {
        cells: Array<{ source: string | string[]; outputs?: unknown[] }>;
      };
      const source = notebook.cells.map((c) => (Array.isArray(c.source) ? c.source.join("") : c.source)).join("\n");
      // Passwords written in the notebook's code (other than the public demo/demo) are secrets too.
      for (const password of capturedAll(/password\s*[:=]\s*["'`]([^"'`]+)["'`]/gi, source))
        if (password !== "demo") secrets.add(password);
      // Pictures are base64 PNG, whose long runs of letters look like tokens: the text of every
      // output is scanned, the pixels are not.
      const outputs = notebook.cells.map((c) => (c.outputs ?? []).map((o) => withoutImages(o)));
      record(`notebook ${file} outputs`, JSON.stringify(outputs));
    }
  });

  it("found none of the passwords or tokens used, nor anything shaped like a token", () => {
    expect(printed.size).toBeGreaterThan(15);
    const leaks: string[] = [];
    for (const [label, text] of printed) {
      figures.add("texts scanned");
      figures.add("characters scanned", text.length);
      for (const secret of secrets) {
        // Any 12-character piece of a secret counts, so a cut or partly masked one is caught too.
        for (let i = 0; i + 12 <= secret.length; i += 1) {
          if (text.includes(secret.slice(i, i + 12))) {
            leaks.push(`${label}: contains part of a secret (${secret.slice(0, 3)}...)`);
            break;
          }
        }
      }
      if (TOKEN_SHAPE.test(text)) leaks.push(`${label}: contains a token-shaped string`);
      if (/"?(X-Auth-Token|authToken)"?\s*[:=]\s*["'][^"'[]/i.test(text))
        leaks.push(`${label}: contains an auth token value`);
    }
    figures.add("secrets", secrets.size);
    expect(leaks).toEqual([]);
  });
});

function withoutImages(output: unknown): unknown {
  const o = output as { data?: Record<string, unknown> };
  if (!o?.data) return output;
  const data = Object.fromEntries(
    Object.entries(o.data).map(([type, value]) => [
      type,
      type.startsWith("image/") && type !== "image/svg+xml" ? `[${type}]` : value,
    ]),
  );
  return { ...o, data };
}
