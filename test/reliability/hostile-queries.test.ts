import fc from "fast-check";
import { Agent } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type ServerHandle } from "../../src/server";
import {
  contractViolation,
  login,
  materialsPath,
  percentEncode,
  PREFIX,
  send,
  type Answer,
  type Session,
} from "./support/http";
import {
  ALLOWED_OPERATORS,
  asText,
  awkwardString,
  CODE_OPERATORS,
  hostileProjection,
  hostileQuery,
  hostileValue,
  plainPattern,
  scalar,
} from "./support/hostile";
import { prototypeChanges, snapshotPrototypes } from "./support/prototypes";
import { Figures } from "./support/report";

// Random and hostile `query`/`projection` values sent over HTTP to the real server, run in
// this process so that prototype pollution would show on this process's Object.prototype.
// Every answer must be a JSend success (200) or a JSend error with a 4xx code and a message:
// never a 500, a hang or a crash. Regexes here are cheap ones; patterns built to backtrack go
// to a server in a child process (hostile-regex.test.ts), where a hang cannot stall the tests.

const prototypesBefore = snapshotPrototypes();
const figures = new Figures("hostile-input");
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
let server: ServerHandle;
let session: Session;

beforeAll(async () => {
  server = await startServer({ host: "127.0.0.1", port: 0, synthetic: 500, scanBudgetMs: 1_000 });
  session = await login(server.port);
});

afterAll(async () => {
  figures.write();
  agent.destroy();
  await server?.close();
});

/** Sends one input, counts it, and throws (failing the property) if the answer breaks the contract. */
async function expectContract(
  path: string,
  expectData: "array" | "object" | "any" = "array",
  extra: Record<string, string> = {},
): Promise<Answer> {
  const res = await send(server.port, "GET", path, { headers: { ...session, ...extra }, agent });
  figures.add("inputs");
  figures.add(res.status === 200 ? "answered 200" : `answered ${res.status}`);
  const violation = contractViolation(res, expectData);
  if (violation) throw new Error(`GET ${path.slice(0, 400)} -> ${violation}`);
  return res;
}

const RUNS = { numRuns: 400, endOnFailure: true } as const;

