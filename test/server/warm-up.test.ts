import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServerOptionsError } from "../../src/errors";
import { Client, type PlatformRecord } from "../../src";
import { PROPERTY_FIELDS } from "../../src/frame/results/results-rows";
import { planResults } from "../../src/frame/results/results-plan";
import { type ServerHandle, startServer } from "../../src/server";

/** The value at a path of plain objects, or undefined. */
function valueAt(record: unknown, ...keys: string[]): unknown {
  let value = record;
  for (const key of keys)
    value = value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}
import { RequestWarmUp } from "../../src/server/http/request-warm-up";
import { SerializedRecords } from "../../src/server/http/serialized";
import { WarmUp } from "../../src/server/http/warm-up";
import { decodeBody, getBytes, login, PREFIX, type Session, startTestServer } from "./helpers";

// The server serialises the served materials in the background after it listens (warmFields),
// so that a first walk costs what a second does. What a client receives must not change.

/** The fields `toDataFrame()` asks for by default, as its request sends them. */
const COLUMNS = {
  _id: 1,
  "derivedProperties.density": 1,
  "derivedProperties.name": 1,
  "derivedProperties.value": 1,
  "derivedProperties.volume": 1,
  formula: 1,
  "lattice.a": 1,
  "lattice.b": 1,
  "lattice.c": 1,
  method: 1,
  name: 1,
} as const;

const SYNTHETIC = 1500;

function pagePath(projection: object): string {
  const params = new URLSearchParams({ query: "{}", projection: JSON.stringify(projection) });
  return `${PREFIX}/materials?${params}`;
}

/** Every page of a walk, in both codings a client may ask for, as decoded text. */
async function walkTexts(server: ServerHandle, session: Session, fields: object | undefined): Promise<string[]> {
  const texts: string[] = [];
  for (let skip = 0; skip < server.materialCount; skip += 500) {
    const path = pagePath({ sort: { _id: 1 }, limit: 500, skip, ...(fields ? { fields } : {}) });
    for (const coding of ["br", "identity"]) {
      const res = await getBytes(server, path, { ...session, "Accept-Encoding": coding });
      expect(res.status).toBe(200);
      texts.push(decodeBody(res));
    }
  }
  return texts;
}

describe("the background warm-up of a served collection", () => {
  let cold: ServerHandle;
  let warmed: ServerHandle;
  let coldSession: Session;
  let warmSession: Session;

  beforeAll(async () => {
    cold = await startTestServer({ synthetic: SYNTHETIC });
    warmed = await startTestServer({ synthetic: SYNTHETIC, warmFields: [COLUMNS, {}] });
    [coldSession, warmSession] = await Promise.all([login(cold), login(warmed)]);
  });
  afterAll(async () => {
    await Promise.all([cold?.close(), warmed?.close()]);
  });

  it("answers pages asked for while it runs exactly as a server without it, then finishes", async () => {
    // Asked at once: the warm-up pauses for each request and goes on between them.
    const during = await walkTexts(warmed, warmSession, COLUMNS);
    const report = await warmed.warmUp;
    expect(report.ended).toBe("done");
    // Each served material once per projection, whatever the walk had kept already.
    expect(report.records).toBe(2 * warmed.materialCount);
    expect(during).toEqual(await walkTexts(cold, coldSession, COLUMNS));
  });

  it("answers the warmed projections, others and whole records byte for byte as before", async () => {
    await warmed.warmUp;
    for (const fields of [COLUMNS, undefined, { name: 1, "lattice.a": 1 }, { basis: 0 }]) {
      expect(await walkTexts(warmed, warmSession, fields)).toEqual(await walkTexts(cold, coldSession, fields));
    }
  });

  it("ends at once, having done nothing, without warmFields", async () => {
    expect(await cold.warmUp).toEqual({ records: 0, resultsRecords: 0, workMs: 0, ended: "done" });
  });
});

