import { afterEach, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "../../src";

// A notebook that sends many reads at once on one client (or on several clients in one process)
// saw Node's "Possible EventTarget memory leak detected. 11 abort listeners" warning: every
// request without a signal of its own listened on one shared never-aborting signal.

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

describe("many requests in flight at once", () => {
  it("make Node print no listener warning", async () => {
    server = createServer((_req, res) => {
      setTimeout(
        () => res.writeHead(200, { "content-type": "application/json" }).end('{"status":"success","data":[]}'),
        30,
      );
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    // 15 reads at once each: on a client without a signal, on one with its own, and with one
    // signal passed to every call.
    const stop = new AbortController();
    const clients = [undefined, new AbortController().signal, undefined].map(
      (signal) =>
        new Client({
          baseUrl: `http://127.0.0.1:${port}/api/2018-10-01`,
          accountId: "acc",
          authToken: "tok",
          ...(signal ? { signal } : {}),
        }),
    );
    try {
      const lists = clients.flatMap((client, at) =>
        Array.from({ length: 15 }, (_, i) =>
          client.materials.list({ query: { name: `n${i}` }, ...(at === 2 ? { signal: stop.signal } : {}) }),
        ),
      );
      expect(await Promise.all(lists)).toHaveLength(45);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    } finally {
      process.off("warning", onWarning);
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it("all end at once when the one signal they share aborts, and the next calls on it still run", async () => {
    server = createServer((req, res) => {
      const slow = req.url?.includes("slow");
      setTimeout(
        () => res.writeHead(200, { "content-type": "application/json" }).end('{"status":"success","data":[]}'),
        slow ? 5_000 : 5,
      );
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const client = new Client({
      baseUrl: `http://127.0.0.1:${port}/api/2018-10-01`,
      accountId: "acc",
      authToken: "tok",
    });
    try {
      const stop = new AbortController();
      const started = performance.now();
      const lists = Array.from({ length: 12 }, (_, i) =>
        client.materials.list({ query: { name: `slow${i}` }, signal: stop.signal }),
      );
      setTimeout(() => stop.abort(), 50);
      const outcomes = await Promise.allSettled(lists);
      expect(outcomes.map((o) => o.status)).toEqual(Array(12).fill("rejected"));
      expect((outcomes[0] as PromiseRejectedResult).reason).toMatchObject({ name: "AbortError" });
      expect(performance.now() - started).toBeLessThan(4_000);
      // Another signal, shared again after the first's calls ended: its calls answer.
      const again = new AbortController();
      const more = await Promise.all(Array.from({ length: 3 }, () => client.materials.list({ signal: again.signal })));
      expect(more).toHaveLength(3);
    } finally {
      await client.close();
    }
  });
});
