import { afterEach, describe, expect, it } from "vitest";
import { AuthenticationError, Client, ConnectionError, ServerError, TimeoutError } from "../../src";
import { startFaultServer, type FaultServer, type FaultServerOptions } from "../support/fault-server";

// A class behind one address logging in at once fills matframe serve's login queue, which
// answers 503 with Retry-After before checking any password: such a login is retried, and so is
// one that timed out, once (a login is safe to repeat: it only makes another token). A dropped
// connection is not, nor a wrong password.

let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(fault: FaultServerOptions["fault"]) {
  server = await startFaultServer({ fault });
  return server;
}

const logins = (s: FaultServer) => s.requests.filter((r) => r.path.endsWith("/login")).length;

describe("login retries", () => {
  it("retries a 503 with Retry-After (a full login queue) and logs in", async () => {
    let refused = 0;
    const s = await setup((r) =>
      r.path.endsWith("/login") && refused++ < 2
        ? { kind: "status", status: 503, headers: { "retry-after": "0" } }
        : undefined,
    );
    const client = await Client.login({ baseUrl: s.origin, username: s.username, password: s.password });
    expect(logins(s)).toBe(3);
    await client.close();
  });

  it("gives up after maxRetries, with the server's 503", async () => {
    const s = await setup((r) =>
      r.path.endsWith("/login") ? { kind: "status", status: 503, headers: { "retry-after": "0" } } : undefined,
    );
    await expect(
      Client.login({ baseUrl: s.origin, username: s.username, password: s.password, maxRetries: 1 }),
    ).rejects.toBeInstanceOf(ServerError);
    expect(logins(s)).toBe(2);
  });

  it("never retries a wrong password, another 5xx, or a dropped connection", async () => {
    let s = await setup(undefined);
    await expect(Client.login({ baseUrl: s.origin, username: s.username, password: "wrong" })).rejects.toBeInstanceOf(
      AuthenticationError,
    );
    expect(logins(s)).toBe(1);
    await s.close();
    s = await setup((r) => (r.path.endsWith("/login") ? { kind: "status", status: 502 } : undefined));
    await expect(
      Client.login({ baseUrl: s.origin, username: s.username, password: s.password }),
    ).rejects.toBeInstanceOf(ServerError);
    expect(logins(s)).toBe(1);
    await s.close();
    s = await setup((r) => (r.path.endsWith("/login") ? { kind: "reset-before-headers" } : undefined));
    await expect(
      Client.login({ baseUrl: s.origin, username: s.username, password: s.password }),
    ).rejects.toBeInstanceOf(ConnectionError);
    expect(logins(s)).toBe(1);
  });

  it("retries a login that timed out, once (30 students logging in at once on one laptop)", async () => {
    const s = await setup((r, n) => (r.path.endsWith("/login") && n.all === 1 ? { kind: "stall" } : undefined));
    const client = await Client.login({ baseUrl: s.origin, username: s.username, password: s.password, timeout: 500 });
    expect(logins(s)).toBe(2);
    await client.close();
    await s.close();
    // Only once: a second timeout is reported, with both attempts.
    const stalled = await setup((r) => (r.path.endsWith("/login") ? { kind: "stall" } : undefined));
    const error = await Client.login({
      baseUrl: stalled.origin,
      username: stalled.username,
      password: stalled.password,
      timeout: 300,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toMatch(/within 300 ms \(2 attempts\)/);
    expect(logins(stalled)).toBe(2);
  });
});
