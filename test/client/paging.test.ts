import { afterEach, describe, expect, it } from "vitest";
import { Client, DuplicateRecordError, ResponseValidationError, type DuplicateInfo, type Progress } from "../../src";
import { RECEIVED_AHEAD } from "../../src/client/paging/offset";
import { startFaultServer, type FaultServer, type FaultServerOptions } from "../support/fault-server";

let server: FaultServer | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

async function setup(options: FaultServerOptions) {
  server = await startFaultServer(options);
  client = new Client({ baseUrl: server.baseUrl, accountId: server.accountId, authToken: server.authToken });
  return { server, client };
}

const listRequests = (s: FaultServer) => s.requests.filter((r) => r.path.endsWith("/materials"));

describe("offset paging", () => {
  it("asks limit=N, then skip=N, limit=N, ... with _id as the last sort key, and confirms the end after a short page", async () => {
    const { server, client } = await setup({ records: 250 });
    const ids: string[] = [];
    for await (const m of client.materials.iterate({ pageSize: 100, concurrency: 1, sort: { formula: -1 } }))
      ids.push(m._id);
    expect(ids).toHaveLength(250);
    const sent = listRequests(server).map((r) => r.projection);
    expect(sent).toEqual([
      { sort: { formula: -1, _id: 1 }, limit: 100 },
      { sort: { formula: -1, _id: 1 }, limit: 100, skip: 100 },
      { sort: { formula: -1, _id: 1 }, limit: 100, skip: 200 },
      // The short page (50) is confirmed by one more request, which comes back empty.
      { sort: { formula: -1, _id: 1 }, limit: 100, skip: 250 },
    ]);
  });

  it("keeps `concurrency` pages in flight and still yields in order", async () => {
    const { server, client } = await setup({ records: 2000, fault: () => ({ kind: "delay", ms: 25 }) });
    const ids: string[] = [];
    for await (const m of client.materials.iterate({ pageSize: 100, concurrency: 3 })) ids.push(m._id);
    expect(ids).toEqual(server.records.map((m) => m._id));
    expect(server.maxInFlight).toBe(3);
  });

  it("sends the next request as an answer arrives, even while an earlier page is still on its way", async () => {
    // The first page is slow; the others are not. Each request goes out as a body arrives (not
    // once its page is parsed and its turn has come), so the pages behind the slow one go on,
    // up to RECEIVED_AHEAD of them waiting for it, and never more than `concurrency` at the server.
    let firstAt: number | undefined;
    let sentBeforeFirst = 0;
    const { server, client } = await setup({
      records: 2000,
      fault: (request) => {
        if (!request.path.endsWith("/materials")) return undefined;
        firstAt ??= Date.now();
        // Requests made while the first page is held (400 ms), with a margin for a slow machine.
        if (Date.now() - firstAt < 300) sentBeforeFirst++;
        return request.projection?.skip === undefined ? { kind: "delay", ms: 400 } : undefined;
      },
    });
    const ids: string[] = [];
    for await (const page of client.materials.pages({ pageSize: 100, concurrency: 2 }))
      ids.push(...page.map((m) => m._id));
    expect(ids).toEqual(server.records.map((m) => m._id));
    expect(sentBeforeFirst).toBe(2 + RECEIVED_AHEAD);
    expect(server.maxInFlight).toBe(2);
  });

  it("at concurrency 1 has one page in flight", async () => {
    const { server, client } = await setup({ records: 500, fault: () => ({ kind: "delay", ms: 10 }) });
    for await (const _ of client.materials.pages({ pageSize: 100, concurrency: 1 }));
    expect(server.maxInFlight).toBe(1);
  });

  it("an exact multiple of pageSize ends on an empty page without yielding it", async () => {
    const { server, client } = await setup({ records: 300 });
    const sizes: number[] = [];
    const info: Progress[] = [];
    for await (const page of client.materials.pages({ pageSize: 100, concurrency: 1, onPage: (i) => info.push(i) }))
      sizes.push(page.length);
    expect(sizes).toEqual([100, 100, 100]);
    expect(info.at(-1)).toEqual({ pages: 3, items: 300 });
    expect(listRequests(server)).toHaveLength(4);
  });

  it("maxItems stops the walk and trims the last limit", async () => {
    const { server, client } = await setup({ records: 1000 });
    const ids: string[] = [];
    for await (const m of client.materials.iterate({ pageSize: 100, maxItems: 250, concurrency: 3 })) ids.push(m._id);
    expect(ids).toEqual(server.records.slice(0, 250).map((m) => m._id));
    expect(listRequests(server).map((r) => r.projection!.limit)).toEqual([100, 100, 50]);
  });

  it("a record seen twice throws DuplicateRecordError by default", async () => {
    const { client } = await setup({
      records: 300,
      fault: (r) => (r.projection?.skip === 200 ? { kind: "duplicate-first", id: "m000150" } : undefined),
    });
    const error = await (async () => {
      for await (const _ of client.materials.iterate({ pageSize: 100 }));
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateRecordError);
    expect((error as DuplicateRecordError).id).toBe("m000150");
    expect((error as DuplicateRecordError).page).toBe(3);
    expect((error as Error).message).toMatch(/paging: "keyset"/);
  });

  it("under a sort other than _id, a record seen twice is caught too (every _id kept)", async () => {
    const { client } = await setup({
      records: 300,
      fault: (r) => (r.projection?.skip === 200 ? { kind: "duplicate-first", id: "m000250" } : undefined),
    });
    // The fault server ignores the sort and pages in _id order; m000250 then comes twice in a row.
    const error = await (async () => {
      for await (const _ of client.materials.iterate({ pageSize: 100, sort: { name: 1 } }));
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateRecordError);
    expect((error as DuplicateRecordError).id).toBe("m000250");
  });

  it("a server that ignores skip ends the walk with ResponseValidationError, even with onDuplicate", async () => {
    const firstPage = Array.from({ length: 100 }, (_, n) => ({ _id: `m${String(n).padStart(6, "0")}`, name: `m${n}` }));
    const { server, client } = await setup({
      records: 300,
      fault: (r) =>
        r.path.endsWith("/materials")
          ? { kind: "wrong-shape", body: { status: "success", data: firstPage } }
          : undefined,
    });
    const error = await (async () => {
      for await (const _ of client.materials.iterate({ pageSize: 100, concurrency: 1, onDuplicate: () => {} }));
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toMatch(/every record of page 2 .*paging: "keyset"/);
    expect(listRequests(server)).toHaveLength(2);
  });

  it("a page out of _id order is a ResponseValidationError, not records taken for repeats", async () => {
    const reversed = Array.from({ length: 100 }, (_, n) => ({ _id: `m${String(99 - n).padStart(6, "0")}`, name: "x" }));
    const { client } = await setup({
      records: 300,
      fault: (r) =>
        r.path.endsWith("/materials")
          ? { kind: "wrong-shape", body: { status: "success", data: reversed } }
          : undefined,
    });
    const repeats: DuplicateInfo[] = [];
    const error = await (async () => {
      for await (const _ of client.materials.iterate({ pageSize: 100, onDuplicate: (d) => repeats.push(d) }));
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toMatch(/page 1 is not sorted by _id/);
    expect(repeats).toEqual([]);
  });

  it("with onDuplicate, a repeat is dropped and reported", async () => {
    const { client } = await setup({
      records: 300,
      fault: (r) => (r.projection?.skip === 200 ? { kind: "duplicate-first", id: "m000150" } : undefined),
    });
    const repeats: DuplicateInfo[] = [];
    const ids: string[] = [];
    for await (const m of client.materials.iterate({ pageSize: 100, onDuplicate: (d) => repeats.push(d) }))
      ids.push(m._id);
    expect(repeats).toEqual([{ id: "m000150", page: 3 }]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(299);
  });

  it("fields with _id: 0 still pages by _id and yields records without it", async () => {
    const { server, client } = await setup({ records: 120 });
    const names: unknown[] = [];
    for await (const m of client.materials.iterate({ pageSize: 50, fields: { name: 1, _id: 0 } })) {
      expect("_id" in m).toBe(false);
      names.push(m.name);
    }
    expect(names).toHaveLength(120);
    expect(listRequests(server)[0]?.projection?.fields).toEqual({ name: 1 });
  });
});

describe("keyset paging", () => {
  it("sorts by _id and asks for _id > last, one page in flight", async () => {
    const { server, client } = await setup({ records: 250, fault: () => ({ kind: "delay", ms: 5 }) });
    const ids: string[] = [];
    for await (const m of client.materials.iterate({ paging: "keyset", pageSize: 100, concurrency: 3 }))
      ids.push(m._id);
    expect(ids).toEqual(server.records.map((m) => m._id));
    const sent = listRequests(server);
    // The last request, after the short page, comes back empty and ends the walk.
    expect(sent.map((r) => r.query)).toEqual([
      {},
      { _id: { $gt: "m000099" } },
      { _id: { $gt: "m000199" } },
      { _id: { $gt: "m000249" } },
    ]);
    expect(sent.every((r) => r.projection!.skip === undefined && r.projection!.sort!._id === 1)).toBe(true);
    expect(server.maxInFlight).toBe(1);
  });

  it("wraps a query as {$and: [query, {_id: {$gt: last}}]}", async () => {
    const { server, client } = await setup({ records: 30 });
    for await (const _ of client.materials.pages({
      paging: "keyset",
      pageSize: 10,
      query: { formula: { $exists: true } },
    }));
    expect(listRequests(server)[1]?.query).toEqual({
      $and: [{ formula: { $exists: true } }, { _id: { $gt: "m000009" } }],
    });
  });

  it("a server that ignores the cursor is detected rather than looped on", async () => {
    const { client } = await setup({
      records: 30,
      fault: (r) =>
        r.path.endsWith("/materials")
          ? { kind: "wrong-shape", body: { status: "success", data: [{ _id: "a" }, { _id: "b" }] } }
          : undefined,
    });
    await expect(
      (async () => {
        for await (const _ of client.materials.iterate({ paging: "keyset", pageSize: 2 }));
      })(),
    ).rejects.toThrow(/ignored \{_id: \{\$gt/);
  });
});

describe("list", () => {
  it("sends exactly one request with query and projection as JSON", async () => {
    const { server, client } = await setup({ records: 30 });
    const page = await client.materials.list({ query: { formula: "Si" }, projection: { skip: 5, limit: 10 } });
    expect(page.map((m) => m._id)).toEqual(server.records.slice(5, 15).map((m) => m._id));
    expect(listRequests(server)).toHaveLength(1);
    const [request] = listRequests(server);
    expect(request?.query).toEqual({ formula: "Si" });
    expect(request?.headers["x-auth-token"]).toBe(server.authToken);
  });
});
