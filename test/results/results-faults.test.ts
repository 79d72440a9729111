import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BadRequestError, Client } from "../../src";
import type { ServerHandle } from "../../src/server";
import { rawLogin } from "../support/raw-login";
import { startTestServer } from "../server/helpers";

// A results table whose pages join at once (up to three) meets a failure in one page's join: a
// real relay in front of the local platform refuses the second page's jobs request (once the
// third page's has come) and holds the third's unanswered. The caller is told the refusal itself,
// and the held request is given up, not left to run on after the table has failed.

let server: ServerHandle;
let relay: Server;
let relayUrl: string;
/** Resolves when the client gives up the held request (closes its connection unanswered). */
let heldGivenUp: Promise<void>;

/** Forwards `req` to the platform and its answer back. */
function forward(req: IncomingMessage, res: ServerResponse): void {
  const target = new URL(server.baseUrl);
  const upstream = request(
    { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  // A request the client gives up (the table failed) is given up upstream too, not thrown.
  upstream.on("error", () => res.destroy());
  res.on("close", () => upstream.destroy());
  req.pipe(upstream);
}

beforeAll(async () => {
  server = await startTestServer();
  let jobs = 0;
  let refuseSecond: () => void = () => undefined;
  const thirdCame = new Promise<void>((resolve) => {
    refuseSecond = resolve;
  });
  let givenUp: () => void = () => undefined;
  heldGivenUp = new Promise<void>((resolve) => {
    givenUp = resolve;
  });
  relay = createServer((req, res) => {
    if (!req.url?.includes("/jobs?")) return forward(req, res);
    jobs += 1;
    if (jobs === 2) {
      void thirdCame.then(() =>
        res
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ status: "error", message: "the relay refuses this page's jobs", code: 400 })),
      );
      return;
    }
    if (jobs === 3) {
      refuseSecond();
      res.on("close", () => {
        if (!res.writableEnded) givenUp();
      });
      return;
    }
    forward(req, res);
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}${new URL(server.baseUrl).pathname}`;
});
afterAll(async () => {
  relay?.closeAllConnections();
  await new Promise((resolve) => relay?.close(resolve));
  await server?.close();
});

describe("a results table whose second page's join fails", () => {
  it("fails with that page's refusal, and gives up the requests still in flight", async () => {
    const client = new Client({
      baseUrl: relayUrl,
      maxRetries: 0,
      ...(await rawLogin(server.baseUrl, "demo", "demo")),
    });
    try {
      const error = await client.results.toDataFrame({ properties: ["band_gaps"] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as BadRequestError).message).toContain("the relay refuses this page's jobs");
      // The third page's jobs request, never answered, is let go by the client.
      await heldGivenUp;
    } finally {
      await client.close();
    }
  });
});
