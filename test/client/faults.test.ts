import { afterEach, describe, expect, it } from "vitest";
import {
  AbortError,
  Client,
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  UnprocessableEntityError,
  type ClientOptions,
  type IterateOptions,
} from "../../src";
import { startFaultServer, type Fault, type FaultServer, type FaultServerOptions } from "../support/fault-server";
import { at } from "../support/checked";

// Each scenario drives a real walk against a real misbehaving loopback server and checks the
// outcome a user sees: every record exactly once, or the right error.

let server: FaultServer | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

async function setup(options: FaultServerOptions, clientOptions: Partial<ClientOptions> = {}) {
  server = await startFaultServer(options);
  client = new Client({
    baseUrl: server.origin,
    accountId: server.accountId,
    authToken: server.authToken,
    ...clientOptions,
  });
  return { server, client };
}

/** Faults only the list request number `n` (1-based), `times` times in a row. */
function onListRequest(n: number, fault: Fault, times = 1): FaultServerOptions["fault"] {
  return (r, count) => (r.path.endsWith("/materials") && count.list >= n && count.list < n + times ? fault : undefined);
}

async function walk(c: Client, options: IterateOptions): Promise<string[]> {
  const ids: string[] = [];
  for await (const m of c.materials.iterate(options)) ids.push(m._id);
  return ids;
}

const expectEveryRecordOnce = (ids: string[], s: FaultServer) => expect(ids).toEqual(s.records.map((m) => m._id));

describe.each([1, 3])("recoverable faults, offset paging at concurrency %i", (concurrency) => {
  it("a connection dropped mid-body is retried; every record arrives once", async () => {
    const { server, client } = await setup({ records: 1050, fault: onListRequest(2, { kind: "drop-mid-body" }) });
    expectEveryRecordOnce(await walk(client, { pageSize: 100, concurrency }), server);
    const skips = server.requests.filter((r) => r.projection).map((r) => r.projection!.skip ?? 0);
    // The broken page was asked for again with the same skip/limit.
    expect(skips.filter((s) => s === 100)).toHaveLength(2);
  });

  it("503 then 200: retried, nothing lost or repeated", async () => {
    const { server, client } = await setup({
      records: 700,
      fault: onListRequest(3, { kind: "status", status: 503 }, 2),
    });
    expectEveryRecordOnce(await walk(client, { pageSize: 100, concurrency }), server);
  });

  it("429 with Retry-After is waited out and retried", async () => {
    const fault: Fault = { kind: "status", status: 429, headers: { "retry-after": "1" } };
    const { server, client } = await setup({ records: 300, fault: onListRequest(2, fault) });
    expectEveryRecordOnce(await walk(client, { pageSize: 100, concurrency }), server);
    expect(server.requests.filter((r) => r.projection?.skip === 100)).toHaveLength(2);
  });

  it("a connection reset before the headers is retried", async () => {
    const { server, client } = await setup({ records: 250, fault: onListRequest(1, { kind: "reset-before-headers" }) });
    expectEveryRecordOnce(await walk(client, { pageSize: 100, concurrency }), server);
  });
});

describe("a long walk through a burst of mixed faults", () => {
  // Every 3rd list request fails, cycling through the recoverable kinds.
  const cycle: Fault[] = [
    { kind: "status", status: 503 },
    { kind: "drop-mid-body" },
    { kind: "status", status: 429, headers: { "retry-after": "0" } },
    { kind: "reset-before-headers" },
    { kind: "status", status: 502 },
    { kind: "status", status: 500 },
    { kind: "status", status: 504 },
    { kind: "status", status: 408 },
  ];
  const injected: string[] = [];
  const fault: FaultServerOptions["fault"] = (r, n) => {
    if (!r.path.endsWith("/materials") || n.list % 3 !== 0) return undefined;
    const f = at(cycle, (n.list / 3 - 1) % cycle.length, "a fault of the cycle");
    injected.push(f.kind === "status" ? String(f.status) : f.kind);
    return f;
  };

  it.each([
    ["offset", 1],
    ["offset", 3],
    ["keyset", 1],
  ] as const)("%s paging at concurrency %i yields every record exactly once", async (paging, concurrency) => {
    injected.length = 0;
    const { server, client } = await setup({ records: 5000, fault }, { maxRetries: 3 });
    expectEveryRecordOnce(await walk(client, { paging, concurrency, pageSize: 200 }), server);
    expect(new Set(injected)).toEqual(
      new Set(["503", "drop-mid-body", "429", "reset-before-headers", "502", "500", "504", "408"]),
    );
  });
});

