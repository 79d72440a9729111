import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MaterialRecord } from "../../src/schemas";
import type { ServerHandle } from "../../src/server";
import { at } from "../support/checked";
import { errorMessage, listMaterials, login, PREFIX, rawRequest, startTestServer, type Session } from "./helpers";

let server: ServerHandle;
let session: Session;

beforeAll(async () => {
  server = await startTestServer();
  session = await login(server);
});
afterAll(() => server.close());

describe("POST /login", () => {
  it("accepts a form body and returns the two credentials in a JSend envelope", async () => {
    const res = await rawRequest(server, "POST", `${PREFIX}/login`, {
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "username=demo&password=demo",
    });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body.status).toBe("success");
    expect(res.body.data["X-Account-Id"]).toMatch(/^[23456789A-HJ-NP-Za-km-z]{17}$/);
    // 48 random bytes, base64url: at least 256 bits of secret.
    expect(res.body.data["X-Auth-Token"]).toMatch(/^[A-Za-z0-9_-]{64}$/);
  });

  it("accepts a JSON body", async () => {
    const res = await rawRequest(server, "POST", `${PREFIX}/login`, {
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "demo", password: "demo" }),
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(["X-Account-Id", "X-Auth-Token"]);
  });

  it("gives a new token on every login, for the same account id", async () => {
    const a = await login(server);
    const b = await login(server);
    expect(a["X-Account-Id"]).toBe(b["X-Account-Id"]);
    expect(a["X-Auth-Token"]).not.toBe(b["X-Auth-Token"]);
  });

  it("answers a wrong password or unknown user with 401", async () => {
    for (const body of ["username=demo&password=nope", "username=nobody&password=demo"]) {
      const res = await rawRequest(server, "POST", `${PREFIX}/login`, { body });
      expect(errorMessage(res, 401)).toMatch(/wrong username or password/i);
    }
  });

  it("answers a body without username or password, or invalid JSON, with 400", async () => {
    const cases = [
      { body: "username=demo" },
      { body: "" },
      { body: '{"username": "demo"', headers: { "Content-Type": "application/json" } },
      { body: "[1,2]", headers: { "Content-Type": "application/json" } },
      { body: '{"username": 1, "password": 2}', headers: { "Content-Type": "application/json" } },
      { body: "username=%E0%A4%A&password=x" },
    ];
    for (const c of cases) {
      const res = await rawRequest(server, "POST", `${PREFIX}/login`, c);
      expect(errorMessage(res, 400)).toMatch(/username|JSON|percent-escape/);
    }
  });

  it("refuses GET with 405 and an Allow header", async () => {
    const res = await rawRequest(server, "GET", `${PREFIX}/login`);
    expect(errorMessage(res, 405)).toMatch(/POST/);
    expect(res.headers.allow).toBe("POST");
  });
});

describe("logout", () => {
  for (const method of ["GET", "POST"]) {
    it(`${method} /logout ends the session: that id/token pair then gets 401`, async () => {
      const own = await login(server);
      expect((await listMaterials(server, own)).status).toBe(200);
      const res = await rawRequest(server, method, `${PREFIX}/logout`, { headers: { ...own } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: "success", data: { message: "You are successfully logged out" } });
      expect(errorMessage(await listMaterials(server, own), 401)).toMatch(/log in again/);
      expect(
        errorMessage(await rawRequest(server, "GET", `${PREFIX}/logout`, { headers: { ...own } }), 401),
      ).toBeTruthy();
      // Other sessions of the same account keep working.
      expect((await listMaterials(server, session)).status).toBe(200);
    });
  }

  it("answers logout without credentials with 401", async () => {
    expect(errorMessage(await rawRequest(server, "POST", `${PREFIX}/logout`), 401)).toMatch(/X-Account-Id/);
  });
});

