import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../src";
import { startServer, type ServerHandle } from "../../src/server";
import { contractViolation, login, materialsPath, send, type Answer } from "./support/http";
import { at } from "../support/checked";

// One client keeps sending queries that are expensive on purpose (each one cut off by the scan
// budget) and floods cheap invalid ones; another client walks the whole collection meanwhile.
// The walk must complete, every record exactly once, while the hostile requests keep coming: a
// server that let them starve everyone would time the test out. No timing is asserted.

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
  it("a full walk by another client completes, exactly once per record, under a stream of hostile queries", async () => {
    const hostile = await login(server.port);
    let walking = true;
    const answers: Answer[] = [];
    // Two hostile loops: each sends the slow query again as soon as it is answered.
    const loops = [0, 1].map(async (i) => {
      while (walking) {
        answers.push(
          await send(server.port, "GET", materialsPath(SLOW_QUERY, `{"limit":500,"skip":${i}}`), {
            headers: { ...hostile },
          }),
        );
      }
    });
    // And a flood of cheap but invalid requests from the same client.
    const flood = Array.from({ length: 30 }, (_, i) =>
      send(server.port, "GET", materialsPath(i % 2 ? "[".repeat(5_000) : JSON.stringify({ $where: "sleep(1000)" })), {
        headers: { ...hostile },
      }),
    );

    const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
    const ids = new Set<string>();
    let count = 0;
    for await (const m of client.materials.iterate({ fields: { formula: 1 }, pageSize: 500 })) {
      ids.add(m._id);
      count += 1;
    }
    await client.logout();
    walking = false;
    await Promise.all(loops);
    answers.push(...(await Promise.all(flood)));

    expect(count).toBe(server.materialCount);
    expect(ids.size).toBe(server.materialCount);
    for (const res of answers) expect(contractViolation(res)).toBeUndefined();
    // The slow queries were cut off by the scan budget: a 400 saying why, never a 500.
    const slow = answers.filter((res) => res.status === 400 && /took more than/.test(res.body.message));
    expect(slow.length).toBeGreaterThan(0);
    expect(at(slow, 0, "a slow query's answer").body.message).toMatch(/took more than 3000 ms.*more selective/);
  });
});