describe("unrecoverable faults end in the right error", () => {
  it("stalled headers: TimeoutError after every attempt timed out", async () => {
    const { server, client } = await setup(
      { records: 10, fault: onListRequest(1, { kind: "stall" }, 10) },
      { timeout: 200, maxRetries: 1 },
    );
    const error = await walk(client, { concurrency: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(200);
    expect((error as Error).message).toMatch(
      /GET \/api\/2018-10-01\/materials got no complete answer within 200 ms \(2 attempts\)/,
    );
    // Besides the one request that times the link before a loopback client's first walk.
    expect(server.requests.filter((r) => r.path.endsWith("/materials"))).toHaveLength(2);
  });

  it("a non-JSON body: ResponseValidationError, not retried", async () => {
    const { server, client } = await setup({ records: 10, fault: onListRequest(1, { kind: "non-json" }) });
    const error = await client.materials.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toMatch(/(with text\/html, not JSON|not valid JSON).*starting "<html>/);
    expect(server.requests).toHaveLength(1);
  });

  it("truncated JSON: ResponseValidationError", async () => {
    const { client } = await setup({ records: 10, fault: onListRequest(1, { kind: "truncated-json" }) });
    const error = await walk(client, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]?.message).toBe("Body is not valid JSON");
  });

  it.each([
    ["data that is not an array", { status: "success", data: { items: [] } }, /Expected an array of records/],
    ["a record without _id", { status: "success", data: [{ name: "x" }] }, /at 0\._id: Expected a string _id/],
    ["a body that is not JSend", [{ _id: "a" }], /not a JSend envelope/],
    ["a JSend error with status 200", { status: "error", message: "odd" }, /JSend error: "odd"/],
  ])("%s: ResponseValidationError", async (_, body, message) => {
    const { client } = await setup({ records: 10, fault: onListRequest(1, { kind: "wrong-shape", body }) });
    const error = await walk(client, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toMatch(message);
  });

  it("more records than the limit: ResponseValidationError", async () => {
    const body = { status: "success", data: Array.from({ length: 5 }, (_, i) => ({ _id: `x${i}` })) };
    const { client } = await setup({ records: 10, fault: onListRequest(1, { kind: "wrong-shape", body }) });
    await expect(walk(client, { pageSize: 3 })).rejects.toThrow(/at most 3 records/);
  });

  it("a token revoked mid-walk: AuthenticationError after the records before it", async () => {
    const { server, client } = await setup({ records: 1000 });
    const ids: string[] = [];
    const error = await (async () => {
      for await (const m of client.materials.iterate({ pageSize: 100, concurrency: 1 })) {
        ids.push(m._id);
        if (ids.length === 250) server.revoke();
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toMatch(/log in again/);
    expect((error as Error).message).not.toContain(server.authToken);
    expect(ids).toEqual(server.records.slice(0, ids.length).map((m) => m._id));
    expect(ids.length).toBeGreaterThanOrEqual(250);
    // 401 is not retried.
    expect(server.requests.filter((r) => r.projection?.skip === ids.length)).toHaveLength(1);
  });

  it("a persistent 503: ServerError after maxRetries + 1 attempts", async () => {
    const { server, client } = await setup(
      { records: 10, fault: onListRequest(1, { kind: "status", status: 503 }, 10) },
      { maxRetries: 1 },
    );
    const error = await client.materials.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).status).toBe(503);
    expect((error as Error).message).toMatch(/after 2 attempts/);
    expect(server.requests).toHaveLength(2);
  });

  it("a 429 asking for a long wait is raised at once, with the wait", async () => {
    const fault: Fault = { kind: "status", status: 429, headers: { "retry-after": "120" } };
    const { server, client } = await setup({ records: 10, fault: onListRequest(1, fault, 10) });
    const error = await client.materials.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(120_000);
    expect((error as Error).message).toMatch(/wait 120 s/);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    [400, BadRequestError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, UnprocessableEntityError],
    [418, ApiError],
  ])("%i is not retried and becomes its class with the server's message", async (status, ErrorClass) => {
    const body = JSON.stringify({ status: "error", message: `server says ${status}`, code: status });
    const { server, client } = await setup({
      records: 10,
      fault: onListRequest(1, { kind: "status", status, body }, 10),
    });
    const error = await client.materials.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ErrorClass);
    expect((error as ApiError).status).toBe(status);
    expect((error as ApiError).serverMessage).toBe(`server says ${status}`);
    expect((error as ApiError).endpoint).toBe("GET /api/2018-10-01/materials");
    expect(server.requests).toHaveLength(1);
  });

  it("a server message echoing the token is redacted", async () => {
    const { client } = await setup({ records: 1 });
    const token = server!.authToken;
    await client.close();
    server!.revoke();
    const body = JSON.stringify({ status: "error", message: `token ${token} is bad`, code: 400 });
    await server!.close();
    await setup({ records: 1, fault: () => ({ kind: "status", status: 400, body }) });
    const leaky = new Client({ baseUrl: server!.origin, accountId: "a", authToken: token });
    const error = await leaky.materials.list().catch((e: unknown) => e);
    await leaky.close();
    expect((error as Error).message).toContain("[redacted]");
    expect((error as Error).message).not.toContain(token);
    expect((error as ApiError).serverMessage).not.toContain(token);
  });

  it("get() of a missing id is a NotFoundError", async () => {
    const { client } = await setup({ records: 3 });
    expect((await client.materials.get("m000002")).name).toBe("Material 2");
    await expect(client.materials.get("nope")).rejects.toThrow(NotFoundError);
  });

  it("an unreachable server: ConnectionError after the retries", async () => {
    const { server, client } = await setup({ records: 1 }, { maxRetries: 1 });
    await server.close();
    const error = await client.materials.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/failed \(2 attempts\)/);
    // Worded for a script and for the command line alike: the address itself, no option name.
    expect((error as Error).message).toContain(
      `Check that ${new URL(server.origin).origin} is the platform's address and that its server is running and reachable`,
    );
  });
});

describe("abort and early stop", () => {
  it("the caller's signal aborts a walk with AbortError", async () => {
    const { client } = await setup({ records: 2000, fault: () => ({ kind: "delay", ms: 20 }) });
    const controller = new AbortController();
    let seen = 0;
    const error = await (async () => {
      for await (const _ of client.materials.iterate({ pageSize: 100, signal: controller.signal })) {
        if (++seen === 150) controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(seen).toBeLessThan(2000);
  });

  it("a client-wide signal aborts its requests", async () => {
    const controller = new AbortController();
    // Aborted once the request is at the server (which never answers), so the signal cuts a read in progress.
    let arrived!: () => void;
    const atServer = new Promise<void>((resolve) => (arrived = resolve));
    const stall = (): { kind: "stall" } => {
      arrived();
      return { kind: "stall" };
    };
    const { client } = await setup({ records: 10, fault: stall }, { signal: controller.signal });
    const pending = client.materials.list();
    await atServer;
    controller.abort();
    await expect(pending).rejects.toThrow(AbortError);
  });

  it("breaking out early cancels pages fetched ahead, and close() then returns", async () => {
    const { server, client } = await setup({ records: 5000, fault: () => ({ kind: "delay", ms: 30 }) });
    let seen = 0;
    for await (const _ of client.materials.iterate({ pageSize: 100, concurrency: 3 })) {
      if (++seen === 10) break;
    }
    await client.close();
    expect(seen).toBe(10);
    // Only the first pages were ever asked for.
    expect(server.requests.length).toBeLessThanOrEqual(4);
  });
});
