import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src";
import { startServer, type ServerHandle } from "../../src/server";
import { contractViolation, login, materialsPath, send } from "./support/http";

// One client sends queries that are expensive on purpose; the server must go on answering
// everyone else. Checked by order of completion, not by timing: a whole walk of the collection
// by another client finishes while the hostile requests are still being evaluated.

let server: ServerHandle;

beforeAll(async () => {
  server = await startServer({ host: "127.0.0.1", port: 0, synthetic: 3_000, scanBudgetMs: 3_000 });
});

afterAll(async () => {
  await server?.close();
});

/**
 * Each clause passes the regex guard (two unbounded quantifiers: quadratic), but a hundred of
 * them on every record name add up to more than the scan budget.
 */
const SLOW_QUERY = JSON.stringify({
  $or: Array.from({ length: 100 }, (_, i) => ({ name: { $regex: `^.*.*${"zqjkwxyv"[i % 8]}${i}` } })),
});

describe("one hostile client does not starve the others", () => {
  it("a full walk by another client completes while slow hostile queries are still running", async () => {
    const hostile = await login(server.port);
    const events: string[] = [];
    const slow = [0, 1].map(async (i) => {
      const res = await send(server.port, "GET", materialsPath(SLOW_QUERY, `{"limit":500,"skip":${i}}`), { headers: { ...hostile } });
      events.push("hostile done");
      return res;
    });
    // And a flood of cheap but invalid requests from the same client.
    const flood = Array.from({ length: 30 }, (_, i) =>
      send(server.port, "GET", materialsPath(i % 2 ? "[".repeat(5_000) : JSON.stringify({ $where: "sleep(1000)" })), { headers: { ...hostile } }),
    );

    const client = await ApiClient.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
    const ids = new Set<string>();
    let count = 0;
    for await (const m of client.materials.iterate({ fields: { formula: 1 }, pageSize: 500 })) {
      ids.add(m._id);
      count += 1;
    }
    await client.logout();
    events.push("walk done");

    expect(count).toBe(server.materialCount);
    expect(ids.size).toBe(server.materialCount);
    for (const res of [...(await Promise.all(slow)), ...(await Promise.all(flood))]) {
      expect(contractViolation(res)).toBeUndefined();
    }
    expect(events[0]).toBe("walk done");
    // The slow queries were cut off by the scan budget (or finished): a 400 saying why, never a 500.
    for (const res of await Promise.all(slow)) {
      if (res.status !== 200) expect(res.body.message).toMatch(/took more than 3000 ms.*more selective/);
    }
  });
});
