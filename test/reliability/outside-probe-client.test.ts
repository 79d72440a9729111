import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { parse } from "csv-parse/sync";
import {
  BadRequestError,
  Client,
  RecordShapeError,
  ResponseTooLargeError,
  ResponseValidationError,
  ValidationError,
  exportCsv,
  toDataFrame,
} from "../../src";
import { startServer } from "../../src/server";
import { startFaultServer, type FaultServer, type FaultServerOptions } from "../support/fault-server";
import { startCli } from "./support/cli";

// The client- and frame-side defects an outside probe found (issue 11), each reproduced against a
// real misbehaving server on loopback. Each of these failed before its fix.

let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(options: FaultServerOptions, clientOptions: { maxResponseBytes?: number } = {}) {
  server = await startFaultServer(options);
  const client = new Client({
    baseUrl: server.origin,
    accountId: server.accountId,
    authToken: server.authToken,
    ...clientOptions,
  });
  return { server, client };
}

/** Every 12-character piece of `secret`: none may appear in what a user sees. */
function pieces(secret: string): string[] {
  return Array.from({ length: secret.length - 11 }, (_, i) => secret.slice(i, i + 12));
}

describe("defect 2: response bodies have a cap", () => {
  it("an endless chunked body stops at maxResponseBytes with a clear error, not retried", async () => {
    const { server, client } = await setup(
      { records: 10, fault: () => ({ kind: "endless" }) },
      { maxResponseBytes: 1024 * 1024 },
    );
    const error = await client.materials.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).limitBytes).toBe(1024 * 1024);
    expect((error as Error).message).toMatch(/larger than maxResponseBytes \(1048576 bytes/);
    expect(server.requests).toHaveLength(1);
  });

  it("a body announced larger than the cap is refused before it is read", async () => {
    const { server, client } = await setup({
      records: 10,
      fault: (r) =>
        r.path.endsWith("/materials")
          ? {
              kind: "raw",
              status: 200,
              headers: { "content-type": "application/json", "content-length": String(600 * 2 ** 20) },
              body: "[",
            }
          : undefined,
    });
    const error = await client.materials.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(server.requests).toHaveLength(1);
  });

  it("the default cap (64 MiB) leaves real pages alone", async () => {
    const { client } = await setup({ records: 1200 });
    let count = 0;
    for await (const _ of client.materials.iterate({ pageSize: 500 })) count++;
    expect(count).toBe(1200);
  });
});

describe("defect 6: CSV formula injection", () => {
  const records = [
    { _id: "a", name: '=HYPERLINK("http://x","y")', n: -5 },
    { _id: "b", name: "+1", n: 3.5 },
    { _id: "c", name: "-2", n: 0 },
    { _id: "d", name: "@SUM(A1)", n: 1 },
    { _id: "e", name: "\tTAB", n: 2 },
    { _id: "f", name: "\rCR", n: 2 },
    { _id: "g", name: "plain, text", n: -1 },
  ];

  function csvOf(options: { escapeFormulas?: boolean }): Promise<Record<string, string>[]> {
    let text = "";
    const sink = new Writable({
      write: (chunk, _e, done) => {
        text += chunk;
        done();
      },
    });
    return exportCsv([records], sink, { columns: ["name", "n"], ...options }).then(() =>
      parse(text, { columns: true }),
    );
  }

  it("text cells that a spreadsheet would run get a leading ', numbers stay numbers (a real CSV parser reads them)", async () => {
    const rows = await csvOf({});
    expect(rows.map((r) => r.name)).toEqual([
      '\'=HYPERLINK("http://x","y")',
      "'+1",
      "'-2",
      "'@SUM(A1)",
      "'\tTAB",
      "'\rCR",
      "plain, text",
    ]);
    expect(rows.map((r) => r.n)).toEqual(["-5", "3.5", "0", "1", "2", "2", "-1"]);
  });

  it("escapeFormulas: false writes text as stored", async () => {
    const rows = await csvOf({ escapeFormulas: false });
    expect(rows.map((r) => r.name)).toEqual(records.map((r) => r.name));
  });

  it("the CLI escapes by default and --no-formula-escape turns it off", async () => {
    const platform = await startServer({ port: 0, data: records });
    const dir = mkdtempSync(join(tmpdir(), "matframe-injection-"));
    try {
      const env = { MATFRAME_BASE_URL: platform.baseUrl, MATFRAME_USERNAME: "demo", MATFRAME_PASSWORD: "demo" };
      const escaped = await startCli(["export", "--columns", "name", "--output", join(dir, "a.csv"), "--quiet"], {
        env,
      }).done;
      const raw = await startCli(
        ["export", "--columns", "name", "--output", join(dir, "b.csv"), "--quiet", "--no-formula-escape"],
        { env },
      ).done;
      expect(escaped.code, escaped.stderr).toBe(0);
      expect(raw.code, raw.stderr).toBe(0);
      const names = (file: string) =>
        (parse(readFileSync(join(dir, file), "utf8"), { columns: true }) as Record<string, string>[]).map(
          (r) => r.name,
        );
      expect(names("a.csv")[0]).toBe('\'=HYPERLINK("http://x","y")');
      expect(names("b.csv")[0]).toBe('=HYPERLINK("http://x","y")');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await platform.close();
    }
  });
});

