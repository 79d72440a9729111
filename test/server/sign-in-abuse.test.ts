// One account or one address must not be able to end, cancel or guess anybody else's sign-in:
// sessions and device grants bounded per account and per address, refresh rotating the access
// token, user codes rate-limited, deny signed in, the device page's failures logged as /login's.
// Clients at different addresses are played from 127.0.0.x, which Linux answers on loopback.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Lockout, ServerHandle } from "../../src/server";
import { AuthRegistry } from "../../src/server/auth/auth";
import { DeviceFlow } from "../../src/server/auth/device-flow";
import { addressKey } from "../../src/server/auth/address-key";
import { answerPageFrom, poll, postForm, postFormFrom, rootOf, sendFrom, startGrant } from "../support/device-page";
import { login, startTestServer } from "./helpers";
import { at } from "../support/checked";

const CLIENT = "cli-device-client";
const CLASS_ADDRESS = "127.0.0.1";
const MALLORY_ADDRESS = "127.0.0.66";

describe("the tables a flood fills (in process)", () => {
  it("a flood of one account's sessions past the whole table leaves another account's session alive", async () => {
    const auth = await AuthRegistry.create([], { maxSessions: 2_000 });
    const bob = auth.openSession("bob-account");
    for (let i = 0; i < 2_050; i++) auth.openSession("mallory-account");
    expect(auth.verify("bob-account", bob.authToken)).toBe(true);
    expect(auth.sessionCount("mallory-account")).toBe(100);
  });

  it("a session the server opens for its own reads is not the account's: not counted, never pushing one out", async () => {
    const auth = await AuthRegistry.create([], { maxSessions: 100, maxSessionsPerAccount: 2 });
    const [first, second] = [auth.openSession("alice-account"), auth.openSession("alice-account")];
    const own = auth.openSession("alice-account", { server: true });
    expect(auth.sessionCount("alice-account")).toBe(2);
    for (const session of [first, second, own]) expect(auth.verify(session.accountId, session.authToken)).toBe(true);
    auth.endSession("alice-account", own.sessionId);
    expect(auth.verify(own.accountId, own.authToken)).toBe(false);
    expect(auth.verify(first.accountId, first.authToken)).toBe(true);
  });

  it("10,050 device grants from one address (the default table's size) leave another address's code usable", () => {
    const flow = new DeviceFlow({ intervalSeconds: 0 });
    const alice = flow.start("192.0.2.10");
    const first = flow.start("192.0.2.66");
    for (let i = 0; i < 10_050; i++) flow.start("192.0.2.66");
    expect(flow.isPending(alice.userCode)).toBe(true);
    expect(flow.poll(alice.deviceCode).kind).toBe("authorization_pending");
    expect(flow.grantsFrom("192.0.2.66")).toBe(64);
    expect(flow.poll(first.deviceCode).kind).toBe("invalid_grant");
  });

  it("counts an IPv6 client by its /64, and an IPv4-mapped one as its IPv4 address", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe(addressKey("2001:db8:1:2:ffff:1:2:3"));
    expect(addressKey("2001:db8:1:2::1")).not.toBe(addressKey("2001:db8:1:3::1"));
    expect(addressKey("::ffff:10.0.0.1")).toBe("10.0.0.1");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
  });
});

