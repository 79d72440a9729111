import { readFileSync } from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toCif, toPoscar, type StructureRecord } from "../../src/structure";
import type { ServerHandle } from "../../src/server";
import {
  errorMessage,
  listMaterials,
  login,
  PREFIX,
  rawRequest,
  startTestServer,
  type RawResponse,
  type Session,
} from "./helpers";
import { at } from "../support/checked";

// Issue 16: the local platform manages records (create, update, delete, copy, import) with owner
// checks, over real HTTP.

const bundled = JSON.parse(
  readFileSync(path.join(__dirname, "..", "..", "data", "materials.json"), "utf8"),
) as (StructureRecord & {
  _id: string;
  formula: string;
  unitCellFormula: string;
  derivedProperties: { name: string; value: number }[];
  owner: { _id: string; slug: string };
})[];
const silicon = bundled.find((m) => m.formula === "Si")!;
const PUBLIC_ID = at(bundled, 0, "a bundled material")._id;

let server: ServerHandle;
let alice: Session;
let bob: Session;

beforeAll(async () => {
  server = await startTestServer({ users: ["alice:alice-pass", "bob:bob-pass"] });
  alice = await login(server, "alice", "alice-pass");
  bob = await login(server, "bob", "bob-pass");
});
afterAll(() => server.close());

