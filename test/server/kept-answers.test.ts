// A read's compressed answer kept by its validator: a page asked for again is sent as it was,
// yet never to another account, never after the account wrote, and never in another coding.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { CompressedBodies } from "../../src/server/http/compression";
import { seededRandom } from "../support/seeded-random";
import { decodeBody, getBytes, login, PREFIX, rawRequest, startTestServer, type Session } from "./helpers";

/** One GET: the body as it came over the wire, its coding and tag, and its JSend data decoded. */
async function get(server: ServerHandle, path: string, headers: Record<string, string>) {
  const res = await getBytes(server, path, headers);
  const coding = res.headers["content-encoding"] as string | undefined;
  const etag = res.headers.etag as string | undefined;
  return { status: res.status, etag, coding, bytes: res.bytes, data: JSON.parse(decodeBody(res)).data as unknown };
}

const list = (query: unknown, projection: unknown) =>
  `${PREFIX}/materials?query=${encodeURIComponent(JSON.stringify(query))}&projection=${encodeURIComponent(JSON.stringify(projection))}`;

describe("compressed answers kept by the read's validator", () => {
  it("finds a read's compressed body by its validator and coding, and not once the body is forgotten", async () => {
    const kept = new CompressedBodies(1500);
    // Random text (seeded): each compresses to about 600 bytes, so the budget holds two.
    const random = seededRandom(600);
    const body = (n: number) => Buffer.from(JSON.stringify({ n, data: random.bytes(600).toString("hex") }));
    const br = await kept.compress(body(1), "br", "tag-1");
    expect(kept.keptRead("tag-1", "br")).toBe(br);
    expect(kept.keptRead("tag-1", "gzip")).toBeUndefined();
    expect(kept.keptRead("tag-2", "br")).toBeUndefined();
    for (let n = 2; n < 8; n++) await kept.compress(body(n), "br", `tag-${n}`);
    expect(kept.keptRead("tag-1", "br")).toBeUndefined();
  });

  describe("over HTTP", () => {
    let server: ServerHandle;
    let bob: Session;
    let alice: Session;
    beforeAll(async () => {
      server = await startTestServer({ users: ["alice:correct-horse-9", "bob:battery-staple-7"] });
      bob = await login(server, "bob", "battery-staple-7");
      alice = await login(server, "alice", "correct-horse-9");
    });
    afterAll(() => server.close());

    it("sends a page asked for again byte for byte, with the same tag, in the coding asked for", async () => {
      const path = list({}, { limit: 20, fields: { formula: 1, name: 1 } });
      const first = await get(server, path, { ...bob, "accept-encoding": "br" });
      const again = await get(server, path, { ...bob, "accept-encoding": "br" });
      const gzip = await get(server, path, { ...bob, "accept-encoding": "gzip" });
      expect(first.coding).toBe("br");
      expect(again.bytes.equals(first.bytes)).toBe(true);
      expect(again.etag).toBe(first.etag);
      expect(gzip.coding).toBe("gzip");
      expect(gzip.data).toEqual(first.data);
      expect((first.data as unknown[]).length).toBe(20);
    });

    it("answers a page again after the account writes, with its new record, and never hands one account's page to another", async () => {
      const path = list({ tags: "kept-answer-test" }, { limit: 500, fields: { name: 1, tags: 1 } });
      // A page over 1 KiB, so that it is compressed and kept.
      const names = Array.from({ length: 40 }, (_, i) => `alice's material number ${i} with a long name`);
      for (const name of names.slice(0, 30)) {
        const created = await rawRequest(server, "PUT", `${PREFIX}/materials/create`, {
          headers: { ...alice, "content-type": "application/json" },
          body: JSON.stringify({ name, tags: ["kept-answer-test"] }),
        });
        expect(created.status).toBe(200);
      }
      const before = await get(server, path, { ...alice, "accept-encoding": "br" });
      expect(before.coding).toBe("br");
      expect((before.data as unknown[]).length).toBe(30);
      const others = await get(server, path, { ...bob, "accept-encoding": "br" });
      expect(others.data).toEqual([]);
      await rawRequest(server, "PUT", `${PREFIX}/materials/create`, {
        headers: { ...alice, "content-type": "application/json" },
        body: JSON.stringify({ name: names[30], tags: ["kept-answer-test"] }),
      });
      const after = await get(server, path, { ...alice, "accept-encoding": "br" });
      expect(after.etag).not.toBe(before.etag);
      expect((after.data as { name: string }[]).map((m) => m.name)).toContain(names[30]);
      expect((await get(server, path, { ...bob, "accept-encoding": "br" })).data).toEqual([]);
    });
  });
});
