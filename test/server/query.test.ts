import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { errorMessage, listMaterials, login, PREFIX, rawRequest, startTestServer, type Session } from "./helpers";

let server: ServerHandle;
let session: Session;
let all: any[];

/** Records matching `query`, fetched over HTTP. */
async function find(query: unknown): Promise<any[]> {
  const res = await listMaterials(server, session, query, { limit: 500 });
  if (res.status !== 200) throw new Error(`${JSON.stringify(query)}: ${res.status} ${res.text}`);
  return res.body.data;
}

const names = (records: any[]) => records.map((r) => r.name).sort();

beforeAll(async () => {
  server = await startTestServer();
  session = await login(server);
  all = await find({});
});
afterAll(() => server.close());

describe("allowed operators, each checked against the same filter written in JavaScript", () => {
  const density = (r: any) => r.derivedProperties.find((p: any) => p.name === "density").value;
  const cases: Array<[string, unknown, (r: any) => boolean]> = [
    ["equality", { formula: "Si" }, (r) => r.formula === "Si"],
    ["$eq", { formula: { $eq: "GaAs" } }, (r) => r.formula === "GaAs"],
    ["$ne", { formula: { $ne: "Si" } }, (r) => r.formula !== "Si"],
    ["$gt on a dotted path", { "lattice.a": { $gt: 5 } }, (r) => r.lattice.a > 5],
    ["$gte/$lt", { "lattice.a": { $gte: 3, $lt: 4 } }, (r) => r.lattice.a >= 3 && r.lattice.a < 4],
    ["$lte", { "lattice.c": { $lte: 5 } }, (r) => r.lattice.c <= 5],
    ["$in", { "method.subtype": { $in: ["us", "nc"] } }, (r) => ["us", "nc"].includes(r.method?.subtype)],
    ["$nin", { formula: { $nin: ["Si", "C"] } }, (r) => !["Si", "C"].includes(r.formula)],
    ["$and", { $and: [{ tags: "3D" }, { tags: "oxide" }] }, (r) => r.tags.includes("3D") && r.tags.includes("oxide")],
    ["$or", { $or: [{ formula: "Si" }, { formula: "GaAs" }] }, (r) => r.formula === "Si" || r.formula === "GaAs"],
    ["$nor", { $nor: [{ formula: "Si" }, { tags: "2D" }] }, (r) => r.formula !== "Si" && !r.tags.includes("2D")],
    ["$not", { name: { $not: { $regex: "Bulk" } } }, (r) => !r.name.includes("Bulk")],
    ["$exists false", { method: { $exists: false } }, (r) => r.method === undefined],
    ["$exists true", { method: { $exists: true } }, (r) => r.method !== undefined],
    ["$type", { "external.doi": { $type: "null" } }, (r) => r.external.doi === null],
    ["$regex with $options", { name: { $regex: "^si", $options: "i" } }, (r) => /^si/i.test(r.name)],
    ["$mod", { "lattice.alpha": { $mod: [60, 0] } }, (r) => r.lattice.alpha % 60 === 0],
    ["$all", { tags: { $all: ["3D", "oxide"] } }, (r) => r.tags.includes("3D") && r.tags.includes("oxide")],
    ["$size", { "basis.elements": { $size: 2 } }, (r) => r.basis.elements.length === 2],
    [
      "$elemMatch",
      { derivedProperties: { $elemMatch: { name: "density", value: { $gt: 5 } } } },
      (r) => density(r) > 5,
    ],
    ["owner._id", { "owner.slug": "mat3ra-standata" }, () => true],
    ["array path", { "basis.elements.value": "O" }, (r) => r.basis.elements.some((e: any) => e.value === "O")],
  ];
  for (const [label, query, predicate] of cases) {
    it(label, async () => {
      const expected = all.filter(predicate);
      const got = await find(query);
      expect(names(got)).toEqual(names(expected));
    });
  }

  it("finds something for most of these cases (the data is not trivially empty)", () => {
    expect(all.length).toBe(29);
    expect(all.filter((r) => r.method === undefined).length).toBeGreaterThan(0);
    expect(all.filter((r) => r.method !== undefined).length).toBeGreaterThan(all.length / 2);
  });
});