describe("defect 7: secrets in errors", () => {
  it("a token in a non-JSON body is redacted before the excerpt is cut, whole or in part", async () => {
    // The body echoes the token so that it crosses the 80-character cut of the excerpt.
    server = await startFaultServer({
      records: 1,
      fault: (r) =>
        r.path.endsWith("/materials")
          ? {
              kind: "raw",
              status: 200,
              headers: { "content-type": "application/json" },
              body: `${"x".repeat(60)}${String(r.headers["x-auth-token"])} tail`,
            }
          : undefined,
    });
    const client = new Client({ baseUrl: server.origin, accountId: server.accountId, authToken: server.authToken });
    const error = await client.materials.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    const seen = `${(error as Error).message} ${JSON.stringify(error)} ${JSON.stringify((error as ResponseValidationError).issues)}`;
    expect(seen).toMatch(/\[redacted\]/);
    for (const piece of pieces(server.authToken)) expect(seen).not.toContain(piece);
    await client.close();
  });

  it("a 401 that echoes the form body shows no part of the password, URL-encoded or not", async () => {
    const password = "p@ss word&x=1/é!";
    server = await startFaultServer({
      fault: (r) =>
        r.path.endsWith("/login")
          ? {
              kind: "raw",
              status: 401,
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ status: "error", message: `Bad credentials in ${r.body}` }),
            }
          : undefined,
    });
    const error = await Client.login({ baseUrl: server.origin, username: "ada", password }).catch((e: unknown) => e);
    const seen = `${(error as Error).message} ${(error as { serverMessage?: string }).serverMessage}`;
    expect(seen).toMatch(/\[redacted\]/);
    for (const form of [
      password,
      encodeURIComponent(password),
      new URLSearchParams({ p: password }).toString().slice(2),
    ]) {
      expect(seen).not.toContain(form);
    }
  });

  it("the CLI never prints a password given in --base-url", async () => {
    for (const url of ["http://alice:hunter2secret@127.0.0.1:1", "http://alice:hunter2secret@bad host"]) {
      const result = await startCli(["export", "--base-url", url, "--output", "-"]).done;
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/--base-url must not contain a username or password/);
      expect(result.stderr + result.stdout).not.toContain("hunter2secret");
    }
  });

  it("a client given a URL with credentials and a bad port does not echo them either", () => {
    expect(() => new Client({ baseUrl: "http://u:hunter2secret@host:99999", accountId: "a", authToken: "b" })).toThrow(
      ValidationError,
    );
    try {
      new Client({ baseUrl: "http://u:hunter2secret@host:99999", accountId: "a", authToken: "b" });
    } catch (error) {
      expect((error as Error).message).not.toContain("hunter2secret");
    }
  });
});

