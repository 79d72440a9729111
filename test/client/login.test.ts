import * as path from "node:path";
import * as os from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import {
  Client,
  AuthenticationError,
  ClientClosedError,
  ConnectionError,
  ResponseValidationError,
  ServerError,
  ValidationError,
} from "../../src";
import { at } from "../support/checked";
import { startFaultServer, type FaultServer, type LoginShape } from "../support/fault-server";

let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("login", () => {
  it.each<LoginShape>(["jsend", "bare", "camel", "jsend-camel"])("accepts the %s login result", async (shape) => {
    server = await startFaultServer({ records: 3, loginShape: shape });
    const client = await Client.login({ baseUrl: server.origin, username: server.username, password: server.password });
    expect(client.accountId).toBe(server.accountId);
    expect((await client.materials.list()).map((m) => m._id)).toEqual(["m000000", "m000001", "m000002"]);
    await client.close();
    const login = at(server.requests, 0, "the login request");
    expect(login.method).toBe("POST");
    expect(login.path).toBe("/api/2018-10-01/login");
    expect(login.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(login.body))).toEqual({
      username: server.username,
      password: server.password,
    });
  });

  it("a wrong password is an AuthenticationError that never echoes it", async () => {
    server = await startFaultServer();
    const password = "wrong-horse-staple-99";
    const error = await Client.login({ baseUrl: server.origin, username: server.username, password }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).status).toBe(401);
    expect((error as Error).message).toMatch(/check the username\/password/i);
    expect((error as Error).message).toContain("POST /api/2018-10-01/login");
    expect(JSON.stringify({ ...(error as object), message: (error as Error).message })).not.toContain(password);
  });

  it("never retries the login POST, even on a 503", async () => {
    server = await startFaultServer({
      fault: (r) => (r.path.endsWith("/login") ? { kind: "status", status: 503 } : undefined),
    });
    const error = await Client.login({
      baseUrl: server.origin,
      username: server.username,
      password: server.password,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(server.requests.filter((r) => r.path.endsWith("/login"))).toHaveLength(1);
  });

  it("a login answer without credentials is a ResponseValidationError with issues", async () => {
    server = await startFaultServer({
      fault: () => ({ kind: "wrong-shape", body: { status: "success", data: { token: "x" } } }),
    });
    const error = await Client.login({ baseUrl: server.origin, username: "a", password: "b" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.length).toBeGreaterThan(0);
  });

  it("an unreachable server is a ConnectionError that names the endpoint", async () => {
    server = await startFaultServer();
    const origin = server.origin;
    await server.close();
    server = undefined;
    const error = await Client.login({ baseUrl: origin, username: "a", password: "b" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/POST \/api\/2018-10-01\/login/);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });
});

describe("logout and close", () => {
  it("goes on over the connections the login opened: the client's first request opens none", async () => {
    server = await startFaultServer({ records: 3 });
    const client = await Client.login({ baseUrl: server.origin, username: server.username, password: server.password });
    expect(await client.materials.list()).toHaveLength(3);
    await client.close();
    const login = at(server.requests, 0, "the login request");
    const others = server.requests.slice(1);
    expect(login.path).toBe("/api/2018-10-01/login");
    // A loopback client times its link beside the login, once: one GET of the API's base path.
    const probes = others.filter((r) => r.path === "/api/2018-10-01/");
    expect(probes).toHaveLength(1);
    const probe = at(probes, 0, "the probe of the API's base path");
    const reads = others.filter((r) => r !== probe);
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) expect([login.remotePort, probe.remotePort]).toContain(r.remotePort);
  });

  it("logout revokes the token and the client then refuses requests", async () => {
    server = await startFaultServer({ records: 2 });
    const client = await Client.login({ baseUrl: server.origin, username: server.username, password: server.password });
    await client.logout();
    const logout = server.requests.at(-1)!;
    expect(logout.method).toBe("GET");
    expect(logout.path).toBe("/api/2018-10-01/logout");
    expect(logout.headers["x-account-id"]).toBe(server.accountId);
    expect(logout.headers["x-auth-token"]).toBe(server.authToken);
    const count = server.requests.length;
    const error = await client.materials.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientClosedError);
    expect((error as Error).message).toMatch(/logged out.*Log in again/);
    expect(server.requests.length).toBe(count);
    // The token really is dead: a second client with it is refused.
    const reuse = new Client({ baseUrl: server.origin, accountId: server.accountId, authToken: server.authToken });
    await expect(reuse.materials.list()).rejects.toThrow(AuthenticationError);
    await reuse.close();
  });

  it("close() keeps the token valid but refuses further requests", async () => {
    server = await startFaultServer({ records: 2 });
    const client = new Client({ baseUrl: server.origin, accountId: server.accountId, authToken: server.authToken });
    await client.close();
    await client.close();
    await expect(client.materials.get("m000000")).rejects.toThrow(/client is closed/);
  });

  it("the token is not visible in inspect or JSON", async () => {
    const { inspect } = await import("node:util");
    const client = new Client({ baseUrl: "http://127.0.0.1:9", accountId: "acc", authToken: "super-secret-token" });
    expect(inspect(client, { depth: 5, showHidden: true })).not.toContain("super-secret-token");
    expect(JSON.stringify(client)).not.toContain("super-secret-token");
    await client.close();
  });
});