describe("authentication on materials", () => {
  it("answers missing, unknown and mixed credentials with 401", async () => {
    const other = await login(server);
    const cases: Array<Record<string, string>> = [
      {},
      { "X-Account-Id": session["X-Account-Id"] },
      { "X-Auth-Token": session["X-Auth-Token"] },
      { "X-Account-Id": session["X-Account-Id"], "X-Auth-Token": "x".repeat(64) },
      { "X-Account-Id": "wrongaccount12345", "X-Auth-Token": session["X-Auth-Token"] },
      {
        "X-Account-Id": session["X-Account-Id"],
        "X-Auth-Token": other["X-Auth-Token"].slice(0, 16) + session["X-Auth-Token"].slice(16),
      },
    ];
    for (const headers of cases) {
      const list = await rawRequest(server, "GET", `${PREFIX}/materials`, { headers });
      expect(errorMessage(list, 401)).toMatch(/X-Account-Id/);
      const one = await rawRequest(server, "GET", `${PREFIX}/materials/anything`, { headers });
      expect(one.status).toBe(401);
    }
  });

  it("keeps two accounts' sessions apart", async () => {
    const two = await startTestServer({ users: ["alice:alice-pw", "bob:bob-pw"] });
    try {
      const alice = await login(two, "alice", "alice-pw");
      const bob = await login(two, "bob", "bob-pw");
      expect(alice["X-Account-Id"]).not.toBe(bob["X-Account-Id"]);
      const mixed = { "X-Account-Id": alice["X-Account-Id"], "X-Auth-Token": bob["X-Auth-Token"] };
      expect((await listMaterials(two, mixed)).status).toBe(401);
      expect((await listMaterials(two, alice)).status).toBe(200);
    } finally {
      await two.close();
    }
  });
});

describe("GET /materials and /materials/<id>", () => {
  it("lists platform-shaped records: 50 by default, sorted by _id", async () => {
    const res = await listMaterials(server, session);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("success");
    const records = res.body.data as MaterialRecord[];
    expect(records.length).toBe(29); // the bundled standata materials, fewer than one page
    for (const record of records) MaterialRecord.parse(record);
    const ids = records.map((r) => r._id);
    expect(ids).toEqual([...ids].sort());
    const silicon = records.find((r) => r.external?.id === "mp-149")!;
    expect(silicon).toMatchObject({
      formula: "Si",
      unitCellFormula: "Si2",
      name: "Si, Silicon, FCC (Fd-3m) 3D (Bulk), mp-149",
    });
  });

  it("returns one material by id, and 404 for an unknown id", async () => {
    const first = at(
      (await listMaterials(server, session, {}, { limit: 1 })).body.data as MaterialRecord[],
      0,
      "a material",
    );
    const res = await rawRequest(server, "GET", `${PREFIX}/materials/${first._id}`, { headers: { ...session } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(first);
    const missing = await rawRequest(server, "GET", `${PREFIX}/materials/NoSuchMaterial123`, {
      headers: { ...session },
    });
    expect(errorMessage(missing, 404)).toMatch(/NoSuchMaterial123/);
  });

  it("applies projection fields to a single material", async () => {
    const first = at(
      (await listMaterials(server, session, {}, { limit: 1 })).body.data as MaterialRecord[],
      0,
      "a material",
    );
    const projection = encodeURIComponent(JSON.stringify({ fields: { formula: 1 } }));
    const res = await rawRequest(server, "GET", `${PREFIX}/materials/${first._id}?projection=${projection}`, {
      headers: { ...session },
    });
    expect(res.body.data).toEqual({ _id: first._id, formula: first.formula });
  });

  it("refuses POST on materials with 405", async () => {
    const res = await rawRequest(server, "POST", `${PREFIX}/materials`, { headers: { ...session } });
    expect(errorMessage(res, 405)).toMatch(/GET/);
  });

  it("pages with limit and skip sent as top-level parameters; tells where fields and sort belong", async () => {
    const res = await rawRequest(server, "GET", `${PREFIX}/materials?limit=10`, { headers: { ...session } });
    expect(res.body.data).toHaveLength(10);
    const sorted = await rawRequest(server, "GET", `${PREFIX}/materials?fields=1`, { headers: { ...session } });
    expect(errorMessage(sorted, 400)).toMatch(/inside the projection/);
  });
});

describe("unknown paths and versions", () => {
  it("answers an unknown path with a JSON 404", async () => {
    for (const path of [
      "/",
      "/favicon.ico",
      `${PREFIX}/other/nodes`,
      `${PREFIX}/jobs/a/b`,
      `${PREFIX}/materials/a/b`,
      "/api",
    ]) {
      const res = await rawRequest(server, "GET", path, { headers: { ...session } });
      expect(errorMessage(res, 404)).toMatch(/\/api\/2018-10-01/);
    }
  });

  it("answers another version segment with 404 naming the supported version", async () => {
    for (const version of ["2020-01-01", "v1", "2018-10-02"]) {
      const res = await rawRequest(server, "GET", `/api/${version}/materials`, { headers: { ...session } });
      const message = errorMessage(res, 404);
      expect(message).toContain(version);
      expect(message).toContain("2018-10-01");
    }
  });

  it("answers a malformed escape in the path with 400", async () => {
    const res = await rawRequest(server, "GET", `${PREFIX}/materials/%E0%A4%A`, { headers: { ...session } });
    expect(errorMessage(res, 400)).toMatch(/percent-escape/);
  });
});
