import { afterEach, describe, expect, it } from "vitest";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  BadRequestError,
  ConnectionError,
  NotFoundError,
  OptimadeClient,
  OptimadeFilterError,
  ResponseValidationError,
  ValidationError,
  type OptimadeProgress,
} from "../../../src";
import { fakeStructure, startFakeProvider, startIndexProvider, type FakeProvider } from "../../support/optimade-fake";
import { at } from "../../support/checked";

// Each quirk of a real provider (how `next` is written, what it drops, where paging stops, index
// meta-databases) is served by a small real HTTP server; the client must read every entry once,
// with only the asked-for fields, or fail with the provider's own words.

const providers: FakeProvider[] = [];
let client: OptimadeClient | undefined;
afterEach(async () => {
  await client?.close();
  await Promise.all(providers.splice(0).map((p) => p.close()));
  client = undefined;
});

async function provider(o: Parameters<typeof startFakeProvider>[0]): Promise<FakeProvider> {
  const p = await startFakeProvider(o);
  providers.push(p);
  return p;
}

async function ids(c: OptimadeClient, options: Parameters<OptimadeClient["structures"]["iterate"]>[0] = {}) {
  const out: string[] = [];
  for await (const s of c.structures.iterate(options)) out.push(s.id);
  return out;
}

const range = (from: number, to: number, step = 1) =>
  Array.from({ length: Math.ceil((to - from) / step) }, (_, k) => fakeStructure(from + k * step).id);

