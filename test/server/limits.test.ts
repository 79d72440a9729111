import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ServerHandle } from "../../src/server";
import { errorMessage, listMaterials, login, PREFIX, rawRequest, startTestServer, type Session } from "./helpers";

let server: ServerHandle;
let session: Session;

beforeAll(async () => {
  server = await startTestServer({ users: ["alice:alice-secret", "bob:bob-secret"] });
  session = await login(server, "alice", "alice-secret");
});
afterAll(() => server.close());

/** Sends raw bytes and returns the whole response text (for requests Node's parser refuses). */
function rawSocket(port: number, payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, "127.0.0.1", () => socket.write(payload));
    let text = "";
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    socket.on("end", () => resolve(text));
    socket.on("error", (error: Error) => (text ? resolve(text) : reject(error)));
  });
}

function jsonBodyOf(response: string): any {
  return JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4));
}

describe("size limits", () => {
  it("answers a login body over 8 KiB with 413", async () => {
    const res = await rawRequest(server, "POST", `${PREFIX}/login`, {
      body: `username=alice&password=${"x".repeat(9000)}`,
    });
    expect(errorMessage(res, 413)).toMatch(/8192 bytes/);
  });

  it("answers a URL over 8192 characters with 414", async () => {
    const query = encodeURIComponent(JSON.stringify({ name: "x".repeat(9000) }));
    const res = await rawRequest(server, "GET", `${PREFIX}/materials?query=${query}`, { headers: { ...session } });
    expect(errorMessage(res, 414)).toMatch(/8192 characters/);
  });

  it("answers a request line larger than Node's header limit with a JSON 414", async () => {
    const response = await rawSocket(
      server.port,
      `GET ${PREFIX}/materials?query=${"a".repeat(40_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expect(response).toMatch(/^HTTP\/1\.1 414 /);
    expect(jsonBodyOf(response)).toMatchObject({ status: "error", code: 414 });
  });

  it("answers oversized headers with a JSON 431 and garbage with a JSON 400", async () => {
    const big = await rawSocket(
      server.port,
      `GET ${PREFIX}/materials HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(40_000)}\r\n\r\n`,
    );
    expect(big).toMatch(/^HTTP\/1\.1 431 /);
    expect(jsonBodyOf(big)).toMatchObject({ status: "error", code: 431 });
    const garbage = await rawSocket(server.port, "NOT HTTP AT ALL\r\n\r\n");
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(jsonBodyOf(garbage)).toMatchObject({ status: "error", code: 400 });
  });

  it("still serves after all of the above", async () => {
    expect((await listMaterials(server, session, {}, { limit: 1 })).status).toBe(200);
  });
});

describe("login throttling", () => {
  it("answers 429 with Retry-After after 5 failures for a username and address, even for the right password", async () => {
    for (let i = 0; i < 5; i += 1) {
      const res = await rawRequest(server, "POST", `${PREFIX}/login`, { body: "username=bob&password=wrong" });
      expect(res.status).toBe(401);
    }
    const throttled = await rawRequest(server, "POST", `${PREFIX}/login`, { body: "username=bob&password=bob-secret" });
    expect(errorMessage(throttled, 429)).toMatch(/try again in 15 minutes/);
    expect(Number(throttled.headers["retry-after"])).toBeGreaterThan(0);
    // Another user from the same address is not affected.
    expect((await login(server, "alice", "alice-secret"))["X-Auth-Token"]).toBeTruthy();
  });

  it("lets a test choose a short window, after which logins work again", async () => {
    const quick = await startTestServer({ loginThrottle: { maxFailures: 2, windowMs: 300 } });
    try {
      // The server's clock stands still (only Date is faked: sockets and timers run as ever), so
      // a slow machine's password checks cannot outlast the window before the third login.
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
      for (let i = 0; i < 2; i += 1)
        await rawRequest(quick, "POST", `${PREFIX}/login`, { body: "username=demo&password=x" });
      expect((await rawRequest(quick, "POST", `${PREFIX}/login`, { body: "username=demo&password=demo" })).status).toBe(
        429,
      );
      // The server's clock moves past the window.
      vi.setSystemTime(Date.now() + 400);
      expect((await rawRequest(quick, "POST", `${PREFIX}/login`, { body: "username=demo&password=demo" })).status).toBe(
        200,
      );
    } finally {
      vi.useRealTimers();
      await quick.close();
    }
  });
});

describe("the log", () => {
  it("never holds passwords or tokens, and has one line per request", async () => {
    const lines: string[] = [];
    const logged = await startTestServer({ users: ["carol:Pa55-word-carol"], log: (line) => lines.push(line) });
    try {
      const own = await login(logged, "carol", "Pa55-word-carol");
      await rawRequest(logged, "POST", `${PREFIX}/login`, { body: "username=carol&password=Wrong-pw-carol" });
      await listMaterials(logged, own, { formula: "Si" }, { limit: 2 });
      await rawRequest(logged, "GET", `${PREFIX}/logout`, { headers: { ...own } });
      const text = lines.join("\n");
      for (const secret of [
        "Pa55-word-carol",
        "Wrong-pw-carol",
        own["X-Auth-Token"],
        own["X-Auth-Token"].slice(0, 16),
      ]) {
        expect(text).not.toContain(secret);
      }
      expect(lines).toContain(lines.find((l) => /^POST \/api\/2018-10-01\/login 200 \d+ms by \S+$/.test(l)));
      expect(lines.some((l) => /^POST \/api\/2018-10-01\/login 401 \d+ms$/.test(l))).toBe(true);
      expect(lines.some((l) => /^GET \/api\/2018-10-01\/materials 200 \d+ms by \S+$/.test(l))).toBe(true);
      expect(text).not.toContain("formula");
    } finally {
      await logged.close();
    }
  });
});

describe("query cost", () => {
  it("stops a query that needs more CPU than the scan budget with 400, and keeps serving", async () => {
    const strict = await startTestServer({ synthetic: 3000, scanBudgetMs: 0 });
    try {
      const own = await login(strict);
      const slow = await listMaterials(strict, own, { name: { $regex: "strain #29\\d\\d$" } }, { limit: 10 });
      expect(errorMessage(slow, 400)).toMatch(/took more than 0 ms/);
      // No query: a slice of the sorted ids, no scan, so no budget is spent.
      expect((await listMaterials(strict, own, {}, { skip: 2500, limit: 10 })).body.data.length).toBe(10);
    } finally {
      await strict.close();
    }
  });
});
