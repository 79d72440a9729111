import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Client, type FrameWarning } from "../../src";
import type { PlatformRecord } from "../../src/client/collection";
import { offsetPages, MAX_REVALIDATIONS_IN_FLIGHT, MAX_REVALIDATION_CHARS } from "../../src/client/paging/offset";
import type { FetchPage, PageRequest } from "../../src/client/paging/fetch-page";
import { validateIterateOptions } from "../../src/client/config/validate-options";
import { startTestServer } from "../server/helpers";
import { rawLogin } from "../support/raw-login";
import { at } from "../support/checked";

// Issue 12: a re-run read against an unchanged collection costs revalidations, not bodies, and
// a changed collection is never answered from what was kept.

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function platform(options: { users?: string[] } = {}) {
  const lines: string[] = [];
  const server = await startTestServer({ log: (line) => lines.push(line), users: options.users });
  closers.push(() => server.close());
  /** Status codes of the list requests logged since `from`. */
  const statuses = (from: number) =>
    lines
      .slice(from)
      .filter((l) => l.startsWith("GET ") && l.includes("/materials "))
      .map((l) => l.split(" ")[2]);
  return { server, lines, statuses };
}

async function clientOf(baseUrl: string, username = "demo", password = "demo"): Promise<Client> {
  const client = new Client({ baseUrl, ...(await rawLogin(baseUrl, username, password)), cache: "memory" });
  closers.push(() => client.close());
  return client;
}

describe('toDataFrame with cache: "memory"', () => {
  it("re-runs against an unchanged collection with 304s only and gives an equal, separate frame", async () => {
    const { server, lines, statuses } = await platform();
    const first = await (await clientOf(server.baseUrl)).materials.toDataFrame({ pageSize: 10 });
    const mark = lines.length;
    const progress: number[] = [];
    const again = await (await clientOf(server.baseUrl)).materials.toDataFrame({
      pageSize: 10,
      onProgress: (p) => progress.push(p.items),
    });
    const sent = statuses(mark);
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(new Set(sent)).toEqual(new Set(["304"]));
    expect(again.values).toEqual(first.values);
    expect(again.columns).toEqual(first.columns);
    expect(progress).toEqual([first.shape[0]]);
    // The frames share nothing with each other or with what is kept.
    (again as unknown as { addColumn(name: string, values: number[], o: { inplace: boolean }): void }).addColumn(
      "extra",
      Array(again.shape[0]).fill(1),
      { inplace: true },
    );
    (first.values[0] as unknown[])[1] = "changed";
    const third = await (await clientOf(server.baseUrl)).materials.toDataFrame({ pageSize: 10 });
    expect(third.columns).toEqual(first.columns);
    expect((third.values[0] as unknown[])[1]).not.toBe("changed");
  });

  it("reads the account's new and removed records after its writes, never what was kept", async () => {
    const { server } = await platform({ users: ["dora:dora-pass"] });
    const client = await clientOf(server.baseUrl, "dora", "dora-pass");
    const columns = ["name", "formula"];
    const before = await client.materials.toDataFrame({ columns, pageSize: 10 });
    const created = await client.materials.create({ name: "kept-read probe", formula: "Si", tags: ["probe"] } as never);
    const grown = await client.materials.toDataFrame({ columns, pageSize: 10 });
    expect(grown.shape[0]).toBe(at(before.shape, 0, "the rows before") + 1);
    expect((grown.column("name").values as string[]).includes("kept-read probe")).toBe(true);
    await client.materials.delete(created._id);
    const shrunk = await client.materials.toDataFrame({ columns, pageSize: 10 });
    expect(shrunk.values).toEqual(before.values);
  });

  it("reports the read's warnings again when it comes from memory", async () => {
    const { server } = await platform();
    const client = await clientOf(server.baseUrl);
    const runs: FrameWarning[][] = [];
    for (let i = 0; i < 2; i++) {
      const warnings: FrameWarning[] = [];
      await client.materials.toDataFrame({
        columns: ["formula", "derivedProperties.densty"],
        onWarning: (w) => warnings.push(w),
      });
      runs.push(warnings);
    }
    const [first, again] = runs;
    expect(first?.map((w) => w.code)).toContain("EMPTY_COLUMN");
    expect(again).toEqual(first);
  });

  it("keeps nothing from a server without validators, and reads a changed collection again", async () => {
    for (const etags of [false, true]) {
      const changing = await startChangingServer({ etags });
      const client = new Client({ baseUrl: changing.baseUrl, accountId: "acct", authToken: "token", cache: "memory" });
      closers.push(() => client.close());
      const columns = ["-_id", "formula"];
      expect((await client.materials.toDataFrame({ columns })).values).toEqual([["Si"]]);
      changing.change([{ _id: "b", formula: "GaAs" }]);
      expect((await client.materials.toDataFrame({ columns })).values).toEqual([["GaAs"]]);
      const repeated = changing.state.repeatedBodies;
      expect((await client.materials.toDataFrame({ columns })).values).toEqual([["GaAs"]]);
      // With validators, the page of the unchanged collection read before costs no body; without,
      // every read sends it again.
      if (etags) expect(changing.state.repeatedBodies).toBe(repeated);
      else expect(changing.state.repeatedBodies).toBeGreaterThan(repeated);
    }
  });
});

