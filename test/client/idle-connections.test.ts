import { afterEach, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client, ConnectionError } from "../../src";
import { startIdleClosingServer, type IdleClosingServer } from "../support/idle-closing-server";

// A notebook cell that computes for a while, then writes: the server closed the idle keep-alive
// connection meanwhile, and the write went out on it and failed ("other side closed"), though it
// had never reached the server. A write is never sent twice when it may have been applied.

/** Synchronous work, as a heavy notebook cell does: the event loop runs nothing meanwhile. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spin
  }
}

const MATERIAL = { name: "Si", formula: "Si" };
let server: IdleClosingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const puts = (s: IdleClosingServer) => s.received.filter((line) => line.startsWith("PUT")).length;

describe("writes after an idle or busy pause", () => {
  it("a write after synchronous work longer than the server keeps idle connections succeeds, and is received once", async () => {
    server = await startIdleClosingServer({ idleMs: 100 });
    const client = new Client({ baseUrl: server.baseUrl, accountId: "acc", authToken: "tok" });
    for (let round = 0; round < 5; round++) {
      // Reads first, so that the write finds a connection that has been used (and reused) before.
      await client.materials.list({ projection: { limit: 1 } });
      await client.materials.list({ projection: { limit: 1 } });
      busy(250);
      await expect(client.materials.create(MATERIAL)).resolves.toMatchObject({ name: "Si" });
    }
    expect(puts(server)).toBe(5);
    await client.close();
  });
});

describe("a write that may have been applied", () => {
  let crashing: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => crashing?.close(resolve));
    crashing = undefined;
  });

  it("is not sent again when the server closes the connection after reading it, and the message says what to check", async () => {
    let writes = 0;
    crashing = createServer((req, res) => {
      if (req.method === "GET")
        return void res.writeHead(200, { "content-type": "application/json" }).end('{"status":"success","data":[]}');
      writes++;
      // Read the whole request, then close without answering: it may have been applied.
      req.resume();
      req.on("end", () => req.socket.destroy());
    });
    await new Promise<void>((resolve) => crashing!.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(crashing.address() as AddressInfo).port}/api/2018-10-01`;
    const client = new Client({ baseUrl, accountId: "acc", authToken: "tok", maxRetries: 3 });
    await client.materials.list({ projection: { limit: 1 } });
    const error = await client.materials.create(MATERIAL).catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(ConnectionError);
    expect(writes).toBe(1);
    expect((error as Error).message).toMatch(/closed the connection before answering/);
    expect((error as Error).message).toMatch(/may have been applied/);
    expect((error as Error).message).not.toMatch(/is the platform's address and that its server is running/);
  });
});