function send(
  method: string,
  route: string,
  session: Session | Record<string, string>,
  body?: unknown,
): Promise<RawResponse> {
  return rawRequest(server, method, `${PREFIX}${route}`, {
    headers: { ...session, "Content-Type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

const create = (session: Session | Record<string, string>, record: unknown) =>
  send("PUT", "/materials/create", session, record);

function density(record: { derivedProperties: { name: string; value: number }[] }): number {
  return record.derivedProperties.find((p) => p.name === "density")!.value;
}

describe("PUT /materials/create", () => {
  it("creates a record owned by the caller, with a new id, createdAt and computed formula and density", async () => {
    const { lattice, basis } = silicon;
    const res = await create(alice, { name: "my silicon", lattice, basis, tags: ["mine"] });
    expect(res.status).toBe(200);
    const record = res.body.data;
    expect(record._id).toMatch(/^[23456789A-HJ-NP-Za-km-z]{17}$/);
    expect(record.owner).toEqual({ _id: alice["X-Account-Id"], slug: "alice" });
    expect(Date.parse(record.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(record.formula).toBe(silicon.formula);
    expect(record.unitCellFormula).toBe(silicon.unitCellFormula);
    expect(density(record)).toBeCloseTo(density(silicon), 5);
    const got = await send("GET", `/materials/${record._id}`, alice);
    expect(got.body.data).toEqual(record);
  });

  it("refuses an owner that is not the caller (403), an _id (400) and bad keys (400)", async () => {
    expect(errorMessage(await create(alice, { name: "x", owner: { _id: bob["X-Account-Id"] } }), 403)).toMatch(
      /your own account id/,
    );
    expect((await create(alice, { name: "x", owner: { _id: alice["X-Account-Id"] } })).status).toBe(200);
    expect(errorMessage(await create(alice, { _id: "mine", name: "x" }), 400)).toMatch(/leave it out/);
    expect(errorMessage(await create(alice, '{"name": "x", "__proto__": {"polluted": 1}}'), 400)).toMatch(
      /"__proto__" is not allowed/,
    );
    expect(errorMessage(await create(alice, { name: "x", extra: { $where: "1" } }), 400)).toMatch(
      /"\$where" is not allowed/,
    );
    expect(errorMessage(await create(alice, { name: "x", "a.b": 1 }), 400)).toMatch(/may not be empty or hold a dot/);
    expect(errorMessage(await create(alice, "[1, 2]"), 400)).toMatch(/must be a JSON object/);
    expect(errorMessage(await create(alice, "{nope"), 400)).toMatch(/not valid JSON/);
  });

  it("refuses a structure that does not hold together, with the reader's reason", async () => {
    const basis = { ...silicon.basis, coordinates: silicon.basis.coordinates.slice(0, 1) };
    expect(errorMessage(await create(alice, { name: "broken", lattice: silicon.lattice, basis }), 400)).toMatch(
      /2 elements but 1 coordinates/,
    );
  });

  it("refuses a body over the size cap with 413 and needs a session (401)", async () => {
    const huge = { name: "x", blob: "y".repeat(1024 * 1024 + 10) };
    expect(errorMessage(await create(alice, huge), 413)).toMatch(/larger than/);
    expect(errorMessage(await create({}, { name: "x" }), 401)).toMatch(/Authentication required/);
  });
});

describe("owners", () => {
  it("lists public materials plus the caller's own, never another account's", async () => {
    const mine = (await create(alice, { name: "alice only", tags: ["owner-test"] })).body.data;
    const aliceList = await listMaterials(server, alice, { tags: "owner-test" });
    expect(aliceList.body.data.map((r: { _id: string }) => r._id)).toEqual([mine._id]);
    const bobList = await listMaterials(server, bob, { tags: "owner-test" });
    expect(bobList.body.data).toEqual([]);
    expect(errorMessage(await send("GET", `/materials/${mine._id}`, bob), 404)).toMatch(/No material has the id/);
    const all = await listMaterials(server, bob, {}, { limit: 500 });
    expect(all.body.data).toHaveLength(bundled.length);
  });

  it("pages the caller's records in among the public ones in id order and in a sorted order", async () => {
    const carol = await startTestServer({ users: ["carol:c"] });
    try {
      const session = await login(carol, "carol", "c");
      const post = (body: unknown) =>
        rawRequest(carol, "PUT", `${PREFIX}/materials/create`, {
          headers: { ...session, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
      for (let i = 0; i < 7; i += 1) expect((await post({ name: `carol ${i}`, rank: i * 3 })).status).toBe(200);
      const list = async (projection: object) => {
        const out: { _id: string; name: string }[] = [];
        for (let skip = 0; ; skip += 4) {
          const page = (await listMaterials(carol, session, {}, { ...projection, skip, limit: 4 })).body.data;
          out.push(...page);
          if (page.length < 4) return out;
        }
      };
      const byId = await list({});
      const ids = byId.map((r) => r._id);
      expect(ids).toEqual([...ids].sort());
      expect(new Set(ids).size).toBe(bundled.length + 7);
      const byIdDown = await list({ sort: { _id: -1 } });
      expect(byIdDown.map((r) => r._id)).toEqual([...ids].reverse());
      const byName = await list({ sort: { name: 1 } });
      const names = byName.map((r) => r.name);
      expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(byName).toHaveLength(bundled.length + 7);
    } finally {
      await carol.close();
    }
  });

  it("keeps public materials read-only (403) but copyable by every account", async () => {
    expect(
      errorMessage(await send("PATCH", `/materials/${PUBLIC_ID}`, alice, { $set: { name: "mine now" } }), 403),
    ).toMatch(/read-only; copy it/);
    expect(errorMessage(await send("DELETE", `/materials/${PUBLIC_ID}`, alice), 403)).toMatch(/read-only/);
    const copy = await send("POST", `/materials/${PUBLIC_ID}/copy`, bob);
    expect(copy.status).toBe(200);
    const original = at(bundled, 0, "a bundled material");
    expect(copy.body.data._id).not.toBe(PUBLIC_ID);
    expect(copy.body.data.name).toBe(original.name);
    expect(copy.body.data.formula).toBe(original.formula);
    expect(copy.body.data.owner).toEqual({ _id: bob["X-Account-Id"], slug: "bob" });
    expect(
      (await send("PATCH", `/materials/${copy.body.data._id}`, bob, { $set: { name: "bob's" } })).body.data.name,
    ).toBe("bob's");
    const still = await send("GET", `/materials/${PUBLIC_ID}`, alice);
    expect(still.body.data).toEqual(original);
  });

  it("refuses to change, delete or copy another account's record", async () => {
    const mine = (await create(alice, { name: "private" })).body.data;
    expect(errorMessage(await send("PATCH", `/materials/${mine._id}`, bob, { $set: { name: "stolen" } }), 403)).toMatch(
      /another account/,
    );
    expect(errorMessage(await send("DELETE", `/materials/${mine._id}`, bob), 403)).toMatch(/another account/);
    expect(errorMessage(await send("POST", `/materials/${mine._id}/copy`, bob), 404)).toMatch(/No material/);
    expect((await send("GET", `/materials/${mine._id}`, alice)).body.data.name).toBe("private");
  });

  it("answers 404 for unknown ids on update, delete and copy", async () => {
    expect(errorMessage(await send("PATCH", "/materials/NoSuchId", alice, { $set: { a: 1 } }), 404)).toMatch(
      /No material/,
    );
    expect(errorMessage(await send("DELETE", "/materials/NoSuchId", alice), 404)).toMatch(/No material/);
    expect(errorMessage(await send("POST", "/materials/NoSuchId/copy", alice), 404)).toMatch(/No material/);
  });
});

describe("PATCH /materials/<id> modifiers", () => {
  let id: string;
  beforeAll(async () => {
    id = (await create(alice, { name: "target", tags: ["a"], data: { x: 1, y: 2 } })).body.data._id;
  });
  const patch = (modifier: unknown) => send("PATCH", `/materials/${id}`, alice, modifier);

  it("applies $set, $unset, $push, $pull and $addToSet", async () => {
    let res = await patch({ $set: { name: "renamed", "data.x": 5 }, $unset: { "data.y": "" }, $push: { tags: "b" } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ _id: id, name: "renamed", data: { x: 5 }, tags: ["a", "b"] });
    expect(res.body.data.data).not.toHaveProperty("y");
    res = await patch({ $addToSet: { tags: { $each: ["a", "c"] } } });
    expect(res.body.data.tags).toEqual(["a", "b", "c"]);
    res = await patch({ $pull: { tags: "b" } });
    expect(res.body.data.tags).toEqual(["a", "c"]);
    expect((await send("GET", `/materials/${id}`, alice)).body.data).toEqual(res.body.data);
  });

  it("takes a plain object of fields as $set of them, as the platform's Python client sends", async () => {
    const res = await patch({ name: "plain", "data.x": 7 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ _id: id, name: "plain", data: { x: 7 } });
    expect((await send("GET", `/materials/${id}`, alice)).body.data).toEqual(res.body.data);
  });

  it("recomputes formula and density when the structure changes", async () => {
    const res = await patch({ $set: { lattice: silicon.lattice, basis: silicon.basis } });
    expect(res.body.data.formula).toBe("Si");
    expect(density(res.body.data)).toBeCloseTo(density(silicon), 5);
  });

  it.each([
    [{ $set: { _id: "other" } }, /_id is set by the server/],
    [{ $set: { owner: { _id: "x" } } }, /owner is set by the server/],
    [{ $set: { "owner._id": "x" } }, /owner is set by the server/],
    [{ $unset: { "owner.slug": "" } }, /owner is set by the server/],
    [{ $where: "this.a" }, /"\$where" is not supported/],
    [{ $rename: { name: "title" } }, /"\$rename" is not supported/],
    [{ $inc: { n: 1 } }, /"\$inc" is not supported/],
    [{ name: "bare", $unset: { tags: "" } }, /mixes fields/],
    [{ _id: "other" }, /_id is set by the server/],
    [{ owner: { _id: "x" } }, /owner is set by the server/],
    [JSON.parse('{"__proto__": {"polluted": true}}'), /"__proto__" is not allowed/],
    [JSON.parse('{"$set": {"__proto__": {"polluted": true}}}'), /"__proto__" is not allowed/],
    [{ $set: { "constructor.prototype": 1 } }, /"constructor" is not allowed/],
    [{ $set: { "a.__proto__.b": 1 } }, /"__proto__" is not allowed/],
    [{ $set: { data: { $where: "1" } } }, /"\$where" is not allowed/],
    [{ $set: { "tags.$": "z" } }, /positional updates are not supported/],
    [{ $set: { "": 1 } }, /not a valid dotted path/],
    [{ $set: { name: "a" }, $unset: { name: "" } }, /cannot be applied/],
    [{ $push: { name: "x" } }, /cannot be applied/],
    [{ $push: { tags: { $each: ["x"], $slice: 1 } } }, /only \$each/],
    [{}, /modifier is empty/],
    [{ $set: {} }, /\$set is empty/],
    [{ $set: "x" }, /takes an object/],
  ])("refuses %j", async (modifier, message) => {
    const before = (await send("GET", `/materials/${id}`, alice)).body.data;
    expect(errorMessage(await patch(modifier), 400)).toMatch(message);
    expect((await send("GET", `/materials/${id}`, alice)).body.data).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses an update that would make the record larger than the cap", async () => {
    const half = "z".repeat(700 * 1024);
    expect((await patch({ $set: { big1: half } })).status).toBe(200);
    expect(errorMessage(await patch({ $set: { big2: half } }), 400)).toMatch(/at most 1048576 bytes/);
    expect((await patch({ $unset: { big1: "" } })).status).toBe(200);
  });
});

describe("DELETE /materials/<id>", () => {
  it("deletes the caller's record: 200 { _id }, then 404", async () => {
    const id = (await create(alice, { name: "doomed" })).body.data._id;
    const res = await send("DELETE", `/materials/${id}`, alice);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ _id: id });
    expect((await send("GET", `/materials/${id}`, alice)).status).toBe(404);
    expect((await send("DELETE", `/materials/${id}`, alice)).status).toBe(404);
  });
});

describe("POST /materials/import", () => {
  const importFile = (body: unknown, session: Session | Record<string, string> = alice) =>
    send("POST", "/materials/import", session, body);

  it.each([
    ["poscar", toPoscar(silicon)],
    ["cif", toCif(silicon)],
  ])(
    "imports %s and computes formula, unitCellFormula, lattice vectors and density as for the bundled silicon",
    async (format, content) => {
      const res = await importFile({
        name: `imported ${format}`,
        content,
        format,
        "owner._id": null,
        tags: ["imported"],
      });
      expect(res.status).toBe(200);
      const record = res.body.data;
      expect(record).toMatchObject({
        name: `imported ${format}`,
        formula: silicon.formula,
        unitCellFormula: silicon.unitCellFormula,
        tags: ["imported"],
      });
      expect(record.owner._id).toBe(alice["X-Account-Id"]);
      expect(record.lattice.vectors.a).toHaveLength(3);
      expect(record.basis.elements.map((e: { value: string }) => e.value)).toEqual(
        silicon.basis.elements.map((e) => e.value),
      );
      expect(density(record)).toBeCloseTo(density(silicon), 4);
      const found = await listMaterials(server, alice, { _id: record._id });
      expect(found.body.data).toEqual([record]);
    },
  );

  it("accepts owner._id naming the caller (both spellings) and refuses another account (403)", async () => {
    const content = toPoscar(silicon);
    expect(
      (await importFile({ name: "a", content, format: "poscar", "owner._id": alice["X-Account-Id"] })).status,
    ).toBe(200);
    expect(
      (await importFile({ name: "b", content, format: "poscar", owner: { _id: alice["X-Account-Id"] } })).status,
    ).toBe(200);
    expect(
      errorMessage(await importFile({ name: "c", content, format: "poscar", "owner._id": bob["X-Account-Id"] }), 403),
    ).toMatch(/own account/);
  });

  it("answers 400 with the reader's message for a malformed file, and for a bad format or fields", async () => {
    expect(
      errorMessage(await importFile({ name: "x", content: "title\n1.0\n1 0 0\n", format: "poscar" }), 400),
    ).toMatch(/POSCAR content cannot be read: POSCAR line/);
    expect(errorMessage(await importFile({ name: "x", content: "data_x\n", format: "cif" }), 400)).toMatch(
      /CIF content cannot be read/,
    );
    expect(errorMessage(await importFile({ name: "x", content: "x", format: "xyz" }), 400)).toMatch(
      /"format" must be "poscar" or "cif"/,
    );
    expect(errorMessage(await importFile({ name: "x", format: "poscar" }), 400)).toMatch(/needs "content"/);
    expect(errorMessage(await importFile({ name: "x", content: "x", format: "poscar", color: "red" }), 400)).toMatch(
      /unknown fields \("color"\)/,
    );
    expect(
      errorMessage(await importFile({ name: "x", content: toPoscar(silicon), format: "poscar", tags: "one" }), 400),
    ).toMatch(/"tags" must be a list/);
  });
});

describe("Bearer tokens", () => {
  it("accepts the token from POST /login alone as Authorization: Bearer, for reads and writes", async () => {
    const bearer = { Authorization: `Bearer ${alice["X-Auth-Token"]}` };
    const created = await create(bearer, { name: "by bearer" });
    expect(created.status).toBe(200);
    expect(created.body.data.owner._id).toBe(alice["X-Account-Id"]);
    expect((await send("GET", `/materials/${created.body.data._id}`, bearer)).status).toBe(200);
    expect((await send("PATCH", `/materials/${created.body.data._id}`, bearer, { $set: { n: 1 } })).body.data.n).toBe(
      1,
    );
    expect(errorMessage(await send("GET", "/materials", { Authorization: "Bearer nope" }), 401)).toMatch(
      /Bearer token is not valid/,
    );
    expect(errorMessage(await send("GET", "/materials", { Authorization: "Basic abc" }), 401)).toMatch(
      /must be "Bearer <token>"/,
    );
  });

  it("ends with logout like the header pair", async () => {
    const carl = await login(server, "bob", "bob-pass");
    const bearer = { Authorization: `Bearer ${carl["X-Auth-Token"]}` };
    expect((await send("POST", "/logout", bearer)).status).toBe(200);
    expect((await send("GET", "/materials", bearer)).status).toBe(401);
    const res = await send("GET", "/materials", carl);
    expect(errorMessage(res, 401)).not.toContain(carl["X-Auth-Token"]);
  });
});

describe("ETags after writes", () => {
  it("a list or item read after a write is not answered 304 with the old tag", async () => {
    const record = (await create(alice, { name: "etag", tags: ["etag-test"] })).body.data;
    const query = `?query=${encodeURIComponent(JSON.stringify({ tags: "etag-test" }))}`;
    const first = await send("GET", `/materials${query}`, alice);
    const item = await send("GET", `/materials/${record._id}`, alice);
    const listTag = String(first.headers.etag);
    const itemTag = String(item.headers.etag);
    expect((await send("GET", `/materials${query}`, { ...alice, "If-None-Match": listTag })).status).toBe(304);
    await send("PATCH", `/materials/${record._id}`, alice, { $set: { name: "etag 2" } });
    const listAfter = await send("GET", `/materials${query}`, { ...alice, "If-None-Match": listTag });
    expect(listAfter.status).toBe(200);
    expect(listAfter.body.data[0].name).toBe("etag 2");
    const itemAfter = await send("GET", `/materials/${record._id}`, { ...alice, "If-None-Match": itemTag });
    expect(itemAfter.status).toBe(200);
    expect(itemAfter.headers.etag).not.toBe(itemTag);
    await create(alice, { name: "etag 3", tags: ["etag-test"] });
    const grown = await send("GET", `/materials${query}`, {
      ...alice,
      "If-None-Match": String(listAfter.headers.etag),
    });
    expect(grown.status).toBe(200);
    expect(grown.body.data).toHaveLength(2);
  });
});

describe("ETags from the version of the caller's records", () => {
  const all = `/materials?projection=${encodeURIComponent('{"limit":5}')}`;

  it("keeps an account's tags through another account's writes, and changes them with its own", async () => {
    const tag = String((await send("GET", all, alice)).headers.etag);
    await create(bob, { name: "bob's", tags: ["other-account"] });
    expect((await send("GET", all, { ...alice, "If-None-Match": tag })).status).toBe(304);
    const mine = (await create(alice, { name: "alice's", tags: ["version-test"] })).body.data;
    // The first page of the served materials did not change, but a list may now include the new
    // record: every read of alice's is asked again.
    const after = await send("GET", all, { ...alice, "If-None-Match": tag });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(tag);
    await send("DELETE", `/materials/${mine._id}`, alice);
    expect((await send("GET", all, { ...alice, "If-None-Match": String(after.headers.etag) })).status).toBe(200);
  });

  it("gives the same request of the same account another tag after a restart", async () => {
    const read = async (headers: Record<string, string> = {}) => {
      const restarted = await startTestServer({ users: ["carol:carol-pass"] });
      try {
        const session = await login(restarted, "carol", "carol-pass");
        return await rawRequest(restarted, "GET", `${PREFIX}${all}`, { headers: { ...session, ...headers } });
      } finally {
        await restarted.close();
      }
    };
    const before = await read();
    const after = await read({ "If-None-Match": String(before.headers.etag) });
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it("answers a revalidation of a request it would refuse with the refusal, not 304", async () => {
    const bad = `/materials?query=${encodeURIComponent('{"$where":"1"}')}`;
    const res = await send("GET", bad, { ...alice, "If-None-Match": "*" });
    expect(res.status).toBe(400);
    const missing = await send("GET", "/materials/no-such-id", { ...alice, "If-None-Match": "*" });
    expect(missing.status).toBe(404);
  });

  it("sends on a 304 the tag its 200 carried, coding included, for a small answer sent plain", async () => {
    const one = `/materials?projection=${encodeURIComponent('{"limit":1,"fields":{"_id":1}}')}`;
    const first = await send("GET", one, { ...alice, "Accept-Encoding": "gzip" });
    expect(first.headers["content-encoding"]).toBeUndefined();
    const tag = String(first.headers.etag);
    expect(tag).toMatch(/-gzip"$/);
    const again = await send("GET", one, { ...alice, "Accept-Encoding": "gzip", "If-None-Match": tag });
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(tag);
  });
});

describe("routes", () => {
  it("answers 405 with Allow for a method an endpoint does not take", async () => {
    const res = await send("PUT", `/materials/${PUBLIC_ID}/copy`, alice);
    expect(errorMessage(res, 405)).toMatch(/use POST/);
    expect((await send("POST", `/materials/${PUBLIC_ID}`, alice)).headers.allow).toBe("GET, HEAD, PATCH, DELETE");
  });
});