describe("the server's own reads at start-up", () => {
  let server: ServerHandle;
  const logLines: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({
      synthetic: SYNTHETIC,
      warmFields: [COLUMNS],
      teacherPage: true,
      log: (line) => logLines.push(line),
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("are all answered, before the JSON is kept, and the log says how many", async () => {
    const report = await server.warmUp;
    expect(report.reads?.ended).toBe("done");
    // The walk's pages, an `_id` list and the reference-path lookups of each collection, a property kind's page.
    expect(report.reads?.requests).toBeGreaterThan(10);
    expect(report.reads?.answered).toBe(report.reads?.requests);
    const ran = logLines.findIndex((line) => /^ran \d+ reads of its own in \d+ ms \(done\)$/.test(line));
    const kept = logLines.findIndex((line) => line.startsWith("kept the JSON of"));
    expect(ran).toBeGreaterThan(-1);
    expect(kept).toBeGreaterThan(ran);
  });

  it("are neither logged as requests nor counted as the account's, and leave no session open", async () => {
    await server.warmUp;
    expect(logLines.filter((line) => /^(GET|POST) /.test(line))).toEqual([]);
    const opened = await fetch(server.teacherUrl!, { redirect: "manual" });
    const [cookie = ""] = (opened.headers.get("set-cookie") ?? "").split(";");
    const html = await (await fetch(`${new URL(server.baseUrl).origin}/teacher`, { headers: { cookie } })).text();
    const demo = /<tr data-username="demo">([\s\S]*?)<\/tr>/.exec(html)?.[1] ?? "";
    expect(demo).toContain("not signed in");
    // Sessions 0, requests 0, writes 0.
    expect(demo).toMatch(/<td class="n">0<\/td><td class="n">0<\/td><td class="n">0<\/td>/);
  });
});

describe("the server's own reads, and its clients", () => {
  it("take no client's place: with one connection allowed, a client arriving while they run is answered", async () => {
    const server = await startTestServer({ synthetic: SYNTHETIC, warmFields: [COLUMNS], maxConnections: 1 });
    try {
      // Sent as soon as the server listens, while its first read is under way.
      const res = await getBytes(server, `${PREFIX}/materials`, {});
      expect(res.status).toBe(401);
      expect((await server.warmUp).reads?.ended).toBe("request");
    } finally {
      await server.close();
    }
  });

  it("are read on a loopback listener of their own, whatever address the server is bound to", async () => {
    const server = await startServer({ host: "::1", port: 0, synthetic: 10, warmFields: [COLUMNS] });
    try {
      const reads = (await server.warmUp).reads;
      expect(reads?.ended).toBe("done");
      expect(reads?.answered).toBe(reads?.requests);
    } finally {
      await server.close();
    }
  });
});

describe("RequestWarmUp", () => {
  it("gives up a read that is never answered, ending the reads instead of hanging", async () => {
    const never = () => new Promise<void>(() => undefined);
    const report = await new RequestWarmUp().run(never, ["/a", "/b"], {}, { maxMs: 300 });
    expect(report).toMatchObject({ requests: 1, answered: 0, ended: "time" });
  });

  it("sends the reads to a listener of its own, one by one, and counts their answers", async () => {
    const seen: (string | undefined)[] = [];
    const answer = async (req: IncomingMessage, res: ServerResponse) => {
      seen.push(req.url);
      res.end();
    };
    const report = await new RequestWarmUp().run(answer, ["/a", "/b"], {});
    expect(report).toMatchObject({ requests: 2, answered: 2, ended: "done" });
    expect(report.firstUnanswered).toBeUndefined();
    expect(seen).toEqual(["/a", "/b"]);
  });

  it("says which read was first not answered with 200, without its query, and with what", async () => {
    const answer = async (req: IncomingMessage, res: ServerResponse) => {
      res.statusCode = req.url?.startsWith("/a") ? 200 : 503;
      res.end();
    };
    const report = await new RequestWarmUp().run(answer, ["/a", "/b?query=%7B%7D", "/c"], {});
    expect(report).toMatchObject({ requests: 3, answered: 1, firstUnanswered: { path: "/b", status: 503 } });
  });
});

describe("the warm-up's request marking", () => {
  it("survives a marking header with bytes above 0x7f, answering it as any request", async () => {
    const server = await startTestServer({ synthetic: 10, warmFields: [COLUMNS] });
    try {
      // 31 ASCII characters and one latin1 byte: as long as the secret in characters, not in UTF-8 bytes.
      const res = await getBytes(server, `${PREFIX}/materials`, {
        "x-matframe-warm-up": `${"a".repeat(31)}\u00e9`,
      });
      expect(res.status).toBe(401);
      expect((await getBytes(server, `${PREFIX}/materials`, {})).status).toBe(401);
    } finally {
      await server.close();
    }
  });
});

describe("WarmUp", () => {
  const source = (count: number) => {
    const records = Array.from({ length: count }, (_, i) => ({ _id: `m${String(i).padStart(5, "0")}`, n: i }));
    return { size: records.length, at: (i: number) => records[i] };
  };

  it("stops when the server closes before it ends", async () => {
    const server = await startTestServer({ synthetic: SYNTHETIC, warmFields: [{}] });
    // Closed before the first slice (they run on setImmediate, after this continuation).
    await server.close();
    expect((await server.warmUp).ended).toBe("closed");
  });

  it("stops once the kept-JSON budget is spent, and keeps what it serialised", async () => {
    const serialized = new SerializedRecords(2_000);
    const report = await new WarmUp([{ source: source(1000), projection: undefined, for: "materials" }], serialized)
      .ended;
    expect(report.ended).toBe("budget");
    expect(report.records).toBeGreaterThan(0);
    expect(report.records).toBeLessThan(1000);
    expect(serialized.full).toBe(true);
  });

  it("stops once its work bound is reached", async () => {
    const report = await new WarmUp(
      [{ source: source(1000), projection: undefined, for: "materials" }],
      new SerializedRecords(1 << 20),
      {
        maxWorkMs: 0,
      },
    ).ended;
    expect(report).toMatchObject({ records: 0, ended: "time" });
  });

  it("does no slice while a request is being answered, and goes on when none is", async () => {
    const warmUp = new WarmUp(
      [{ source: source(1000), projection: undefined, for: "materials" }],
      new SerializedRecords(1 << 20),
      {
        idleMs: 0,
      },
    );
    warmUp.requestStarted();
    warmUp.requestStarted();
    let ended = false;
    void warmUp.ended.then(() => {
      ended = true;
    });
    // Many turns of the event loop: a slice would have run in the first.
    for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
    warmUp.requestEnded();
    for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(false);
    warmUp.requestEnded();
    expect(await warmUp.ended).toMatchObject({ records: 1000, ended: "done" });
  });

  it("made unstarted, counts requests from the start and works only once started and none is under way", async () => {
    const warmUp = new WarmUp(
      [{ source: source(1000), projection: undefined, for: "materials" }],
      new SerializedRecords(1 << 20),
      {
        idleMs: 0,
        start: false,
      },
    );
    let ended = false;
    void warmUp.ended.then(() => {
      ended = true;
    });
    for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(false);
    // A request begun before start() still holds it (serve's reads end while a client's request runs).
    warmUp.requestStarted();
    warmUp.start();
    for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(false);
    warmUp.requestEnded();
    expect(await warmUp.ended).toMatchObject({ records: 1000, ended: "done" });
  });
});

describe("the results table's records kept at start-up (warmResults)", () => {
  it("keeps every property record, the jobs they name and their materials, and answers as a server without it", async () => {
    const plan = planResults({ properties: ["band_gaps"] });
    const warmResults = { properties: { ...PROPERTY_FIELDS }, jobs: plan.jobFields, materials: plan.material.fields };
    const [cold, warmed] = await Promise.all([startTestServer(), startTestServer({ warmResults })]);
    const clients: Client[] = [];
    try {
      const report = await warmed.warmUp;
      expect(report.ended).toBe("done");
      const tables = [];
      for (const server of [cold, warmed]) {
        const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
        clients.push(client);
        const df = await client.results.toDataFrame({ properties: ["band_gaps", "dielectric_tensor"] });
        tables.push({ columns: df.columns, values: df.values });
      }
      expect(tables[1]).toEqual(tables[0]);
      // What was kept, counted through the API: the property records, the jobs they name, and
      // those jobs' materials (served ones or the bank's).
      const client = clients[1]!;
      const records = async (collection: string) => {
        const all: PlatformRecord[] = [];
        for await (const record of client.collection(collection).iterate({})) all.push(record);
        return all;
      };
      const properties = await records("properties");
      const jobIds = new Set(properties.map((p) => valueAt(p, "source", "info", "jobId")));
      const jobs = (await records("jobs")).filter((job) => jobIds.has(job._id));
      const materialIds = new Set(jobs.map((job) => valueAt(job, "_material", "_id")));
      let materials = 0;
      for (const collection of ["materials", "bank-materials"])
        materials += (await records(collection)).filter((m) => materialIds.has(m._id)).length;
      expect(properties.length).toBeGreaterThan(1000);
      expect(report.records).toBe(properties.length + jobs.length + materials);
      expect(report.resultsRecords).toBe(report.records);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await Promise.all([cold.close(), warmed.close()]);
    }
  });
});

describe("the server's own reads with warmResults", () => {
  it("read a results table's first pages as the table asks for them, each answered", async () => {
    const plan = planResults({ properties: ["band_gaps"] });
    const warmResults = { properties: { ...PROPERTY_FIELDS }, jobs: plan.jobFields, materials: plan.material.fields };
    const [plain, withResults] = await Promise.all([
      startTestServer({ warmFields: [COLUMNS] }),
      startTestServer({ warmFields: [COLUMNS], warmResults }),
    ]);
    try {
      const [without, withThem] = await Promise.all([plain.warmUp, withResults.warmUp]);
      // Both sent every read (none stopped at the reads' time bound), so the counts compare.
      expect([without.reads?.ended, withThem.reads?.ended]).toEqual(["done", "done"]);
      // Three pages of 200 property records of the first kind (the reference data hold 1,056 band
      // gaps), each with its jobs and their materials, in materials and in bank-materials.
      expect(withThem.reads?.requests).toBe((without.reads?.requests ?? 0) + 3 * 4);
      expect(withThem.reads?.answered).toBe(withThem.reads?.requests);
    } finally {
      await Promise.all([plain.close(), withResults.close()]);
    }
  });
});

describe("the warmFields option", () => {
  it("is refused, saying which entry and why, when an entry is not a projection's fields", async () => {
    const bad = startTestServer({ warmFields: [{ formula: 1 }, { formula: 1, name: 0 }] as never });
    await expect(bad).rejects.toThrow(ServerOptionsError);
    await expect(bad).rejects.toThrow(/warmFields\[1\]: projection\.fields mixes inclusion/);
  });

  it("refuses warmResults without one of its three projections, or with a bad one, naming which", async () => {
    const missing = startTestServer({ warmResults: { properties: { _id: 1 }, jobs: { _id: 1 } } as never });
    await expect(missing).rejects.toThrow(/warmResults\.materials must be projection fields/);
    const mixed = startTestServer({
      warmResults: { properties: { _id: 1 }, jobs: { _id: 1, name: 0, status: 1 }, materials: {} } as never,
    });
    await expect(mixed).rejects.toThrow(/warmResults\.jobs: projection\.fields mixes inclusion/);
  });
});
