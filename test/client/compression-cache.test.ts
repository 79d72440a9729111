import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, constants as zlibConstants, deflateSync, gzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Client, ResponseTooLargeError, ResponseValidationError, ValidationError, type ClientOptions } from "../../src";
import type { ServerHandle } from "../../src/server";
import { startFaultServer } from "../support/fault-server";
import { at } from "../support/checked";
import { rawLogin } from "../support/raw-login";
import { linkGuess } from "../../src/client/config/validate-options";
// The bench's link simulator (plain JavaScript): a TCP forwarder with a delay and a bandwidth cap.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startLinkProxy } = require("../../bench/lib/link-proxy.js") as {
  startLinkProxy: (o: {
    target: string;
    rttMs: number;
    mbit: number;
  }) => Promise<{ port: number; close(): Promise<void> }>;
};
import { startTestServer } from "../server/helpers";
import { internalsOf } from "../../src/client/client-internals";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe("compressed transfer", () => {
  it("asks for br, gzip and deflate when told to, identity when told not to, and by default until the link is measured near", async () => {
    const fault = await startFaultServer({ records: 3 });
    closers.push(() => fault.close());
    for (const [compression, expected] of [
      [true, ["br, gzip, deflate", "br, gzip, deflate"]],
      [false, ["identity", "identity"]],
    ] as const) {
      const client = new Client({
        baseUrl: fault.origin,
        accountId: fault.accountId,
        authToken: fault.authToken,
        compression,
      });
      closers.push(() => client.close());
      await client.materials.list();
      await client.materials.list();
      expect(fault.requests.slice(-2).map((r) => r.headers["accept-encoding"])).toEqual(expected);
    }
    // By default: compressed until an answer comes back fast enough to call the link near (the
    // shortest time to a first byte; on a loaded machine one answer may take longer than 20 ms).
    const client = new Client({ baseUrl: fault.origin, accountId: fault.accountId, authToken: fault.authToken });
    closers.push(() => client.close());
    const first = fault.requests.length;
    const last = () => fault.requests.at(-1)?.headers["accept-encoding"];
    for (let i = 0; i < 20 && (i === 0 || last() !== "identity"); i++) await client.materials.list();
    const asked = fault.requests.slice(first).map((r) => r.headers["accept-encoding"]);
    expect(asked[0]).toBe("br, gzip, deflate");
    expect(asked.at(-1)).toBe("identity");
  });

  it("follows the link, not the hostname: a loopback address that forwards to a far platform keeps compression and 6 pages in flight", async () => {
    const server = await startTestServer({});
    closers.push(() => server.close());
    const creds = await rawLogin(server.baseUrl, "demo", "demo");
    // A real TCP forwarder on 127.0.0.1 adding 30 ms each way, as an SSH tunnel to another region does.
    const link = await startLinkProxy({ target: new URL(server.baseUrl).host, rttMs: 60, mbit: 50 });
    closers.push(() => link.close());
    const tunnel = new Client({ baseUrl: `http://127.0.0.1:${link.port}`, ...creds });
    const near = new Client({ baseUrl: server.baseUrl, ...creds });
    closers.push(
      () => tunnel.close(),
      () => near.close(),
    );
    expect([internalsOf(tunnel).defaultConcurrency, internalsOf(near).defaultConcurrency]).toEqual([3, 3]); // the hostname's guess, before any answer
    const pages: number[] = [];
    for await (const page of tunnel.materials.pages({ pageSize: 5 })) pages.push(page.length);
    for await (const page of near.materials.pages({ pageSize: 5 })) pages.push(page.length);
    expect(pages.reduce((a, b) => a + b, 0)).toBe(58);
    expect(internalsOf(tunnel).defaultConcurrency).toBe(6);
    // The near link is recognised by its shortest time to a first byte; on a machine whose cores
    // are all busy a dozen answers may all come late, so it asks a few more (as a user's next
    // reads would) until one comes back within the near bound. 60 ms each way never does.
    for (let i = 0; i < 40 && internalsOf(near).defaultConcurrency !== 3; i++)
      await near.materials.list({ projection: { limit: 1 } });
    expect(internalsOf(near).defaultConcurrency).toBe(3);
    for (let i = 0; i < 3; i++) await tunnel.materials.list({ projection: { limit: 1 } });
    expect(internalsOf(tunnel).defaultConcurrency).toBe(6);
    expect(linkGuess(new URL("https://platform.mat3ra.com/api/2018-10-01"))).toBe("far");
    for (const local of ["http://127.0.0.1:4000", "http://localhost:4000", "http://[::1]:4000", "http://127.1.2.3"])
      expect(linkGuess(new URL(local))).toBe("near");
  });

  it("reads the same records from matframe serve with compression on and off", async () => {
    const walks: unknown[][] = [];
    for (const compression of ["auto", "gzip", "off"] as const) {
      const server = await startTestServer({ compression });
      closers.push(() => server.close());
      const creds = await rawLogin(server.baseUrl, "demo", "demo");
      const client = new Client({ baseUrl: server.baseUrl, ...creds, compression: true });
      closers.push(() => client.close());
      const records: unknown[] = [];
      for await (const r of client.materials.iterate({ pageSize: 7 })) records.push(r);
      walks.push(records);
    }
    expect(walks[0]).toHaveLength(29);
    expect(walks[1]).toEqual(walks[0]);
    expect(walks[2]).toEqual(walks[0]);
  });

  async function faulty(headers: Record<string, string>, body: string, options: Partial<ClientOptions> = {}) {
    const fault = await startFaultServer({
      records: 3,
      fault: (r) => (r.path.endsWith("/materials") ? { kind: "raw", status: 200, headers, body } : undefined),
    });
    closers.push(() => fault.close());
    const client = new Client({
      baseUrl: fault.origin,
      accountId: fault.accountId,
      authToken: fault.authToken,
      ...options,
    });
    closers.push(() => client.close());
    return { fault, client };
  }

  it("retries a compressed body that does not decode, then says so", async () => {
    const { fault, client } = await faulty(
      { "content-type": "application/json", "content-encoding": "gzip" },
      "this is not gzip",
      { maxRetries: 2 },
    );
    const error = await client.materials.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toMatch(/compressed body that does not decode \(3 attempts\)/);
    expect(fault.requests.filter((r) => r.path.endsWith("/materials"))).toHaveLength(3);
  });

  it("refuses a coding it did not ask for, naming it", async () => {
    const { client } = await faulty({ "content-type": "application/json", "content-encoding": "zstd" }, "(zstd bytes)");
    await expect(client.materials.list()).rejects.toThrow(/content coding "zstd", which matframe did not ask for/);
  });

  // brotli at its lowest quality: its default (11) takes seconds over 64 MiB.
  const encoders = {
    gzip: (b: Buffer) => gzipSync(b),
    br: (b: Buffer) => brotliCompressSync(b, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1 } }),
    deflate: (b: Buffer) => deflateSync(b),
  };
  it.each(["gzip", "br", "deflate"] as const)(
    "counts maxResponseBytes after decoding: a small %s bomb is stopped, with or without Content-Length",
    async (coding) => {
      const bomb = encoders[coding](Buffer.alloc(64 * 1024 * 1024, 0x20));
      expect(bomb.length).toBeLessThan(100 * 1024);
      const client = await clientOfHandler(
        (req, res) => {
          const chunked = req.url?.includes("chunked");
          res.writeHead(200, {
            "content-type": "application/json",
            "content-encoding": coding,
            ...(chunked ? {} : { "content-length": String(bomb.length) }),
          });
          res.end(bomb);
        },
        { maxResponseBytes: 4 * 1024 * 1024 },
      );
      await expect(client.materials.list()).rejects.toBeInstanceOf(ResponseTooLargeError);
      await expect(client.getData("chunked")).rejects.toBeInstanceOf(ResponseTooLargeError);
    },
  );

  it.each(["gzip", "br", "deflate"] as const)("reads a %s page sent in many small chunks", async (coding) => {
    const records = Array.from({ length: 300 }, (_, i) => ({ _id: `m${String(i).padStart(4, "0")}`, formula: "Si" }));
    const body = encoders[coding](Buffer.from(JSON.stringify({ status: "success", data: records })));
    const client = await clientOfHandler((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": coding });
      for (let at = 0; at < body.length; at += 100) res.write(body.subarray(at, at + 100));
      res.end();
    });
    expect(await client.materials.list()).toEqual(records);
  });
});

