import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServerOptionsError } from "../../src/errors";
import { startServer, type ServerHandle } from "../../src/server";
import { runCli, startServe } from "./support/cli";
import { login, PREFIX, send, type Session } from "./support/http";
import { at } from "../support/checked";

// Who gets in: tokens are long and random, die with logout, belong to one account only; the
// public demo/demo account never listens beyond this machine, while --user accounts may.

const ALICE = { username: "alice", password: "alice-correct-horse-7f3a" };
const BOB = { username: "bob", password: "bob-battery-staple-91c2" };

let server: ServerHandle;

beforeAll(async () => {
  server = await startServer({ host: "127.0.0.1", port: 0, synthetic: 20, users: [ALICE, BOB] });
});

afterAll(async () => {
  await server?.close();
});

const list = (session: Record<string, string>) =>
  send(server.port, "GET", `${PREFIX}/materials?projection=${encodeURIComponent('{"limit":1}')}`, { headers: session });

/** Bits of randomness a token can carry at most, from its length and alphabet. */
function tokenBits(token: string): number {
  const bitsPerChar = /^[0-9a-f]+$/i.test(token)
    ? 4
    : /^[A-Za-z0-9_-]+$/.test(token) || /^[A-Za-z0-9+/]+=*$/.test(token)
      ? 6
      : 0;
  return token.replace(/=+$/, "").length * bitsPerChar;
}

describe("tokens", () => {
  it("carry at least 256 bits, never repeat, and hold nothing of the credentials", async () => {
    const sessions: Session[] = [];
    for (let i = 0; i < 20; i += 1) sessions.push(await login(server.port, ALICE.username, ALICE.password));
    const tokens = sessions.map((s) => s["X-Auth-Token"]);
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const token of tokens) {
      expect(tokenBits(token)).toBeGreaterThanOrEqual(256);
      expect(token).not.toContain(ALICE.password);
      expect(token).not.toContain(ALICE.username);
    }
    // Every character position varies across tokens: no fixed prefix, counter or timestamp.
    const width = at(tokens, 0, "a token").length;
    for (let i = 0; i < width; i += 1) {
      expect(new Set(tokens.map((t) => t[i])).size, `position ${i}`).toBeGreaterThan(3);
    }
    // Each login is its own session; all of them work.
    for (const session of sessions.slice(0, 3)) expect((await list({ ...session })).status).toBe(200);
  });

  it("stop working after logout (GET or POST), while the account's other sessions go on", async () => {
    for (const method of ["GET", "POST"]) {
      const ended = await login(server.port, ALICE.username, ALICE.password);
      const other = await login(server.port, ALICE.username, ALICE.password);
      expect((await list({ ...ended })).status).toBe(200);
      const out = await send(server.port, method, `${PREFIX}/logout`, { headers: { ...ended } });
      expect(out.status).toBe(200);
      expect(out.body).toEqual({ status: "success", data: { message: "You are successfully logged out" } });
      for (const path of [`${PREFIX}/materials`, `${PREFIX}/materials/x`, `${PREFIX}/logout`]) {
        const res = await send(server.port, "GET", path, { headers: { ...ended } });
        expect(res.status, path).toBe(401);
        expect(res.body.message).toMatch(/log in again/);
      }
      expect((await list({ ...other })).status).toBe(200);
    }
  });

  it("of one account cannot be used with another account's id, nor altered or cut", async () => {
    const alice = await login(server.port, ALICE.username, ALICE.password);
    const bob = await login(server.port, BOB.username, BOB.password);
    expect(alice["X-Account-Id"]).not.toBe(bob["X-Account-Id"]);
    const token = alice["X-Auth-Token"];
    const flip = (c: string) => (c === "A" ? "B" : "A");
    const forged: Array<[string, Record<string, string>]> = [
      ["bob's id, alice's token", { "X-Account-Id": bob["X-Account-Id"], "X-Auth-Token": token }],
      ["alice's id, bob's token", { "X-Account-Id": alice["X-Account-Id"], "X-Auth-Token": bob["X-Auth-Token"] }],
      [
        "last character changed",
        { "X-Account-Id": alice["X-Account-Id"], "X-Auth-Token": token.slice(0, -1) + flip(token.slice(-1)) },
      ],
      [
        "first character changed",
        { "X-Account-Id": alice["X-Account-Id"], "X-Auth-Token": flip(token.slice(0, 1)) + token.slice(1) },
      ],
      ["cut short", { "X-Account-Id": alice["X-Account-Id"], "X-Auth-Token": token.slice(0, 16) }],
      ["extended", { "X-Account-Id": alice["X-Account-Id"], "X-Auth-Token": `${token}A` }],
      [
        "other case",
        {
          "X-Account-Id": alice["X-Account-Id"],
          "X-Auth-Token": token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase(),
        },
      ],
      ["token only", { "X-Auth-Token": token }],
      ["id only", { "X-Account-Id": alice["X-Account-Id"] }],
      ["empty token", { "X-Account-Id": alice["X-Account-Id"], "X-Auth-Token": "" }],
    ];
    for (const [label, headers] of forged) {
      expect((await list(headers)).status, label).toBe(401);
      // A forged pair cannot log the real session out either.
      expect((await send(server.port, "GET", `${PREFIX}/logout`, { headers })).status, `logout with ${label}`).toBe(
        401,
      );
    }
    expect((await list({ ...alice })).status).toBe(200);
    expect((await list({ ...bob })).status).toBe(200);
  });
});