describe("over HTTP", () => {
  const USERS = ["alice:correct horse", "bob:battery staple", "carol:staple horse", "mallory:evil twin"];
  let server: ServerHandle;
  let root: string;
  const logLines: string[] = [];
  const lockouts: Lockout[] = [];

  beforeAll(async () => {
    server = await startTestServer({
      users: USERS,
      deviceFlow: { intervalSeconds: 0, maxGrants: 40, maxGrantsPerAddress: 8 },
      sessions: { maxSessions: 12, maxSessionsPerAccount: 3 },
      userCodes: { maxWrongCodes: 5 },
      loginThrottle: { maxFailures: 3, onLockout: (lockout) => lockouts.push(lockout) },
      log: (line) => logLines.push(line),
    });
    root = rootOf(server.baseUrl);
  });
  afterAll(async () => {
    await server?.close();
  });

  /** A device token for `username`, approved on the page from `from`. */
  async function deviceTokens(username: string, password: string, from = CLASS_ADDRESS) {
    const grant = (await postFormFrom(from, root, "/oidc/device/auth", { client_id: CLIENT })).body;
    const page = await answerPageFrom(from, grant.verification_uri_complete, { username, password, action: "approve" });
    expect(page.status).toBe(200);
    const res = await poll(root, grant.device_code);
    expect(res.status).toBe(200);
    return res.body as { access_token: string; refresh_token: string };
  }

  function refresh(refreshToken: string, from = CLASS_ADDRESS) {
    return postFormFrom(from, root, "/oidc/token", {
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: CLIENT,
    });
  }

  async function bearerStatus(token: string): Promise<number> {
    const res = await fetch(`${server.baseUrl}/materials?projection=${encodeURIComponent('{"limit":1}')}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await res.arrayBuffer();
    return res.status;
  }

  it("a refresh ends the access token it renews: one live session per signed-in device", async () => {
    const first = await deviceTokens("carol", "staple horse");
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    expect(await bearerStatus(first.access_token)).toBe(401);
    expect(await bearerStatus(second.body.access_token)).toBe(200);
    // Revoking the refresh token ends its access token too: nothing of the sign-in keeps working.
    await postForm(root, "/oidc/revoke", { token: second.body.refresh_token, client_id: CLIENT });
    expect(await bearerStatus(second.body.access_token)).toBe(401);
  });

  it("one account's refreshes and logins never log another account out", async () => {
    const bob = await login(server, "bob", "battery staple");
    const alice = await deviceTokens("alice", "correct horse");
    // Mallory signs in three devices and refreshes each 40 times, and logs in 4 more times.
    let chains = await Promise.all([1, 2, 3].map(() => deviceTokens("mallory", "evil twin", MALLORY_ADDRESS)));
    for (let round = 0; round < 40; round++) {
      chains = await Promise.all(
        chains.map(async (tokens) => (await refresh(tokens.refresh_token, MALLORY_ADDRESS)).body),
      );
    }
    for (let i = 0; i < 4; i++) await login(server, "mallory", "evil twin");
    expect(await bearerStatus(alice.access_token)).toBe(200);
    const me = await fetch(`${root}/api/v1/users/me`, {
      headers: { "x-account-id": bob["X-Account-Id"], "x-auth-token": bob["X-Auth-Token"] },
    });
    expect(me.status).toBe(200);
    // Alice's refresh still works: her refresh token was never pushed out either.
    expect((await refresh(alice.refresh_token)).status).toBe(200);
  });

  it("device grants from one address never push out another address's pending code", async () => {
    const alice = await startGrant(root);
    for (let i = 0; i < 60; i++) {
      const res = await postFormFrom(MALLORY_ADDRESS, root, "/oidc/device/auth", { client_id: CLIENT });
      expect(res.status).toBe(200);
    }
    const page = await answerPageFrom(CLASS_ADDRESS, alice.verification_uri_complete, {
      username: "alice",
      password: "correct horse",
      action: "approve",
    });
    expect(page.status).toBe(200);
    expect((await poll(root, alice.device_code)).status).toBe(200);
  });

  it("rate-limits wrong user codes per address with 429 and Retry-After, telling nothing about the code", async () => {
    const from = "127.0.0.77";
    const real = await startGrant(root);
    const codes = ["BCDF-GHJK", "LMNP-QRST", "VWXZ-BCDF", "GHJK-LMNP", "QRST-VWXZ"];
    for (const code of codes) {
      const res = await answerPageFrom(from, `${root}/oidc/device`, { user_code: code, action: "deny" });
      expect(res.status).toBe(400);
    }
    const refused = await answerPageFrom(from, real.verification_uri_complete, {
      username: "carol",
      password: "staple horse",
      action: "deny",
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(refused.html).toContain("Too many wrong codes from this address");
    expect(logLines.some((l) => l.startsWith(`device page refused from ${from}: too many wrong codes`))).toBe(true);
    // The code was not answered, and a person at another address still can.
    expect((await poll(root, real.device_code)).body.error).toBe("authorization_pending");
    const page = await answerPageFrom(CLASS_ADDRESS, real.verification_uri_complete, {
      username: "carol",
      password: "staple horse",
      action: "approve",
    });
    expect(page.status).toBe(200);
  });

  it("deny needs the person signed in: without it, or with a wrong password, the code stays pending", async () => {
    const grant = await startGrant(root);
    const anonymous = await answerPageFrom("127.0.0.88", grant.verification_uri_complete, { action: "deny" });
    expect(anonymous.status).toBe(400);
    expect(anonymous.html).toContain("Enter your username and password to deny this device.");
    const wrong = await answerPageFrom("127.0.0.88", grant.verification_uri_complete, {
      username: "alice",
      password: "guess",
      action: "deny",
    });
    expect(wrong.status).toBe(401);
    expect((await poll(root, grant.device_code)).body.error).toBe("authorization_pending");
    const signedIn = await answerPageFrom(CLASS_ADDRESS, grant.verification_uri_complete, {
      username: "alice",
      password: "correct horse",
      action: "deny",
    });
    expect(signedIn.html).toContain("Device denied");
    expect((await poll(root, grant.device_code)).body.error).toBe("access_denied");
  });

  it("logs the device page's failed sign-ins and announces the lockout exactly as /login's", async () => {
    const from = "127.0.0.99";
    const grant = await startGrant(root);
    for (const password of ["one", "two", "three"]) {
      const res = await answerPageFrom(from, grant.verification_uri_complete, {
        username: "bob",
        password,
        action: "approve",
      });
      expect(res.status).toBe(401);
    }
    expect(logLines.filter((l) => l.startsWith(`login failed for "bob" from ${from}`))).toEqual([
      `login failed for "bob" from ${from}`,
      `login failed for "bob" from ${from}`,
      `login failed for "bob" from ${from}: locked out after 3 failures`,
    ]);
    // 900 s from the first failure: a second less when a loaded machine spread the failures out.
    expect(lockouts).toEqual([{ username: "bob", address: from, failures: 3, retryAfterSeconds: expect.any(Number) }]);
    expect(at(lockouts, 0, "the lockout").retryAfterSeconds).toBeGreaterThan(840);
    const locked = await answerPageFrom(from, grant.verification_uri_complete, {
      username: "bob",
      password: "battery staple",
      action: "approve",
    });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers["retry-after"])).toBeGreaterThan(840);
    expect(logLines).toContain(`login refused for "bob" from ${from}: locked out for 15 minutes more`);
    expect(logLines.join("\n")).not.toMatch(/one|two|three/);
    server.unlock("bob");
  });

  it("refuses limits that are not whole numbers", async () => {
    await expect(startTestServer({ sessions: { maxSessionsPerAccount: 0 } })).rejects.toThrow(
      /sessions\.maxSessionsPerAccount must be a whole number of at least 1, not 0/,
    );
    await expect(startTestServer({ deviceFlow: { maxGrantsPerAddress: 1.5 } })).rejects.toThrow(
      /deviceFlow\.maxGrantsPerAddress/,
    );
  });
});

describe("a class of 30 while one student floods refreshes and device grants", () => {
  it("signs in all 30 through the device flow, and every token still works at the end", async () => {
    const students = Array.from({ length: 30 }, (_, i) => `student${i + 1}:password-${i + 1}-seed44`);
    const server = await startTestServer({
      users: [...students, "mallory:evil twin"],
      deviceFlow: { intervalSeconds: 0, maxGrants: 120, maxGrantsPerAddress: 40 },
      sessions: { maxSessions: 64, maxSessionsPerAccount: 4 },
    });
    try {
      const root = rootOf(server.baseUrl);
      const post = (from: string, path: string, form: Record<string, string>) => postFormFrom(from, root, path, form);
      let flooding = true;
      const flood = (async () => {
        const grant = (await post(MALLORY_ADDRESS, "/oidc/device/auth", { client_id: CLIENT })).body;
        await answerPageFrom(MALLORY_ADDRESS, grant.verification_uri_complete, {
          username: "mallory",
          password: "evil twin",
          action: "approve",
        });
        let tokens = (await poll(root, grant.device_code)).body;
        let refreshes = 0;
        let grants = 0;
        // Past every bound at least (64 sessions, 120 codes), then on while the class signs in,
        // up to a ceiling so a slow machine's class is not starved for ever.
        while ((flooding || refreshes < 130) && refreshes < 600) {
          // A refresh that keeps the old access token (as before) would fill the table in 60.
          tokens = (
            await post(MALLORY_ADDRESS, "/oidc/token", {
              grant_type: "refresh_token",
              refresh_token: tokens.refresh_token,
              client_id: CLIENT,
            })
          ).body;
          refreshes += 1;
          await post(MALLORY_ADDRESS, "/oidc/device/auth", { client_id: CLIENT });
          grants += 1;
        }
        return { refreshes, grants };
      })();
      const signedIn = await Promise.all(
        students.map(async (entry, i) => {
          const [username, password] = entry.split(":");
          const grant = (await post(CLASS_ADDRESS, "/oidc/device/auth", { client_id: CLIENT })).body;
          const page = await answerPageFrom(CLASS_ADDRESS, grant.verification_uri_complete, {
            username,
            password,
            action: "approve",
          });
          if (page.status !== 200) return `${username}: page ${page.status}`;
          const res = await poll(root, grant.device_code);
          if (res.status !== 200) return `${username}: token ${res.body.error}`;
          // Half of the class refreshes once, as a notebook does after a day.
          if (i % 2 === 0) {
            const renewed = await post(CLASS_ADDRESS, "/oidc/token", {
              grant_type: "refresh_token",
              refresh_token: res.body.refresh_token,
              client_id: CLIENT,
            });
            return renewed.status === 200 ? renewed.body.access_token : `${username}: refresh ${renewed.body.error}`;
          }
          return res.body.access_token as string;
        }),
      );
      flooding = false;
      const { refreshes, grants } = await flood;
      expect(refreshes).toBeGreaterThanOrEqual(130);
      expect(grants).toBeGreaterThanOrEqual(130);
      const statuses = await Promise.all(
        signedIn.map(async (token) => {
          if (!/^[A-Za-z0-9_-]{64}$/.test(token)) return token;
          const res = await sendFrom(CLASS_ADDRESS, `${root}/api/v1/users/me`, {
            headers: { authorization: `Bearer ${token}` },
          });
          return res.status;
        }),
      );
      expect(statuses).toEqual(Array(30).fill(200));
    } finally {
      await server.close();
    }
  }, 180_000);
});