/** A client of a server that answers every request with `handler`; both are closed after the test. */
async function clientOfHandler(handler: RequestListener, options: Partial<ClientOptions> = {}): Promise<Client> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const client = new Client({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    accountId: "a",
    authToken: "t",
    ...options,
  });
  closers.push(() => client.close());
  return client;
}

/** A platform whose one collection the test rewrites, with ETags when `etags` is on. */
async function startChangingServer(options: { etags: boolean }) {
  const state = {
    version: 1,
    records: [{ _id: "a", formula: "Si", n: 1 }],
    ifNoneMatch: [] as (string | undefined)[],
    bodies: 0,
  };
  const server: Server = createServer((req, res) => {
    state.ifNoneMatch.push(req.headers["if-none-match"]);
    const etag = `"v${state.version}"`;
    if (options.etags && req.headers["if-none-match"] === etag) {
      res.writeHead(304, { etag });
      res.end();
      return;
    }
    state.bodies++;
    res.writeHead(200, {
      "content-type": "application/json",
      ...(options.etags ? { etag, "cache-control": "private, no-cache" } : {}),
    });
    res.end(JSON.stringify({ status: "success", data: state.records }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    state,
    baseUrl,
    change(records: typeof state.records) {
      state.records = records;
      state.version++;
    },
  };
}

describe("the response cache", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "matframe-cache-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function clientOf(baseUrl: string, cache: ClientOptions["cache"]): Client {
    const client = new Client({ baseUrl, accountId: "acct", authToken: "token", cache });
    closers.push(() => client.close());
    return client;
  }

  it("revalidates a kept page and never serves it once the collection changed", async () => {
    const platform = await startChangingServer({ etags: true });
    const client = clientOf(platform.baseUrl, "memory");
    expect(await client.materials.list()).toEqual([{ _id: "a", formula: "Si", n: 1 }]);
    expect(await client.materials.list()).toEqual([{ _id: "a", formula: "Si", n: 1 }]);
    expect(platform.state.bodies).toBe(1);
    expect(platform.state.ifNoneMatch).toEqual([undefined, '"v1"']);
    platform.change([{ _id: "b", formula: "GaAs", n: 2 }]);
    expect(await client.materials.list()).toEqual([{ _id: "b", formula: "GaAs", n: 2 }]);
    expect(platform.state.bodies).toBe(2);
    // A new client in the same process (a re-run cell) finds the memory cache.
    expect(await clientOf(platform.baseUrl, "memory").materials.list()).toEqual([{ _id: "b", formula: "GaAs", n: 2 }]);
    expect(platform.state.ifNoneMatch.at(-1)).toBe('"v2"');
    expect(platform.state.bodies).toBe(2);
  });

  it("keeps nothing from a server that sends no validator", async () => {
    const platform = await startChangingServer({ etags: false });
    const client = clientOf(platform.baseUrl, "memory");
    await client.materials.list();
    platform.change([{ _id: "c", formula: "NaCl", n: 3 }]);
    expect(await client.materials.list()).toEqual([{ _id: "c", formula: "NaCl", n: 3 }]);
    expect(platform.state.ifNoneMatch).toEqual([undefined, undefined]);
  });

  it("keeps responses in a private directory across clients (a kernel restart)", async () => {
    const platform = await startChangingServer({ etags: true });
    await clientOf(platform.baseUrl, { dir }).materials.list();
    const files = readdirSync(dir);
    expect(files.filter((f) => f.endsWith(".json"))).toHaveLength(1);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, at(files, 0, "the cached answer"))).mode & 0o777).toBe(0o600);
    const later = clientOf(platform.baseUrl, { dir });
    expect(await later.materials.list()).toEqual([{ _id: "a", formula: "Si", n: 1 }]);
    expect(platform.state.ifNoneMatch.at(-1)).toBe('"v1"');
    expect(platform.state.bodies).toBe(1);
    platform.change([{ _id: "d", formula: "MoS2", n: 4 }]);
    expect(await clientOf(platform.baseUrl, { dir }).materials.list()).toEqual([{ _id: "d", formula: "MoS2", n: 4 }]);
  });

  it("re-reads a whole collection from matframe serve with 304s and the same table", async () => {
    const lines: string[] = [];
    const server: ServerHandle = await startTestServer({ log: (line) => lines.push(line) });
    closers.push(() => server.close());
    const baseUrl = server.baseUrl;
    const creds = await rawLogin(baseUrl, "demo", "demo");
    const read = async () => {
      const client = new Client({ baseUrl, ...creds, cache: "memory" });
      closers.push(() => client.close());
      const df = await client.materials.toDataFrame({ pageSize: 10 });
      return JSON.stringify(df.values);
    };
    const first = await read();
    const before = lines.filter((l) => / 304 /.test(l)).length;
    const second = await read();
    expect(second).toBe(first);
    expect(lines.filter((l) => / 304 /.test(l)).length - before).toBeGreaterThanOrEqual(3);
  });

  it("says what a cache may be", () => {
    expect(
      () => new Client({ baseUrl: "http://127.0.0.1:1", accountId: "a", authToken: "t", cache: "disk" as never }),
    ).toThrow(ValidationError);
    expect(
      () => new Client({ baseUrl: "http://127.0.0.1:1", accountId: "a", authToken: "t", cache: { dir: "" } }),
    ).toThrow(/cache must be "memory" or \{ dir/);
  });
});