describe("password guessing", () => {
  it("at most 5 wrong passwords are checked per user and address, even when sent all at once", async () => {
    // Sequential guesses are throttled after 5 failures (test/server/limits.test.ts). Sent in
    // parallel, each guess must still count: otherwise the throttle is bypassed by concurrency.
    const guesses = Array.from({ length: 30 }, (_, i) =>
      send(server.port, "POST", `${PREFIX}/login`, {
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: `username=${BOB.username}&password=guess-${i}`,
      }),
    );
    const statuses = (await Promise.all(guesses)).map((res) => res.status);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    expect(statuses.filter((s) => s === 401).length, `statuses: ${statuses.join(",")}`).toBeLessThanOrEqual(5);
  });
});

describe("the demo account and the host", () => {
  it("refuses non-loopback hosts with only the demo account, from code", async () => {
    for (const host of ["0.0.0.0", "::", "192.0.2.10", "example.org"]) {
      const error = await startServer({ host, port: 0 }).then(
        (handle) => handle.close().then(() => undefined),
        (e: unknown) => e,
      );
      expect(error, host).toBeInstanceOf(ServerOptionsError);
      expect((error as Error).message).toMatch(/demo\/demo.*the users option/);
    }
    // Loopback is fine.
    const local = await startServer({ host: "localhost", port: 0 });
    await local.close();
  });

  it("matframe serve --host 0.0.0.0 without --user exits 1 saying what to do", async () => {
    const finished = await runCli(["serve", "--host", "0.0.0.0", "--port", "0"]);
    expect(finished.code).toBe(1);
    expect(finished.stdout).toBe("");
    expect(finished.stderr).toMatch(/Refusing to listen on 0\.0\.0\.0.*--user NAME:PASSWORD/);
    expect(finished.stderr).not.toMatch(/\n\s+at /);
  });

  it("matframe serve --host 0.0.0.0 --user works; the demo account does not exist there", async () => {
    const serve = await startServe(["--host", "0.0.0.0", "--user", `${ALICE.username}:${ALICE.password}`, "--quiet"]);
    try {
      expect(serve.baseUrl).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/api\/2018-10-01$/);
      const session = await login(serve.port, ALICE.username, ALICE.password);
      const res = await send(serve.port, "GET", `${PREFIX}/materials`, { headers: { ...session } });
      expect(res.status).toBe(200);
      const demo = await send(serve.port, "POST", `${PREFIX}/login`, {
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "username=demo&password=demo",
      });
      expect(demo.status).toBe(401);
    } finally {
      await serve.stop();
    }
  });
});