describe("OptimadeClient: paging by the provider's links", () => {
  it.each(["string", "object", "next_page", "relative"] as const)(
    "follows links.next written as %s, with page_limit from pageSize",
    async (next) => {
      const p = await provider({ count: 23, next });
      client = new OptimadeClient({ baseUrl: p.base });
      expect(await ids(client, { pageSize: 5 })).toEqual(range(0, 23));
      const pages = p.requests.filter((u) => u.pathname === "/v1/structures");
      expect(pages).toHaveLength(5);
      expect(pages[0]?.searchParams.get("page_limit")).toBe("5");
      // Later pages are the provider's own links, offsets and all.
      expect(pages.map((u) => u.searchParams.get("page_offset"))).toEqual([null, "5", "10", "15", "20"]);
    },
  );

  it("finds /v1 below a base with or without a trailing slash, and below a path prefix", async () => {
    const p = await provider({ count: 3, prefix: "/optimade" });
    for (const baseUrl of [p.base, `${p.base}/`, `${p.base}/v1`]) {
      const c = new OptimadeClient({ baseUrl });
      expect(await ids(c)).toEqual(range(0, 3));
      await c.close();
    }
  });

  it("keeps only the asked-for fields when next links drop response_fields (COD)", async () => {
    const p = await provider({ count: 12, dropResponseFields: true, next: "object" });
    client = new OptimadeClient({ baseUrl: p.base });
    const entries = [];
    for await (const s of client.structures.iterate({ fields: ["nsites", "_fake_energy"], pageSize: 4 }))
      entries.push(s);
    expect(entries).toHaveLength(12);
    // The provider sent every property on pages 2 and 3; none reaches the caller.
    const second = at(
      p.requests.filter((u) => u.pathname.endsWith("/structures")),
      1,
      "a second page's request",
    );
    expect(second.searchParams.has("response_fields")).toBe(false);
    for (const [i, s] of entries.entries()) expect(s.attributes).toEqual({ nsites: 2, _fake_energy: -1 - i });
  });

  it("stops at maxItems without asking for the page beyond, and reports data_returned", async () => {
    const p = await provider({ count: 50 });
    client = new OptimadeClient({ baseUrl: p.base });
    const progress: OptimadeProgress[] = [];
    const got = await ids(client, {
      filter: "nelements=2",
      pageSize: 10,
      maxItems: 15,
      onProgress: (x) => progress.push(x),
    });
    expect(got).toEqual(range(0, 30, 2));
    expect(progress).toEqual([
      { pages: 1, items: 10, total: 25 },
      { pages: 2, items: 15, total: 25 },
    ]);
    expect(p.requests.filter((u) => u.pathname.endsWith("/structures"))).toHaveLength(2);
  });

  it("retries a 503 with the shared transport's backoff", async () => {
    const p = await provider({ count: 4, failFirst: 2 });
    client = new OptimadeClient({ baseUrl: p.base, maxRetries: 2 });
    expect(await ids(client)).toEqual(range(0, 4));
  });

  it("reads a filter that matches nothing as no entries", async () => {
    const p = await provider({ count: 4 });
    client = new OptimadeClient({ baseUrl: p.base });
    expect(await ids(client, { filter: 'elements HAS "Xe"' })).toEqual([]);
  });

  it("reads one entry by id, and a missing id is NotFoundError", async () => {
    const p = await provider({ count: 4 });
    client = new OptimadeClient({ baseUrl: p.base });
    const s = await client.structures.get("fake-0002", { fields: ["nsites"] });
    expect(s).toEqual({ id: "fake-0002", type: "structures", attributes: { nsites: 2 } });
    await expect(client.structures.get("nope")).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("OptimadeClient: refusals in the provider's words", () => {
  it("a malformed filter is OptimadeFilterError with the first line of the provider's detail", async () => {
    const p = await provider({ count: 4 });
    client = new OptimadeClient({ baseUrl: p.base });
    const error = await ids(client, { filter: "nelements=" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OptimadeFilterError);
    const e = error as OptimadeFilterError;
    expect(e.status).toBe(400);
    expect(e.code).toBe("ERR_OPTIMADE_FILTER");
    expect(e.serverMessage).toBe('Unable to parse filter "nelements=".');
    expect(e.message).toContain('Unable to parse filter "nelements=".');
    expect(e.message).not.toContain("Lark");
  });

  it("a 414 (a filter too long for the provider's front end) is not called a malformed filter", async () => {
    const p = await provider({ count: 4, maxTarget: 2000 });
    client = new OptimadeClient({ baseUrl: p.base });
    const filter = Array.from({ length: 200 }, (_, i) => `id="fake-${i}"`).join(" OR ");
    const error = await ids(client, { filter }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).not.toBeInstanceOf(OptimadeFilterError);
    expect((error as BadRequestError).status).toBe(414);
    expect((error as Error).message).toMatch(/Request too long: .*ask for fewer values at a time/);
  });

  it("a 400 at a provider's paging limit says how far the walk came", async () => {
    const p = await provider({ count: 40, offsetLimit: 20 });
    client = new OptimadeClient({ baseUrl: p.base });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const s of client!.structures.iterate({ pageSize: 10 })) seen.push(s.id);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(range(0, 20));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).not.toBeInstanceOf(OptimadeFilterError);
    expect((error as Error).message).toMatch(
      /refused page 3 after 20 of 40 entries: page_offset 20 is beyond the limit/,
    );
  });

  it("a next link back to an earlier page stops the walk with ResponseValidationError, not a loop", async () => {
    const p = await provider({ count: 12, next: "loop" });
    client = new OptimadeClient({ baseUrl: p.base });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const s of client!.structures.iterate({ pageSize: 5 })) seen.push(s.id);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toMatch(/gave page 3 the link of an earlier page .*the provider's paging loops/);
    // Page 1, then its link (the same entries at page_offset=0), whose link is itself: no third request.
    expect(p.requests.filter((u) => u.pathname.endsWith("/structures"))).toHaveLength(2);
    expect(seen).toEqual([...range(0, 5), ...range(0, 5)]);
  });

  it("a provider that cannot be reached is ConnectionError (ERR_CONNECTION) at its first request, /v1/info", async () => {
    // A port that was just free: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    client = new OptimadeClient({ baseUrl: `http://127.0.0.1:${port}/optimade`, maxRetries: 0 });
    const error = await ids(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).code).toBe("ERR_CONNECTION");
    expect((error as Error).message).toContain(`GET /optimade/v1/info on http://127.0.0.1:${port} failed`);
  });

  it("checks options before any request", () => {
    expect(() => new OptimadeClient({ baseUrl: "ftp://x" })).toThrow(ValidationError);
    const c = new OptimadeClient({ baseUrl: "http://127.0.0.1:1" });
    expect(() => c.structures.pages({ fields: ["Bad Name"] })).toThrow(/not an OPTIMADE property name/);
    expect(() => c.structures.pages({ pageSize: 0 })).toThrow(/pageSize must be an integer/);
  });
});

describe("OptimadeClient: index meta-databases", () => {
  it("resolves an index's only database through /links", async () => {
    const db = await provider({ count: 6 });
    const index = await startIndexProvider([{ id: "fake", base: db.base }]);
    providers.push(index);
    client = new OptimadeClient({ baseUrl: index.base });
    expect(await ids(client)).toEqual(range(0, 6));
    const resolved = await client.resolve();
    expect(resolved.versionedBase).toBe(`${db.base}/v1`);
    expect(resolved.database?.id).toBe("fake");
  });

  it("takes the index's default, or the database named, and lists the choices when it cannot tell", async () => {
    const a = await provider({ count: 2 });
    const b = await provider({ count: 5 });
    const children = [
      { id: "a", base: a.base },
      { id: "b", base: b.base },
    ];
    const index = await startIndexProvider(children);
    const withDefault = await startIndexProvider(children, { withDefault: true });
    providers.push(index, withDefault);
    const undecided = new OptimadeClient({ baseUrl: index.base });
    await expect(ids(undecided)).rejects.toThrow(
      /index meta-database of 2 databases and names no default: a \(Database a\), b \(Database b\)/,
    );
    await undecided.close();
    const named = new OptimadeClient({ baseUrl: index.base, database: "b" });
    expect(await ids(named)).toHaveLength(5);
    await named.close();
    client = new OptimadeClient({ baseUrl: withDefault.base });
    expect(await ids(client)).toHaveLength(2);
    expect((await client.databases()).map((d) => d.id)).toEqual(["a", "b"]);
  });
});

describe("OptimadeClient: index entries with null members", () => {
  it("follows a child whose aggregate, no_aggregate_reason, homepage and description are null, as the reference server sends them", async () => {
    const db = await provider({ count: 3 });
    const index = await startIndexProvider([
      {
        id: "ref",
        base: db.base,
        attributes: { aggregate: null, no_aggregate_reason: null, homepage: null, description: null },
      },
    ]);
    providers.push(index);
    client = new OptimadeClient({ baseUrl: index.base });
    expect(await client.databases()).toEqual([{ id: "ref", name: "Database ref", baseUrl: db.base }]);
    expect(await ids(client)).toEqual(range(0, 3));
    expect((await client.resolve()).database?.id).toBe("ref");
  });

  it("an index whose only child cannot be read says which entry was skipped and why", async () => {
    const db = await provider({ count: 3 });
    const index = await startIndexProvider([{ id: "odd", base: db.base, attributes: { aggregate: 5 } }]);
    providers.push(index);
    client = new OptimadeClient({ baseUrl: index.base });
    const error = await ids(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(
      /whose \/links name no database with a base URL; matframe could not read the entry "odd" \(aggregate: .*expected string.*\)\. Pass a database's own base URL instead\./,
    );
  });
});