describe("an offset walk over kept pages", () => {
  /** A fake page source: 40 pages of 2 records, the first `kept` of them in the cache. */
  function source(options: { kept: number; keptChars?: number }) {
    let inFlight = 0;
    let most = 0;
    const release: Array<() => void> = [];
    const fetchPage: FetchPage = (request: PageRequest) => {
      inFlight++;
      most = Math.max(most, inFlight);
      const skip = request.projection.skip ?? 0;
      return new Promise<PlatformRecord[]>((resolve) => {
        release.push(() => {
          inFlight--;
          resolve(
            skip >= 80
              ? []
              : [{ _id: `id${String(skip).padStart(3, "0")}` }, { _id: `id${String(skip + 1).padStart(3, "0")}` }],
          );
        });
      });
    };
    fetchPage.keptBytes = (request) =>
      (request.projection.skip ?? 0) / 2 < options.kept ? (options.keptChars ?? 1000) : undefined;
    const drain = setInterval(() => {
      for (const r of release.splice(0)) r();
    }, 1);
    closers.push(async () => clearInterval(drain));
    return { fetchPage, most: () => most };
  }

  async function walk(fetchPage: FetchPage, concurrency: number): Promise<string[]> {
    const o = { ...validateIterateOptions({ pageSize: 2 }), concurrency };
    const ids: string[] = [];
    for await (const page of offsetPages(fetchPage, o, "GET /materials")) ids.push(...page.map((r) => r._id));
    return ids;
  }

  it("keeps up to concurrency pages in flight without a cache", async () => {
    const s = source({ kept: 0 });
    expect(await walk(s.fetchPage, 2)).toHaveLength(80);
    expect(s.most()).toBe(2);
  });

  it("sends revalidations of kept pages all at once, beyond concurrency", async () => {
    const s = source({ kept: 40 });
    expect(await walk(s.fetchPage, 2)).toHaveLength(80);
    expect(s.most()).toBeGreaterThan(30);
    expect(s.most()).toBeLessThanOrEqual(2 + MAX_REVALIDATIONS_IN_FLIGHT);
  });

  it("bounds the kept answers in flight by their size, and still walks a page bigger than the bound", async () => {
    const s = source({ kept: 40, keptChars: MAX_REVALIDATION_CHARS / 4 });
    expect(await walk(s.fetchPage, 1)).toHaveLength(80);
    expect(s.most()).toBeLessThanOrEqual(5);
    const huge = source({ kept: 1000, keptChars: MAX_REVALIDATION_CHARS * 2 });
    expect(await walk(huge.fetchPage, 1)).toHaveLength(80);
    expect(huge.most()).toBe(1);
  });
});

/** A platform whose one collection the test rewrites, with ETags when `etags` is on. */
async function startChangingServer(options: { etags: boolean }) {
  const state = { version: 1, records: [{ _id: "a", formula: "Si" }], repeatedBodies: 0 };
  /** Tags of the bodies sent, to count a body sent again for the same page and version. */
  const sent = new Set<string>();
  const server: Server = createServer((req, res) => {
    const etag = `"v${state.version}-${Buffer.from(req.url ?? "")
      .toString("base64url")
      .slice(-24)}"`;
    if (options.etags && req.headers["if-none-match"] === etag) {
      res.writeHead(304, { etag });
      res.end();
      return;
    }
    const skip = Number(
      JSON.parse(new URL(req.url ?? "/", "http://x").searchParams.get("projection") ?? "{}").skip ?? 0,
    );
    // Only the page that holds the records is counted: how many empty pages past the end a walk
    // asks for, and whether it still reads their answers once it has its last record (it keeps
    // only what it read), depends on timing.
    const page = `${state.version} ${req.url}`;
    if (sent.has(page) && skip === 0) state.repeatedBodies++;
    sent.add(page);
    res.writeHead(200, {
      "content-type": "application/json",
      ...(options.etags ? { etag, "cache-control": "private, no-cache" } : {}),
    });
    res.end(JSON.stringify({ status: "success", data: skip > 0 ? [] : state.records }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return {
    state,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    change(records: typeof state.records) {
      state.records = records;
      state.version++;
    },
  };
}