describe("hostile query and projection values over HTTP", () => {
  it("random hostile queries (with or without a projection) get a JSend success or a 4xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        asText(hostileQuery(plainPattern)),
        fc.option(asText(hostileProjection)),
        async (query, projection) => {
          await expectContract(materialsPath(query, projection ?? undefined));
        },
      ),
      { ...RUNS, numRuns: 600 },
    );
  });

  it("random hostile projections get a JSend success or a 4xx", async () => {
    await fc.assert(
      fc.asyncProperty(asText(hostileProjection), async (projection) => {
        await expectContract(materialsPath(undefined, projection));
      }),
      RUNS,
    );
  });

  it("every allowed operator with arguments of the wrong type gets a JSend success or a 4xx", async () => {
    const argument = fc.oneof(scalar, fc.array(scalar, { maxLength: 4 }), hostileValue(plainPattern, 3));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ALLOWED_OPERATORS),
        fc.constantFrom("formula", "lattice.a", "tags", "method", "nope"),
        argument,
        fc.boolean(),
        async (op, path, arg, topLevel) => {
          const query = topLevel ? { [op]: arg } : { [path]: { [op]: arg } };
          await expectContract(materialsPath(JSON.stringify(query)));
        },
      ),
      RUNS,
    );
  });

  it("refuses every operator that runs code or is unknown, with 400 naming the operator", async () => {
    const unknown = awkwardString
      .filter((s) => !(ALLOWED_OPERATORS as readonly string[]).includes(`$${s}`))
      .map((s) => `$${s}`);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom(...CODE_OPERATORS), unknown),
        fc.boolean(),
        hostileValue(plainPattern, 2),
        async (op, topLevel, arg) => {
          const query = topLevel ? { [op]: arg } : { formula: { [op]: arg } };
          const res = await expectContract(materialsPath(JSON.stringify(query)));
          expect(res.status, `${JSON.stringify(query).slice(0, 200)} -> ${res.text.slice(0, 200)}`).toBe(400);
          // The message names the operator (JSON-escaped, as the body carries it).
          expect(res.text).toContain(JSON.stringify(op).slice(1, -1).slice(0, 30));
        },
      ),
      { ...RUNS, numRuns: 200 },
    );
    for (const op of ["$where", "$function", "$accumulator", "$expr"]) {
      const res = await expectContract(materialsPath(JSON.stringify({ [op]: "function () { return true }" })));
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(op);
    }
  });

  it("refuses __proto__, constructor and prototype keys, also as JSON text, anywhere, with 400", async () => {
    const texts = [
      '{"__proto__":{"polluted":"yes"}}',
      '{"formula":"Si","__proto__":{"polluted":"yes"}}',
      '{"a":{"__proto__":{"polluted":"yes"}}}',
      '{"$and":[{"__proto__":{"$gt":1}}]}',
      '{"$or":[{"formula":"Si"},{"constructor":{"prototype":{"polluted":"yes"}}}]}',
      '{"constructor.prototype.polluted":"yes"}',
      '{"__proto__.polluted":{"$exists":true}}',
      '{"tags":{"$elemMatch":{"__proto__":{"polluted":"yes"}}}}',
      '{"tags":{"$in":[{"__proto__":{"polluted":"yes"}}]}}',
      '{"lattice":{"$eq":{"__proto__":{"polluted":"yes"}}}}',
      '{"prototype":1}',
    ];
    const projections = [
      '{"fields":{"__proto__":1}}',
      '{"fields":{"__proto__.polluted":1}}',
      '{"fields":{"constructor.prototype":0}}',
      '{"sort":{"__proto__":1}}',
      '{"sort":{"constructor":-1}}',
      '{"__proto__":{"limit":1}}',
    ];
    // Every case is tried and the ones not refused are listed together.
    const accepted: string[] = [];
    for (const text of texts) {
      const res = await expectContract(materialsPath(text));
      if (res.status !== 400 || !/__proto__|constructor|prototype/.test(res.body.message))
        accepted.push(`query=${text} -> ${res.status}`);
    }
    for (const text of projections) {
      const res = await expectContract(materialsPath(undefined, text));
      if (res.status !== 400) accepted.push(`projection=${text} -> ${res.status}`);
    }
    // Also on GET /materials/<id>, whose projection takes fields.
    const list = await expectContract(materialsPath(undefined, '{"limit":1}'));
    const id = list.body.data[0]._id as string;
    for (const text of ['{"fields":{"__proto__":1}}', '{"fields":{"constructor":1}}']) {
      const one = await expectContract(`${PREFIX}/materials/${id}?projection=${percentEncode(text)}`, "object");
      if (one.status !== 400) accepted.push(`GET /materials/<id> projection=${text} -> ${one.status}`);
    }
    expect(accepted).toEqual([]);
  });

  it("random ids and projections on GET /materials/<id> get a JSend answer or a 4xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        awkwardString.filter((s) => s !== "" && s !== "." && s !== ".."),
        fc.option(asText(hostileProjection)),
        async (id, projection) => {
          const search = projection === null ? "" : `?projection=${percentEncode(projection)}`;
          await expectContract(`${PREFIX}/materials/${percentEncode(id)}${search}`, "object");
        },
      ),
      { ...RUNS, numRuns: 200 },
    );
  });

  it("random query strings (odd names, repeats, + and %, misplaced parameters) get a JSend answer or a 4xx", async () => {
    const name = fc.oneof(
      fc.constantFrom("query", "projection", "fields", "sort", "skip", "limit", "q", "", "query[]", "__proto__"),
      awkwardString,
    );
    // Sent as they are (raw escapes, `+`, bare braces); everything else is percent-encoded.
    const raw = ["{}", "%7B%7D", "+", "%", "%E0%A4%A", "%FF", "%C0%AF", "%00", '{"a":+1}'];
    const pair = fc.tuple(name, fc.oneof(fc.constantFrom(...raw), awkwardString));
    await fc.assert(
      fc.asyncProperty(fc.array(pair, { maxLength: 4 }), async (pairs) => {
        const encode = (s: string) => (raw.includes(s) ? s : percentEncode(s));
        const search = pairs.map(([n, v]) => `${encode(n)}=${encode(v)}`).join("&");
        await expectContract(`${PREFIX}/materials?${search}`);
      }),
      { ...RUNS, numRuns: 300 },
    );
  });

  it("hostile login bodies (forms, JSON with __proto__, odd types) get a JSend answer or a 4xx", async () => {
    const body = fc.oneof(
      hostileValue(plainPattern, 3).map((v) => ({ type: "application/json", text: JSON.stringify(v) ?? "" })),
      fc.tuple(awkwardString, awkwardString).map(([u, p]) => ({
        type: "application/json",
        text: `{"__proto__":{"polluted":"yes"},"username":${JSON.stringify(u)},"password":${JSON.stringify(p)}}`,
      })),
      fc
        .array(fc.tuple(fc.constantFrom("username", "password", "__proto__", "constructor", ""), awkwardString), {
          maxLength: 4,
        })
        .map((pairs) => ({
          type: "application/x-www-form-urlencoded",
          text: pairs.map(([k, v]) => `${k}=${percentEncode(v)}`).join("&"),
        })),
      fc
        .constantFrom(
          "%",
          "username=%ZZ&password=x",
          "username=a&username=b&password=c",
          "{",
          "null",
          "[]",
          '{"username":["demo"],"password":{"$ne":""}}',
        )
        .map((text) => ({ type: "application/x-www-form-urlencoded", text })),
    );
    await fc.assert(
      fc.asyncProperty(body, async ({ type, text }) => {
        const res = await send(server.port, "POST", `${PREFIX}/login`, {
          headers: { "Content-Type": type },
          body: text,
          agent,
        });
        figures.add("inputs");
        figures.add(`answered ${res.status}`);
        const violation = contractViolation(res, "object");
        if (violation) throw new Error(`POST /login ${text.slice(0, 200)} -> ${violation}`);
        // No hostile body logs anyone in: the only account is demo/demo.
        if (res.status === 200) expect(text).toMatch(/demo/);
      }),
      { ...RUNS, numRuns: 120 },
    );
  });

  it("left every built-in prototype as it was, and still answers a plain query correctly", async () => {
    expect(prototypeChanges(prototypesBefore)).toEqual([]);
    const res = await expectContract(materialsPath('{"formula":"Si"}', '{"fields":{"formula":1},"limit":500}'));
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.every((m: { formula: string }) => m.formula === "Si")).toBe(true);
    // Nothing the inputs did turned into a 500.
    expect(figures.get("answered 500")).toBe(0);
  });
});
