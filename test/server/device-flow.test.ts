// The OIDC device flow (RFC 8628) and the user service over HTTP, as the platform's notebooks
// and Python client use them, against the real server on port 0.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { DeviceFlow } from "../../src/server/auth/device-flow";
import { answerPage, loadPage, poll, postForm, rootOf, startGrant } from "../support/device-page";
import { login, startTestServer } from "./helpers";

const USERS = ["alice:correct horse", "bob:battery staple", "carol:staple horse"];
let server: ServerHandle;
let root: string;
const logLines: string[] = [];
const secretsSeen: string[] = [];

beforeAll(async () => {
  server = await startTestServer({
    users: USERS,
    deviceFlow: { intervalSeconds: 0 },
    loginThrottle: { maxFailures: 2 },
    log: (l) => logLines.push(l),
  });
  root = rootOf(server.baseUrl);
});
afterAll(async () => {
  await server?.close();
});

async function approvedTokens(
  username = "alice",
  password = "correct horse",
): Promise<{ access_token: string; refresh_token: string; expires_in: number; token_type: string }> {
  const grant = await startGrant(root);
  const page = await answerPage(grant.verification_uri_complete, { username, password, action: "approve" });
  expect(page.status).toBe(200);
  const res = await poll(root, grant.device_code);
  expect(res.status).toBe(200);
  secretsSeen.push(grant.device_code, grant.user_code, res.body.access_token, res.body.refresh_token);
  return res.body;
}

function bearer(token: string): Promise<Response> {
  return fetch(`${server.baseUrl}/materials?projection=${encodeURIComponent(JSON.stringify({ limit: 1 }))}`, {
    headers: { authorization: `Bearer ${token}` },
  });
}

describe("POST /oidc/device/auth", () => {
  it("answers a code, the verification page on the same origin and the interval", async () => {
    const grant = await startGrant(root);
    expect(grant.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(grant.verification_uri).toBe(`${root}/oidc/device`);
    expect(grant.verification_uri_complete).toBe(`${root}/oidc/device?user_code=${grant.user_code}`);
    expect(grant.device_code.length).toBeGreaterThanOrEqual(43);
    expect(grant).toMatchObject({ expires_in: 600, interval: 0 });
  });

  it("refuses another client_id and a body that is not a form, with OAuth errors", async () => {
    const other = await postForm(root, "/oidc/device/auth", { client_id: "someone-else" });
    expect(other.status).toBe(401);
    expect(other.body.error).toBe("invalid_client");
    const json = await fetch(`${root}/oidc/device/auth`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"client_id":"cli-device-client"}',
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as { error: string }).error).toBe("invalid_request");
    expect((await fetch(`${root}/oidc/device/auth`)).status).toBe(405);
  });
});

describe("POST /oidc/token", () => {
  it("says authorization_pending until the code is approved, then hands out the token once", async () => {
    const grant = await startGrant(root);
    const pending = await poll(root, grant.device_code);
    expect(pending.status).toBe(400);
    expect(pending.body.error).toBe("authorization_pending");
    const page = await answerPage(grant.verification_uri_complete, {
      username: "alice",
      password: "correct horse",
      action: "approve",
    });
    expect(page.html).toContain("Device approved");
    const done = await poll(root, grant.device_code);
    expect(done.status).toBe(200);
    expect(done.headers.get("cache-control")).toBe("no-store");
    expect(done.body).toMatchObject({ token_type: "Bearer", expires_in: 86400 });
    expect((await bearer(done.body.access_token)).status).toBe(200);
    // Handed out once: a second poll with the same device code mints nothing.
    const again = await poll(root, grant.device_code);
    expect(again.body.error).toBe("invalid_grant");
  });

  it("answers slow_down to a device that polls sooner than the interval, and lengthens it", async () => {
    const slow = await startTestServer({ deviceFlow: { intervalSeconds: 30 } });
    try {
      const slowRoot = rootOf(slow.baseUrl);
      const grant = await startGrant(slowRoot);
      expect(grant.interval).toBe(30);
      expect((await poll(slowRoot, grant.device_code)).body.error).toBe("authorization_pending");
      expect((await poll(slowRoot, grant.device_code)).body.error).toBe("slow_down");
    } finally {
      await slow.close();
    }
  });

  it("answers access_denied when the person denies the code", async () => {
    const grant = await startGrant(root);
    const page = await answerPage(grant.verification_uri_complete, {
      username: "carol",
      password: "staple horse",
      action: "deny",
    });
    expect(page.html).toContain("Device denied");
    expect((await poll(root, grant.device_code)).body.error).toBe("access_denied");
  });

  it("answers expired_token once the code has expired", () => {
    const flow = new DeviceFlow({ intervalSeconds: 0, expiresInSeconds: 600 });
    const now = Date.now();
    const { deviceCode, userCode } = flow.start("127.0.0.1", now);
    expect(flow.poll(deviceCode, now + 599_000).kind).toBe("authorization_pending");
    expect(flow.isPending(userCode, now + 601_000)).toBe(false);
    expect(flow.poll(deviceCode, now + 601_000).kind).toBe("expired_token");
  });

  it("refreshes with the refresh token, which is used up by it", async () => {
    const tokens = await approvedTokens();
    const form = { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: "cli-device-client" };
    const refreshed = await postForm(root, "/oidc/token", form);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).not.toBe(tokens.access_token);
    expect(refreshed.body.refresh_token).not.toBe(tokens.refresh_token);
    expect((await bearer(refreshed.body.access_token)).status).toBe(200);
    const reused = await postForm(root, "/oidc/token", form);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");
    const unsupported = await postForm(root, "/oidc/token", { grant_type: "password", client_id: "cli-device-client" });
    expect(unsupported.body.error).toBe("unsupported_grant_type");
  });

  it("revokes a refresh token and an access token (RFC 7009)", async () => {
    const tokens = await approvedTokens();
    expect(
      (await postForm(root, "/oidc/revoke", { token: tokens.refresh_token, client_id: "cli-device-client" })).status,
    ).toBe(200);
    const refresh = await postForm(root, "/oidc/token", {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: "cli-device-client",
    });
    expect(refresh.body.error).toBe("invalid_grant");
    expect(
      (await postForm(root, "/oidc/revoke", { token: tokens.access_token, client_id: "cli-device-client" })).status,
    ).toBe(200);
    expect((await bearer(tokens.access_token)).status).toBe(401);
  });
});

