import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { decodeBody as decode, getBytes as get, login, PREFIX, startTestServer, type Session } from "./helpers";
import { CompressedBodies } from "../../src/server/http/compression";

const ALL = `${PREFIX}/materials?projection=${encodeURIComponent(JSON.stringify({ limit: 500 }))}`;

describe("matframe serve compresses what the client asks for", () => {
  let server: ServerHandle;
  let session: Session;
  let plain: string;
  beforeAll(async () => {
    server = await startTestServer();
    session = await login(server);
    plain = decode(await get(server, ALL, { ...session }));
  });
  afterAll(() => server.close());

  // Accept-Encoding values and the coding RFC 9110 section 12.5.3 says the answer should use.
  const cases: Array<[string, string | undefined]> = [
    ["gzip", "gzip"],
    ["br", "br"],
    ["gzip, br", "br"],
    ["br;q=0.5, gzip", "gzip"],
    ["gzip;q=0, br;q=0", undefined],
    ["identity", undefined],
    ["zstd, compress", undefined],
    ["*", "br"],
    ["*;q=0.1, br;q=0", "gzip"],
    ["GZIP", "gzip"],
    ["deflate", undefined],
  ];
  it.each(cases)("Accept-Encoding %j gets %s, and the same JSON", async (accept, expected) => {
    const res = await get(server, ALL, { ...session, "accept-encoding": accept });
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe(expected);
    expect(res.headers.vary).toBe("Accept-Encoding");
    expect(decode(res)).toBe(plain);
    if (expected) expect(res.bytes.length).toBeLessThan(plain.length / 4);
  });

  it("sends brotli with a window no bigger than the page, and no more bytes than the default window", async () => {
    const res = await get(server, ALL, { ...session, "accept-encoding": "br" });
    expect(res.headers["content-encoding"]).toBe("br");
    const windowBytes = 2 ** brotliWindowBitsOf(res.bytes) - 16;
    expect(windowBytes).toBeGreaterThanOrEqual(plain.length);
    expect(windowBytes / 2).toBeLessThan(plain.length);
    const defaultWindow = brotliCompressSync(plain, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: plain.length },
    });
    expect(brotliWindowBitsOf(defaultWindow)).toBe(constants.BROTLI_DEFAULT_WINDOW);
    expect(res.bytes.length).toBeLessThanOrEqual(defaultWindow.length);
  });

  it("leaves bodies under 1 KiB as they are", async () => {
    const res = await get(
      server,
      `${PREFIX}/materials?projection=${encodeURIComponent('{"limit":1,"fields":{"formula":1}}')}`,
      {
        ...session,
        "accept-encoding": "gzip, br",
      },
    );
    expect(res.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(res.bytes.toString()).status).toBe("success");
  });

  it("leaves a small error answer as it is", async () => {
    const res = await get(server, `${PREFIX}/materials`, { "accept-encoding": "gzip" });
    expect(res.status).toBe(401);
    expect(res.headers["content-encoding"]).toBeUndefined();
  });

  it("--compression gzip never sends br, and off never compresses", async () => {
    for (const [mode, accept, expected] of [
      ["gzip", "br", undefined],
      ["gzip", "br, gzip;q=0.1", "gzip"],
      ["br", "gzip", undefined],
      ["off", "gzip, br", undefined],
    ] as const) {
      const other = await startTestServer({ compression: mode });
      try {
        const s = await login(other);
        const res = await get(other, ALL, { ...s, "accept-encoding": accept });
        expect(res.headers["content-encoding"], `${mode} / ${accept}`).toBe(expected);
        expect(JSON.parse(decode(res)).data.length).toBe(29);
        if (mode === "off") expect(res.headers.vary).toBeUndefined();
      } finally {
        await other.close();
      }
    }
  });
});

