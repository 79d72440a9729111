import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { decompress, isDecodeError } from "../../../src/client/transport/interceptors/decompress";
import { seededRandom } from "../../support/seeded-random";
import { answered, failed, sender, serve } from "./helpers";

const ENCODE = { gzip: gzipSync, br: brotliCompressSync, deflate: deflateSync } as const;

/** A page of seeded records, about 500 of them as the platform sends them. */
function page(seed: number): string {
  const random = seededRandom(seed);
  const records = Array.from({ length: 500 }, (_, i) => ({
    _id: `m${String(i).padStart(6, "0")}`,
    formula: `Si${Math.floor(random.next() * 8) + 1}O${Math.floor(random.next() * 16) + 1}`,
    density: random.next() * 10,
  }));
  return JSON.stringify({ status: "success", data: records });
}

describe("decompress", () => {
  it.each(Object.keys(ENCODE) as (keyof typeof ENCODE)[])(
    "decodes a %s page whole, and the headers describe the decoded body",
    async (coding) => {
      const text = page(7);
      const { origin } = await serve((_req, res) => {
        res.writeHead(200, { "content-type": "application/json", "content-encoding": coding });
        res.end(ENCODE[coding](text));
      });
      const answer = answered(await sender(origin, decompress(10 * 1024 * 1024))());
      expect(answer.text).toBe(text);
      expect(answer.headers["content-encoding"]).toBeUndefined();
      expect(answer.headers["content-length"]).toBeUndefined();
    },
  );

  it("tells onReceived once the bytes are in, before the decoded body is handed on; an identity body passes as it is", async () => {
    const text = page(11);
    const { origin } = await serve((req, res) => {
      const coded = req.url === "/gzip";
      res.writeHead(200, { "content-type": "application/json", ...(coded ? { "content-encoding": "gzip" } : {}) });
      res.end(coded ? gzipSync(text) : text);
    });
    const send = sender(origin, decompress(10 * 1024 * 1024));
    for (const path of ["/gzip", "/identity"]) {
      let told = 0;
      const answer = answered(await send({ path, matframe: { onReceived: () => told++ } }));
      expect(told).toBe(1);
      expect(answer.text).toBe(text);
    }
  });

  it("stops a small bomb at the limit, as decoded, with the body-too-large code", async () => {
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024));
    const { origin } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(bomb);
    });
    const error = failed(await sender(origin, decompress(1024 * 1024))());
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(error.code).toBe("MATFRAME_BODY_TOO_LARGE");
  });

  it("refuses a coding it cannot decode, naming it, and ends a corrupt body in zlib's error", async () => {
    const { origin } = await serve((req, res) => {
      const zstd = req.url === "/zstd";
      res.writeHead(200, { "content-type": "application/json", "content-encoding": zstd ? "zstd" : "gzip" });
      res.end(zstd ? "(zstd bytes)" : gzipSync(page(3)).subarray(0, 200));
    });
    const send = sender(origin, decompress(1024 * 1024));
    const refused = failed(await send({ path: "/zstd" }));
    expect(refused.code).toBe("MATFRAME_UNSUPPORTED_CODING");
    expect(refused.coding).toBe("zstd");
    expect(isDecodeError(failed(await send({ path: "/corrupt" })))).toBe(true);
  });

  it("decodes an error body as a stream, so its message can be read", async () => {
    const message = JSON.stringify({ status: "error", data: { message: "Materials are resting" } });
    const { origin } = await serve((_req, res) => {
      res.writeHead(503, { "content-type": "application/json", "content-encoding": "br" });
      res.end(brotliCompressSync(message));
    });
    const answer = answered(await sender(origin, decompress(1024 * 1024))());
    expect(answer.status).toBe(503);
    expect(answer.text).toBe(message);
  });
});
