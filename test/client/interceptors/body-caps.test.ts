import { describe, expect, it } from "vitest";
import { ERROR_BODY_LIMIT, errorBodyCap, receivedBodyCap } from "../../../src/client/transport/interceptors/body-caps";
import { answered, failed, sender, serve } from "./helpers";

const LIMIT = 256 * 1024;

describe("receivedBodyCap", () => {
  it("passes a body within the cap, and refuses one whose Content-Length is over it before reading it", async () => {
    const { origin } = await serve((req, res) => {
      const size = req.url === "/big" ? LIMIT + 1 : LIMIT;
      res.writeHead(200, { "content-type": "application/json", "content-length": size });
      res.end(Buffer.alloc(size, 0x20));
    });
    const send = sender(origin, receivedBodyCap(LIMIT));
    expect(answered(await send({ path: "/fits" })).text).toHaveLength(LIMIT);
    const error = failed(await send({ path: "/big" }));
    expect(error.code).toBe("MATFRAME_BODY_TOO_LARGE");
    expect(error.bytes).toBe(0);
  });

  it("drops an endless body as soon as the bytes counted pass the cap", async () => {
    let stopped!: () => void;
    const closed = new Promise<void>((resolve) => {
      stopped = resolve;
    });
    const { origin } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const more = (): void => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on("drain", more);
      res.on("close", stopped);
      more();
    });
    const error = failed(await sender(origin, receivedBodyCap(LIMIT))());
    expect(error.code).toBe("MATFRAME_BODY_TOO_LARGE");
    expect(error.bytes).toBeGreaterThan(LIMIT);
    expect(error.bytes).toBeLessThan(LIMIT * 2);
    await closed; // the server saw the connection dropped
  });

  it("leaves error bodies to errorBodyCap", async () => {
    const { origin } = await serve((_req, res) => {
      res.writeHead(500, { "content-type": "text/plain", "content-length": LIMIT * 2 });
      res.end(Buffer.alloc(LIMIT * 2, 0x20));
    });
    expect(answered(await sender(origin, receivedBodyCap(LIMIT))()).status).toBe(500);
  });
});

describe("errorBodyCap", () => {
  it("cuts an error body after its first 64 KiB, and the answer still ends with its status", async () => {
    const { origin } = await serve((_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      const chunk = Buffer.alloc(16 * 1024, 0x41);
      // An endless proxy page: only the cut can end it.
      const more = (): void => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on("drain", more);
      more();
    });
    const answer = answered(await sender(origin, errorBodyCap())());
    expect(answer.status).toBe(502);
    expect(answer.text.length).toBeGreaterThanOrEqual(ERROR_BODY_LIMIT);
    expect(answer.text.length).toBeLessThan(ERROR_BODY_LIMIT * 4);
  });

  it("leaves a 2xx body whole", async () => {
    const { origin } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(Buffer.alloc(ERROR_BODY_LIMIT * 3, 0x20));
    });
    expect(answered(await sender(origin, errorBodyCap())()).text).toHaveLength(ERROR_BODY_LIMIT * 3);
  });
});