describe("the verification page", () => {
  it("is a form with labelled fields that cannot be framed, run script or leak its URL", async () => {
    const grant = await startGrant(root);
    const page = await loadPage(grant.verification_uri_complete);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("referrer-policy")).toBe("same-origin");
    expect(page.headers.get("set-cookie")).toMatch(/HttpOnly; SameSite=Strict/);
    for (const id of ["user_code", "username", "password"])
      expect(page.html).toMatch(new RegExp(`<label for="${id}">[^<]+</label>\\s*<input id="${id}"`));
    expect(page.html).toContain(`value="${grant.user_code}"`);
    expect(page.html).toContain('<form method="post" action="/oidc/device">');
    expect(page.html).not.toContain("<script");
  });

  it("gives no token for a wrong password, and counts it against the login throttle", async () => {
    const grant = await startGrant(root);
    const wrong = await answerPage(grant.verification_uri_complete, {
      username: "bob",
      password: "wrong",
      action: "approve",
    });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain("Wrong username or password.");
    expect(wrong.html).not.toContain('wrong"'); // the password is never put back into the page
    expect((await poll(root, grant.device_code)).body.error).toBe("authorization_pending");
    await answerPage(grant.verification_uri_complete, { username: "bob", password: "still wrong", action: "approve" });
    // Two failures (maxFailures: 2): now even the right password is refused, on the page and at POST /login.
    const locked = await answerPage(grant.verification_uri_complete, {
      username: "bob",
      password: "battery staple",
      action: "approve",
    });
    expect(locked.status).toBe(429);
    expect(locked.html).toContain("Too many failed logins");
    expect((await poll(root, grant.device_code)).body.error).toBe("authorization_pending");
    await expect(login(server, "bob", "battery staple")).rejects.toThrow(/429/);
  });

  it("refuses a form without the page's CSRF cookie, or sent from another site", async () => {
    const grant = await startGrant(root);
    const forged = await fetch(`${root}/oidc/device`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        user_code: grant.user_code,
        username: "carol",
        password: "staple horse",
        action: "approve",
      }),
    });
    expect(forged.status).toBe(403);
    const crossSite = await answerPage(
      grant.verification_uri_complete,
      { username: "carol", password: "staple horse", action: "approve" },
      { origin: "https://evil.example" },
    );
    expect(crossSite.status).toBe(403);
    expect((await poll(root, grant.device_code)).body.error).toBe("authorization_pending");
  });

  it("takes the code as a person types it: lower case, without its dash", async () => {
    const grant = await startGrant(root);
    const typed = grant.user_code.replace("-", "").toLowerCase();
    const page = await answerPage(grant.verification_uri, {
      user_code: typed,
      username: "carol",
      password: "staple horse",
      action: "approve",
    });
    expect(page.status).toBe(200);
    expect((await poll(root, grant.device_code)).status).toBe(200);
  });

  it("refuses an unknown or already answered code", async () => {
    const grant = await startGrant(root);
    await answerPage(grant.verification_uri_complete, { username: "carol", password: "staple horse", action: "deny" });
    const twice = await answerPage(grant.verification_uri_complete, {
      username: "carol",
      password: "staple horse",
      action: "approve",
    });
    expect(twice.status).toBe(400);
    expect(twice.html).toContain("unknown, expired or already answered");
  });
});

describe("GET /api/v1/users/me", () => {
  it("answers the user and their account in the user service's shape, with a device token or a login", async () => {
    const tokens = await approvedTokens("carol", "staple horse");
    const me = await fetch(`${root}/api/v1/users/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(200);
    const { data } = (await me.json()) as { data: any };
    const session = await login(server, "carol", "staple horse");
    expect(data.user.entity).toMatchObject({ username: "carol", defaultAccountId: session["X-Account-Id"] });
    expect(data.accounts).toEqual([
      { entity: { _id: session["X-Account-Id"], name: "carol", slug: "carol", type: "personal" }, isDefault: true },
    ]);
    const withPair = await fetch(`${root}/api/v1/users/me`, { headers: { ...session } });
    expect(((await withPair.json()) as { data: unknown }).data).toEqual(data);
    expect((await fetch(`${root}/api/v1/users/me`)).status).toBe(401);
  });

  it("writes the records of the approving user's account, as a Bearer token anywhere", async () => {
    const tokens = await approvedTokens("alice", "correct horse");
    const created = await fetch(`${server.baseUrl}/materials/create`, {
      method: "PUT",
      headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "device-flow Si", formula: "Si" }),
    });
    const body = (await created.json()) as { data: { owner: { slug: string } } };
    expect(created.status, JSON.stringify(body)).toBe(200);
    expect(body.data.owner.slug).toBe("alice");
  });
});

describe("logs", () => {
  it("never carry a code, token or password of the flow", () => {
    expect(logLines.some((l) => l.includes("/oidc/token"))).toBe(true);
    for (const secret of [...secretsSeen, "correct horse", "battery staple", "staple horse"]) {
      for (const line of logLines) expect(line).not.toContain(secret);
    }
    expect(logLines.some((l) => l.includes("user_code"))).toBe(false);
  });
});