describe("defect 8: a server that caps pages below the limit asked for", () => {
  it.each([
    ["offset, one page in flight", { paging: "offset" as const, concurrency: 1 }],
    ["offset, three pages in flight", { paging: "offset" as const, concurrency: 3 }],
    ["keyset", { paging: "keyset" as const }],
  ])("%s: every record exactly once", async (_name, walk) => {
    const { client, server } = await setup({ records: 2000, pageCap: 100 });
    const ids: string[] = [];
    for await (const m of client.materials.iterate({ pageSize: 500, ...walk })) ids.push(m._id);
    expect(ids).toEqual(server.records.map((r) => r._id));
  });

  it("an export gets all 2,000, not the first 100 reported as a success", async () => {
    const { client } = await setup({ records: 2000, pageCap: 100 });
    let text = "";
    const sink = new Writable({
      write: (chunk, _e, done) => {
        text += chunk;
        done();
      },
    });
    const result = await client.materials.exportCsv(sink, { columns: ["name"] });
    expect(result.items).toBe(2000);
    expect(parse(text, { columns: true })).toHaveLength(2000);
  });
});

describe("defect 10: odds and ends", () => {
  const deep = (() => {
    let value: unknown = 1;
    for (let i = 0; i < 100_000; i++) value = { a: value };
    return { _id: "deep-1", deep: value };
  })();

  it("a record nested 100,000 levels deep is a RecordShapeError naming it, in exports and DataFrames", async () => {
    const sink = new Writable({ write: (_c, _e, done) => done() });
    const exported = await exportCsv([[{ _id: "ok" }, deep]], sink, { columns: ["deep"] }).catch((e: unknown) => e);
    expect(exported).toBeInstanceOf(RecordShapeError);
    expect((exported as RecordShapeError).id).toBe("deep-1");
    expect((exported as Error).message).toMatch(/Record "deep-1" cannot be made into table cells/);
    const framed = await toDataFrame([deep], { columns: ["deep"] }).catch((e: unknown) => e);
    expect(framed).toBeInstanceOf(RecordShapeError);
  });

  it("a text/html 200 says so, once", async () => {
    const { client, server } = await setup({
      records: 5,
      fault: (r) => (r.path.endsWith("/materials") ? { kind: "non-json" } : undefined),
    });
    const error = await client.materials.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toMatch(/answered 200 with text\/html, not JSON/);
    expect(server.requests).toHaveLength(1);
  });

  it.each(["abc\r\ndef", "abc\ndef", "abc\u0000def", "abc def"])(
    "a login token %j is a bad login response, reported once",
    async (token) => {
      server = await startFaultServer({
        fault: (r) =>
          r.path.endsWith("/login")
            ? {
                kind: "wrong-shape",
                body: { status: "success", data: { "X-Account-Id": "acct", "X-Auth-Token": token } },
              }
            : undefined,
      });
      const error = await Client.login({
        baseUrl: server.origin,
        username: "ada",
        password: "correct-horse-battery",
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect(server.requests.filter((r) => r.path.endsWith("/login"))).toHaveLength(1); // not retried
    },
  );

  it("a token with a line break given by the caller is refused before any request", () => {
    expect(() => new Client({ baseUrl: "http://127.0.0.1:1", accountId: "a", authToken: "abc\r\nX-Evil: 1" })).toThrow(
      /visible ASCII/,
    );
  });

  it("reads JSend data.message first, as the platform's own client does", async () => {
    const { client } = await setup({
      records: 5,
      fault: (r) =>
        r.path.endsWith("/materials")
          ? {
              kind: "raw",
              status: 400,
              headers: { "content-type": "application/json" },
              body: JSON.stringify({
                status: "error",
                message: "Bad Request",
                data: { message: "Unknown field lattice.x" },
              }),
            }
          : undefined,
    });
    const error = await client.materials.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).serverMessage).toBe("Unknown field lattice.x");
  });
});