describe("refused operators and keys", () => {
  const refused: Array<[string, string]> = [
    ['{"$where": "this.formula == \'Si\'"}', "$where"],
    ['{"formula": {"$function": {"body": "return true", "args": [], "lang": "js"}}}', "$function"],
    ['{"$expr": {"$eq": ["$formula", "Si"]}}', "$expr"],
    ['{"x": {"$accumulator": {}}}', "$accumulator"],
    ['{"$jsonSchema": {}}', "$jsonSchema"],
    ['{"$text": {"$search": "Si"}}', "$text"],
    ['{"formula": {"$bitsAllSet": 1}}', "$bitsAllSet"],
    ['{"$comment": "x"}', "$comment"],
    ['{"formula": {"$eq": {"$where": "1"}}}', "$where"],
    ['{"tags": {"$elemMatch": {"$where": "1"}}}', "$where"],
    ['{"$or": [{"$where": "1"}]}', "$where"],
    ['{"__proto__": {"polluted": true}}', "__proto__"],
    ['{"constructor": {"prototype": {"polluted": true}}}', "constructor"],
    ['{"lattice.__proto__.polluted": 1}', "__proto__"],
    ['{"formula": {"prototype": 1}}', "prototype"],
    ['{"formula": {"$in": [{"__proto__": 1}]}}', "__proto__"],
  ];
  for (const [query, culprit] of refused) {
    it(`refuses ${query} with 400 naming ${culprit}`, async () => {
      const res = await rawRequest(server, "GET", `${PREFIX}/materials?query=${encodeURIComponent(query)}`, {
        headers: { ...session },
      });
      expect(errorMessage(res, 400)).toContain(culprit);
      expect(({} as any).polluted).toBeUndefined();
    });
  }

  it("refuses argument types an operator cannot take", async () => {
    const bad = [
      { formula: { $in: "Si" } },
      { formula: { $regex: 5 } },
      { formula: { $regex: "[" } },
      { formula: { $regex: "Si", $options: "g" } },
      { formula: { $options: "i" } },
      { formula: { $mod: [0, 1] } },
      { formula: { $size: -1 } },
      { formula: { $exists: "yes" } },
      { $and: [] },
      { $or: {} },
      { formula: { $gt: 1, name: "x" } },
      { "": 1 },
      { "lattice..a": 1 },
    ];
    for (const query of bad) {
      expect((await listMaterials(server, session, query)).status, JSON.stringify(query)).toBe(400);
    }
  });

  it("refuses regular expressions built to backtrack", async () => {
    for (const pattern of [
      "(a+)+$",
      "(a|a)*b",
      "(.*a){2,}",
      "(\\w+\\s?)*$",
      "(x)\\1",
      "a.*b.*c.*d.*e",
      "a".repeat(201),
    ]) {
      const res = await listMaterials(server, session, { name: { $regex: pattern } });
      expect(errorMessage(res, 400), pattern).toMatch(/\$regex/);
    }
    // Exponential without a nested group: many optional or bounded parts in a row.
    for (const pattern of [`^${".?".repeat(25)}ZZZ`, `^${".{0,9}".repeat(12)}ZZZ`, ".*.*.*x"]) {
      const res = await listMaterials(server, session, { name: { $regex: pattern } });
      expect(errorMessage(res, 400), pattern).toMatch(/steps per string/);
    }
    // Ordinary patterns still work, including groups and lazy quantifiers.
    const ok = await listMaterials(server, session, { name: { $regex: "^(?:Si|Ge),.*?Bulk" } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.length).toBeGreaterThan(0);
  });

  it("limits query depth, size and $in length", async () => {
    let deep: any = { formula: "Si" };
    for (let i = 0; i < 20; i += 1) deep = { $and: [deep] };
    expect(errorMessage(await listMaterials(server, session, deep), 400)).toMatch(/nested/);
    const longIn = { formula: { $in: Array.from({ length: 1001 }, (_, i) => `F${i}`) } };
    const res = await rawRequest(server, "GET", `${PREFIX}/materials?query=${JSON.stringify(longIn)}`, {
      headers: { ...session },
    });
    expect(errorMessage(res, 400)).toMatch(/1001 entries/);
    const inOk = { formula: { $in: Array.from({ length: 1000 }, (_, i) => (i === 0 ? "Si" : `F${i}`)) } };
    const ok = await rawRequest(server, "GET", `${PREFIX}/materials?query=${JSON.stringify(inOk)}`, {
      headers: { ...session },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.length).toBe(2);
  });
});

describe("what real clients send", () => {
  const get = (search: string, headers: Record<string, string> = {}) =>
    rawRequest(server, "GET", `${PREFIX}/materials?${search}`, { headers: { ...session, ...headers } });

  it("reads + and %20 as spaces", async () => {
    const plus = await get("query=%7B%22formula%22%3A+%22Si%22%7D");
    const pct = await get("query=%7B%22formula%22%3A%20%22Si%22%7D");
    expect(plus.status).toBe(200);
    expect(plus.body.data.length).toBe(2);
    expect(pct.body.data).toEqual(plus.body.data);
    // A + inside a JSON string is a space too, as in any form encoding.
    const name = await get(
      `query=${encodeURIComponent('{"name": "Si, Silicon, FCC (Fd-3m) 3D (Bulk), mp-149"}').replace(/%20/g, "+")}`,
    );
    expect(name.body.data.length).toBe(1);
  });

  it("accepts Python json.dumps spacing, unencoded JSON and an empty projection={}", async () => {
    // requests.get(url, params={"query": json.dumps(q), "projection": json.dumps(p)})
    const python = await get(
      "query=%7B%22formula%22%3A+%22Si%22%2C+%22lattice.a%22%3A+%7B%22%24gt%22%3A+1%7D%7D&projection=%7B%22limit%22%3A+1%7D",
    );
    expect(python.status).toBe(200);
    expect(python.body.data.length).toBe(1);
    const raw = await get('query={"formula":"Si"}&projection={}');
    expect(raw.status).toBe(200);
    expect(raw.body.data.length).toBe(2);
  });

  it("ignores Content-Type: application/json on a GET", async () => {
    const res = await get("query=%7B%7D", { "Content-Type": "application/json" });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBe(29);
  });

  it("answers malformed input with 400, never 500", async () => {
    const bad = [
      "query=%E0%A4%A",
      "query=%",
      "query=%ZZ",
      "query=%FF%FE",
      "query={formula:Si}",
      "query=[1,2]",
      "query=42",
      "query=%22Si%22",
      "query=null",
      "query=true",
      "projection=[1]",
      "projection=5",
      "projection={",
      `query=${"[".repeat(3000)}`,
      "query=%7B%7D&query=%7B%7D",
    ];
    for (const search of bad) {
      const res = await get(search);
      expect(res.status, search).toBe(400);
      expect(res.body.status).toBe("error");
    }
  });
});

describe("operators in the wrong place", () => {
  it("explains that a field operator at the top level needs a field", async () => {
    const res = await listMaterials(server, session, { $and: [{ $eq: "Si" }] });
    expect(errorMessage(res, 400)).toMatch(/applies to a field/);
  });
});