describe("transport options", () => {
  it("sends through an injected dispatcher, which close() leaves open, with the given userAgent", async () => {
    const { Agent, request } = await import("undici");
    server = await startFaultServer({ records: 2 });
    const agent = new Agent({ connections: 2 });
    const client = new Client({
      baseUrl: server.origin,
      accountId: server.accountId,
      authToken: server.authToken,
      dispatcher: agent,
      userAgent: "notebook/1.0",
    });
    expect(await client.materials.list()).toHaveLength(2);
    await client.close();
    expect(server.requests[0]?.headers["user-agent"]).toBe("notebook/1.0");
    const after = await request(`${server.baseUrl}/materials/m000000`, { dispatcher: agent });
    expect(after.statusCode).toBe(401);
    await after.body.dump();
    await agent.close();
  });

  it("sends a matframe User-Agent by default", async () => {
    server = await startFaultServer({ records: 1 });
    const client = new Client({ baseUrl: server.origin, accountId: server.accountId, authToken: server.authToken });
    await client.materials.list();
    await client.close();
    expect(server.requests[0]?.headers["user-agent"]).toMatch(/^matframe\/\d+\.\d+\.\d+ node\//);
  });
});

describe("fromEnv", () => {
  it("uses MATFRAME_ACCOUNT_ID + MATFRAME_AUTH_TOKEN as they are", async () => {
    server = await startFaultServer({ records: 1 });
    const client = await Client.fromEnv(
      {},
      {
        MATFRAME_BASE_URL: server.origin,
        MATFRAME_ACCOUNT_ID: server.accountId,
        MATFRAME_AUTH_TOKEN: server.authToken,
      },
    );
    expect(await client.materials.list()).toHaveLength(1);
    expect(server.requests.some((r) => r.path.endsWith("/login"))).toBe(false);
    await client.close();
  });

  it("logs in with MATFRAME_USERNAME + MATFRAME_PASSWORD; overrides win", async () => {
    server = await startFaultServer({ records: 1 });
    const client = await Client.fromEnv(
      { password: server.password },
      { MATFRAME_BASE_URL: server.origin, MATFRAME_USERNAME: server.username, MATFRAME_PASSWORD: "stale" },
    );
    expect(client.accountId).toBe(server.accountId);
    await client.close();
  });

  it("says which variables to set", async () => {
    // No saved login either: the user's own credentials file must not count here.
    const none = { MATFRAME_CREDENTIALS_FILE: path.join(os.tmpdir(), "matframe-no-such-dir", "credentials.json") };
    await expect(Client.fromEnv({}, none)).rejects.toThrow(/Set MATFRAME_BASE_URL/);
    await expect(Client.fromEnv({}, { ...none, MATFRAME_BASE_URL: "http://127.0.0.1:9" })).rejects.toThrow(
      /MATFRAME_ACCOUNT_ID and MATFRAME_AUTH_TOKEN.*or MATFRAME_USERNAME and MATFRAME_PASSWORD/,
    );
    const half = await Client.fromEnv({}, { MATFRAME_BASE_URL: "http://127.0.0.1:9", MATFRAME_AUTH_TOKEN: "t" }).catch(
      (e: unknown) => e,
    );
    expect(half).toBeInstanceOf(ValidationError);
    expect((half as Error).message).toMatch(
      /MATFRAME_AUTH_TOKEN is set but MATFRAME_ACCOUNT_ID is not: the two go together/,
    );
  });
});