describe("ETags and If-None-Match", () => {
  let server: ServerHandle;
  let session: Session;
  beforeAll(async () => {
    server = await startTestServer();
    session = await login(server);
  });
  afterAll(() => server.close());

  it("sends a strong ETag with Cache-Control private, no-cache on lists and reads, and answers a match with 304 and no body", async () => {
    const first = await get(server, ALL, { ...session });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(first.headers["cache-control"]).toBe("private, no-cache");
    const again = await get(server, ALL, { ...session, "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect(again.headers.etag).toBe(etag);

    const id = JSON.parse(first.bytes.toString()).data[0]._id as string;
    const one = await get(server, `${PREFIX}/materials/${id}`, { ...session });
    expect(one.headers.etag).toMatch(/^"/);
    expect(
      (await get(server, `${PREFIX}/materials/${id}`, { ...session, "if-none-match": one.headers.etag as string }))
        .status,
    ).toBe(304);
  });

  it("gives each coding its own tag, and accepts any of them back", async () => {
    const gz = await get(server, ALL, { ...session, "accept-encoding": "gzip" });
    const br = await get(server, ALL, { ...session, "accept-encoding": "br" });
    expect(gz.headers.etag).toMatch(/-gzip"$/);
    expect(br.headers.etag).toMatch(/-br"$/);
    const back = await get(server, ALL, {
      ...session,
      "accept-encoding": "br",
      "if-none-match": `"nope", ${gz.headers.etag}`,
    });
    expect(back.status).toBe(304);
  });

  it("changes the tag when the request changes the answer", async () => {
    const a = await get(server, ALL, { ...session });
    const fields = `${PREFIX}/materials?projection=${encodeURIComponent('{"limit":500,"fields":{"formula":1}}')}`;
    const b = await get(server, fields, { ...session });
    const sorted = `${PREFIX}/materials?projection=${encodeURIComponent('{"limit":500,"sort":{"formula":-1}}')}`;
    const c = await get(server, sorted, { ...session });
    expect(new Set([a.headers.etag, b.headers.etag, c.headers.etag]).size).toBe(3);
    const stale = await get(server, fields, { ...session, "if-none-match": a.headers.etag as string });
    expect(stale.status).toBe(200);
    expect(JSON.parse(stale.bytes.toString()).data[0]).toEqual({
      _id: expect.any(String),
      formula: expect.any(String),
    });
  });

  it("never answers 304 to a request it refuses", async () => {
    const res = await get(server, ALL, { "if-none-match": "*" });
    expect(res.status).toBe(401);
  });
});

describe("compression does not stall other clients", () => {
  it("answers a small request while big pages are still being compressed", async () => {
    const server = await startTestServer({ synthetic: 5000 });
    try {
      const session = await login(server);
      const finished: string[] = [];
      // Enough big pages that the compressing threads are still busy when the small one is
      // answered, even on a loaded 2-core machine (24 let it finish last once in a full run).
      const big = Array.from({ length: 48 }, (_, n) => {
        const path = `${PREFIX}/materials?projection=${encodeURIComponent(JSON.stringify({ limit: 500, skip: n * 100 }))}`;
        return get(server, path, { ...session, "accept-encoding": "br" }).then((res) => {
          expect(res.headers["content-encoding"]).toBe("br");
          finished.push("big");
        });
      });
      const small = get(server, `${PREFIX}/materials?projection=${encodeURIComponent('{"limit":1}')}`, {
        ...session,
        "accept-encoding": "br",
      }).then(() => finished.push("small"));
      await Promise.all([...big, small]);
      // With compression on the event loop, the small request (sent last) would be answered last.
      expect(finished.indexOf("small")).toBeLessThan(finished.length - 1);
    } finally {
      await server.close();
    }
  });
});

describe("compressed bodies kept by their content", () => {
  const page = (n: number) =>
    Buffer.from(
      JSON.stringify({
        status: "success",
        data: Array.from({ length: 300 }, (_, i) => ({ _id: `${n}-${i}`, formula: "Si", a: i * 0.5 })),
      }),
    );

  it("compresses the same body once for many askers, and each answer decodes to it", async () => {
    const kept = new CompressedBodies(1024 * 1024);
    const body = page(1);
    const at = Promise.all([
      kept.compress(body, "br"),
      kept.compress(Buffer.from(body), "br"),
      kept.compress(body, "gzip"),
    ]);
    const [br1, br2, gz] = await at;
    expect(br1).toBe(br2);
    expect(brotliDecompressSync(br1).equals(body)).toBe(true);
    expect(gunzipSync(gz).equals(body)).toBe(true);
    expect(await kept.compress(body, "br")).toBe(br1);
    const other = await kept.compress(page(2), "br");
    expect(brotliDecompressSync(other).equals(page(2))).toBe(true);
  });

  it("forgets the least recently used past its budget, and still answers correctly", async () => {
    const small = new CompressedBodies(1500);
    const first = await small.compress(page(1), "gzip");
    for (let n = 2; n < 6; n++) await small.compress(page(n), "gzip");
    const again = await small.compress(page(1), "gzip");
    expect(again).not.toBe(first);
    expect(gunzipSync(again).equals(page(1))).toBe(true);
  });
});

/** WBITS of a brotli stream, from its first bits (RFC 7932, section 9.1; large windows not used here). */
function brotliWindowBitsOf(stream: Buffer): number {
  const bits = stream.readUInt8(0) | (stream.readUInt8(1) << 8);
  if ((bits & 1) === 0) return 16;
  const n = (bits >> 1) & 7;
  if (n !== 0) return 17 + n;
  const m = (bits >> 4) & 7;
  return m === 0 ? 17 : 8 + m;
}
