import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { revalidatingCache } from "../../../src/client/transport/interceptors/cache";
import { openCache } from "../../../src/client/transport/response-cache";
import { answered, sender, serve } from "./helpers";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A cache of its own in a private folder, so that no other test's answers are found. */
function freshCache() {
  const dir = mkdtempSync(join(tmpdir(), "matframe-cache-interceptor-"));
  dirs.push(dir);
  return openCache({ dir: join(dir, "cache") });
}

/** A server whose answer to every path has an ETag, and which answers 304 when it matches. */
async function withEtags(cacheControl?: string) {
  let bodies = 0;
  const served = await serve((req, res) => {
    const etag = `"v1-${req.url}"`;
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, { etag });
      return res.end();
    }
    bodies++;
    res.writeHead(200, {
      "content-type": "application/json",
      etag,
      ...(cacheControl ? { "cache-control": cacheControl } : {}),
    });
    res.end(JSON.stringify({ path: req.url }));
  });
  return { ...served, bodies: () => bodies };
}

describe("revalidatingCache", () => {
  it("keeps a 200 with an ETag, then sends If-None-Match and answers the 304 with the kept body", async () => {
    const server = await withEtags();
    const send = sender(server.origin, revalidatingCache(freshCache()));
    const first = answered(await send({ path: "/materials", matframe: { cacheScope: "acc" } }));
    const second = answered(await send({ path: "/materials", matframe: { cacheScope: "acc" } }));
    expect(second).toMatchObject({ status: 200, text: first.text });
    expect(server.bodies()).toBe(1);
    expect(server.requests[1]!.headers["if-none-match"]).toBe('"v1-/materials"');
  });

  it("keeps nothing without a scope, for another account, for a write, or under no-store", async () => {
    const server = await withEtags();
    const send = sender(server.origin, revalidatingCache(freshCache()));
    await send({ path: "/a" });
    await send({ path: "/a" });
    await send({ path: "/b", matframe: { cacheScope: "acc" } });
    await send({ path: "/b", matframe: { cacheScope: "other" } });
    await send({ path: "/c", method: "POST", matframe: { cacheScope: "acc" } });
    await send({ path: "/c", method: "POST", matframe: { cacheScope: "acc" } });
    expect(server.bodies()).toBe(6);
    const noStore = await withEtags("no-store");
    const sendNoStore = sender(noStore.origin, revalidatingCache(freshCache()));
    await sendNoStore({ matframe: { cacheScope: "acc" } });
    await sendNoStore({ matframe: { cacheScope: "acc" } });
    expect(noStore.bodies()).toBe(2);
  });

  it("passes the 304 of a request that brings its own If-None-Match as it is, and keeps a 200 it gets", async () => {
    const server = await withEtags();
    const send = sender(server.origin, revalidatingCache(freshCache()));
    const confirmed = answered(
      await send({ path: "/x", headers: { "if-none-match": '"v1-/x"' }, matframe: { cacheScope: "acc" } }),
    );
    expect(confirmed.status).toBe(304);
    const changed = answered(
      await send({ path: "/y", headers: { "if-none-match": '"v0-/y"' }, matframe: { cacheScope: "acc" } }),
    );
    expect(changed.status).toBe(200);
    // The read that follows finds the 200 kept: a 304, no second body.
    answered(await send({ path: "/y", matframe: { cacheScope: "acc" } }));
    expect(server.bodies()).toBe(1);
  });
});
