import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Client,
  AuthenticationError,
  BadRequestError,
  ClientClosedError,
  ConnectionError,
  NotFoundError,
  RateLimitError,
  ValidationError,
  type IterateOptions,
} from "../../src";
import type { Progress } from "../../src";
import { Material } from "../../src/schemas";
import { startServer } from "../../src/server";
import { rawLogin } from "../support/raw-login";
import { at } from "../support/checked";

// Against the real `matframe serve` (in-process, port 0): the bundled materials plus 2,000
// synthetic ones.

let server: Awaited<ReturnType<typeof startServer>>;
let client: Client;
const SYNTHETIC = 2000;

beforeAll(async () => {
  server = await startServer({ port: 0, synthetic: SYNTHETIC, users: ["ada:lovelace-1843"] });
  client = await Client.login({ baseUrl: server.baseUrl, username: "ada", password: "lovelace-1843" });
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

async function collect(options: IterateOptions): Promise<string[]> {
  const ids: string[] = [];
  for await (const m of client.materials.iterate(options)) ids.push(m._id);
  return ids;
}

describe("login and logout against matframe serve", () => {
  it("logs in with the host only as baseUrl, and reads", async () => {
    const c = await Client.login({
      baseUrl: `http://127.0.0.1:${server.port}`,
      username: "ada",
      password: "lovelace-1843",
    });
    expect(c.baseUrl).toBe(server.baseUrl);
    expect(await c.materials.list({ projection: { limit: 3 } })).toHaveLength(3);
    await c.close();
  });

  it("a wrong password is an AuthenticationError", async () => {
    const error = await Client.login({ baseUrl: server.baseUrl, username: "ada", password: "babbage" }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toMatch(/check the username\/password/i);
    expect((error as Error).message).not.toContain("babbage");
  });

  it("logout revokes the token: this client refuses, another with the token gets 401", async () => {
    const credentials = await rawLogin(server.baseUrl, "ada", "lovelace-1843");
    const c = new Client({ baseUrl: server.baseUrl, ...credentials });
    const twin = await Client.fromEnv(
      {},
      {
        MATFRAME_BASE_URL: server.baseUrl,
        MATFRAME_ACCOUNT_ID: credentials.accountId,
        MATFRAME_AUTH_TOKEN: credentials.authToken,
      },
    );
    await c.logout();
    await expect(c.materials.list()).rejects.toThrow(ClientClosedError);
    await expect(twin.materials.list()).rejects.toThrow(AuthenticationError);
    await twin.close();
  });

  it("a token revoked in the middle of a walk ends it with AuthenticationError", async () => {
    const credentials = await rawLogin(server.baseUrl, "ada", "lovelace-1843");
    const c = new Client({ baseUrl: server.baseUrl, ...credentials });
    const revoker = new Client({ baseUrl: server.baseUrl, ...credentials });
    let seen = 0;
    const error = await (async () => {
      for await (const _ of c.materials.iterate({ pageSize: 100, concurrency: 1 })) {
        if (++seen === 150) await revoker.logout();
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toMatch(/log in again/);
    expect(seen).toBeLessThan(server.materialCount);
    await c.close();
  });

  it("repeated wrong passwords are throttled: RateLimitError with the wait", async () => {
    const s = await startServer({ port: 0, loginThrottle: { maxFailures: 2 } });
    try {
      for (let i = 0; i < 2; i++) {
        await expect(Client.login({ baseUrl: s.baseUrl, username: "demo", password: "nope" })).rejects.toThrow(
          AuthenticationError,
        );
      }
      const error = await Client.login({ baseUrl: s.baseUrl, username: "demo", password: "nope" }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
  });
});

describe("list and get", () => {
  it("list is one page with the projection applied", async () => {
    const page = await client.materials.list({
      projection: { fields: { formula: 1 }, sort: { formula: 1 }, limit: 20 },
    });
    expect(page).toHaveLength(20);
    for (const m of page) expect(Object.keys(m).sort()).toEqual(["_id", "formula"]);
    const formulas = page.map((m) => m.formula!);
    expect(formulas).toEqual([...formulas].sort());
  });

  it("get returns the full record a list named", async () => {
    const first = at(await client.materials.list({ projection: { limit: 1 } }), 0, "a material");
    const one = await client.materials.get(first._id);
    expect(one).toEqual(first);
    expect(Material.safeParse(one).success).toBe(true);
  });

  it("get of a missing id is a NotFoundError; an unknown collection too", async () => {
    await expect(client.materials.get("no-such-id")).rejects.toThrow(NotFoundError);
    await expect(client.collection("nonexistent").list()).rejects.toThrow(NotFoundError);
  });

  it("a query the server refuses is a BadRequestError with its message", async () => {
    const error = await client.materials.list({ query: { $where: "sleep(1000)" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).status).toBe(400);
    expect((error as BadRequestError).serverMessage).toBeTruthy();
    expect((error as Error).message).toContain((error as BadRequestError).serverMessage);
  });

  it("a bad pageSize is refused before any request", () => {
    expect(() => client.materials.iterate({ pageSize: 501 })).toThrow(ValidationError);
  });

  it("a server that is gone is a ConnectionError", async () => {
    const s = await startServer({ port: 0 });
    const c = await Client.login({ baseUrl: s.baseUrl, username: "demo", password: "demo", maxRetries: 0 });
    await s.close();
    await expect(c.materials.list()).rejects.toThrow(ConnectionError);
    await c.close();
  });
});

describe(`every paging mode over ${SYNTHETIC}+ materials`, () => {
  let reference: string[];
  beforeAll(async () => {
    reference = await collect({ paging: "offset", concurrency: 1 });
  });

  it("offset at concurrency 1 yields every material exactly once", () => {
    expect(reference.length).toBe(server.materialCount);
    expect(reference.length).toBeGreaterThanOrEqual(SYNTHETIC);
    expect(new Set(reference).size).toBe(reference.length);
  });

  it("offset at concurrency 3 yields the same records in the same order", async () => {
    expect(await collect({ paging: "offset", concurrency: 3 })).toEqual(reference);
  });

  it.each([1, 3])("keyset (concurrency %i is ignored) yields the same set, sorted by _id", async (concurrency) => {
    const ids = await collect({ paging: "keyset", concurrency, pageSize: 300 });
    expect(ids).toEqual([...reference].sort());
  });

  it.each([1, 3])("offset sorted by formula at concurrency %i is sorted and complete", async (concurrency) => {
    const rows: Array<{ id: string; formula: string }> = [];
    for await (const m of client.materials.iterate({
      sort: { formula: 1 },
      fields: { formula: 1 },
      pageSize: 250,
      concurrency,
    })) {
      rows.push({ id: m._id, formula: m.formula! });
    }
    expect(rows).toHaveLength(reference.length);
    expect(new Set(rows.map((r) => r.id)).size).toBe(reference.length);
    const formulas = rows.map((r) => r.formula);
    expect(formulas).toEqual([...formulas].sort());
  });

  it("a query with keyset equals the same query with offset", async () => {
    const query = { isSynthetic: true };
    const offset = await collect({ query, concurrency: 3, pageSize: 200 });
    const keyset = await collect({ query, paging: "keyset", pageSize: 200 });
    expect(offset).toHaveLength(SYNTHETIC);
    expect(keyset).toEqual([...offset].sort());
  });

  it("pages() and onPage report the walk", async () => {
    const info: Progress[] = [];
    let pages = 0;
    for await (const page of client.materials.pages({ pageSize: 500, maxItems: 1200, onPage: (i) => info.push(i) })) {
      pages += 1;
      expect(page.length).toBeLessThanOrEqual(500);
    }
    expect(pages).toBe(3);
    expect(info).toEqual([
      { pages: 1, items: 500 },
      { pages: 2, items: 1000 },
      { pages: 3, items: 1200 },
    ]);
  });
});

describe("records without _id", () => {
  it.each(["offset", "keyset"] as const)(
    "%s paging with fields {_id: 0} walks every record once and strips _id",
    async (paging) => {
      const formulas: unknown[] = [];
      for await (const m of client.materials.iterate({ paging, fields: { _id: 0, formula: 1 }, pageSize: 300 })) {
        expect(m).not.toHaveProperty("_id");
        formulas.push(m.formula);
      }
      expect(formulas).toHaveLength(SYNTHETIC + 29);
    },
  );
});
