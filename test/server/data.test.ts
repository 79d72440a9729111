import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import bundled from "../../data/materials.json";
import { MaterialRecord } from "../../src/schemas";
import { DatasetError, ServerOptionsError } from "../../src/errors";
import { startServer } from "../../src/server";
import { listMaterials, login, rawRequest, PREFIX, startTestServer } from "./helpers";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "matframe-data-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function file(name: string, text: string): Promise<string> {
  const target = path.join(dir, name);
  await writeFile(target, text);
  return target;
}

describe("the bundled dataset", () => {
  it("holds the 29 standata materials as valid platform records with unique 17-character ids", () => {
    expect(bundled.length).toBe(29);
    for (const record of bundled) MaterialRecord.parse(record);
    const ids = bundled.map((r) => r._id);
    expect(new Set(ids).size).toBe(29);
    for (const id of ids) expect(id).toMatch(/^[23456789A-HJ-NP-Za-km-z]{17}$/);
    const sources = new Set(bundled.map((r) => r.external.source));
    expect(sources).toEqual(new Set(["Materials Project", "2dmatpedia"]));
  });

  it("has reduced formulas and volumes/densities that follow from lattice and masses", () => {
    const byExternal = new Map(bundled.map((r) => [r.external.id, r]));
    expect(byExternal.get("mp-2534")).toMatchObject({ formula: "GaAs", unitCellFormula: "GaAs" });
    expect(byExternal.get("mp-1143")).toMatchObject({ formula: "Al2O3", unitCellFormula: "Al4O6" });
    const silicon = byExternal.get("mp-149")!;
    const { a, b, c } = silicon.lattice;
    // FCC primitive cell: a = b = c, all angles 60 degrees, V = a^3 / sqrt(2).
    expect(a).toBeCloseTo(b, 5);
    const volume = (a * b * c) / Math.SQRT2;
    const prop = (name: string) => silicon.derivedProperties.find((p) => p.name === name)!.value as number;
    expect(prop("volume")).toBeCloseTo(volume, 4);
    // 2 Si atoms (28.085 g/mol each) in the cell.
    expect(prop("density")).toBeCloseTo((2 * 28.085) / (0.602214076 * volume), 4);
  });

  it("gives most, not all, materials a method with type and subtype", () => {
    const withMethod = bundled.filter((r) => "method" in r);
    expect(withMethod.length).toBeGreaterThan(bundled.length / 2);
    expect(withMethod.length).toBeLessThan(bundled.length);
    for (const r of withMethod) {
      expect((r as any).method.type).toBe("pseudopotential");
      expect(["us", "paw", "nc"]).toContain((r as any).method.subtype);
    }
  });
});

describe("--data files", () => {
  const records = [
    { _id: "b-2", name: "second", formula: "Si" },
    { _id: "a-1", name: "first", formula: "GaAs" },
  ];

  async function served(data: string | object[]) {
    const server = await startTestServer({ data });
    try {
      const session = await login(server);
      return (await listMaterials(server, session)).body.data;
    } finally {
      await server.close();
    }
  }

  it("serves a JSON array, sorted by _id", async () => {
    const data = await served(await file("array.json", JSON.stringify(records, null, 2)));
    expect(data).toEqual([records[1], records[0]]);
  });

  it("serves NDJSON, with blank lines and CRLF", async () => {
    const text = `${records.map((r) => JSON.stringify(r)).join("\r\n\r\n")}\r\n`;
    expect(await served(await file("records.ndjson", text))).toEqual([records[1], records[0]]);
  });

  it("serves records passed as an array", async () => {
    expect(await served(records)).toEqual([records[1], records[0]]);
  });

  it("adds synthetic materials to a user's data", async () => {
    const server = await startTestServer({ data: records, synthetic: 10 });
    try {
      expect(server.materialCount).toBe(12);
      const session = await login(server);
      const res = await listMaterials(server, session, { isSynthetic: true }, { limit: 100 });
      expect(res.body.data.length).toBe(10);
    } finally {
      await server.close();
    }
  });

  const bad: Array<[string, string | undefined, RegExp]> = [
    ["missing.json", undefined, /no such file/],
    ["empty.json", "  \n", /is empty/],
    ["broken.json", '[{"_id": "a"},', /not valid JSON/],
    ["broken.ndjson", '{"_id": "a"}\n{"_id": \n', /line 2, is not valid JSON/],
    ["noid.json", '[{"name": "x"}]', /record 1 has no valid "_id"/],
    ["numid.ndjson", '{"_id": "a"}\n{"_id": 5}\n', /record 2 has no valid "_id"/],
    ["dupe.json", '[{"_id": "a"}, {"_id": "a"}]', /repeats the _id "a"/],
    ["scalar.ndjson", '{"_id": "a"}\n42\n', /record 2 is not a JSON object/],
    ["object.json", '{"_id": "a", "x": [1,\n2]}', /line 1, is not valid JSON/],
  ];
  for (const [name, text, message] of bad) {
    it(`refuses ${name} with a clear DatasetError`, async () => {
      const target = text === undefined ? path.join(dir, name) : await file(name, text);
      const error = await startServer({ port: 0, data: target }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DatasetError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain(name);
    });
  }
});

describe("accounts and hosts", () => {
  it("refuses a non-loopback host with only the demo account", async () => {
    for (const host of ["0.0.0.0", "::", "192.168.1.10"]) {
      const error = await startServer({ host, port: 0 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ServerOptionsError);
      expect((error as Error).message).toBe(
        `Refusing to listen on ${host} with the built-in demo/demo account, which anyone could use. Give your own accounts (the users option), or listen on 127.0.0.1.`,
      );
    }
  });

  it("listens on any address with --user accounts, and then has no demo account", async () => {
    const server = await startServer({
      host: "0.0.0.0",
      port: 0,
      users: ["dora:dora-pw", { username: "eve", password: "e:v:e" }],
    });
    try {
      expect(server.baseUrl).toBe(`http://0.0.0.0:${server.port}/api/2018-10-01`);
      expect((await login(server, "dora", "dora-pw"))["X-Auth-Token"]).toBeTruthy();
      // Split at the first colon: the password may contain colons.
      expect((await login(server, "eve", "e:v:e"))["X-Auth-Token"]).toBeTruthy();
      const demo = await rawRequest(server, "POST", `${PREFIX}/login`, { body: "username=demo&password=demo" });
      expect(demo.status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it("names the teacher's page at the loopback address on a wildcard host, so this machine's browser opens it", async () => {
    for (const [host, loopback] of [
      ["0.0.0.0", "127.0.0.1"],
      ["::", "[::1]"],
    ] as const) {
      const server = await startServer({ host, port: 0, users: ["dora:dora-pw"], teacherPage: true, log: () => {} });
      try {
        // The served address stays as it is; only the teacher's is one a browser opens.
        expect(server.baseUrl).toBe(`http://${host.includes(":") ? `[${host}]` : host}:${server.port}/api/2018-10-01`);
        const page = `http://${loopback}:${server.port}/teacher?key=`;
        expect(server.teacherUrl?.slice(0, page.length)).toBe(page);
        const opened = await fetch(server.teacherUrl!, { redirect: "manual" });
        await opened.arrayBuffer();
        expect(opened.status, host).toBe(303);
      } finally {
        await server.close();
      }
    }
  });

  it("refuses a user name holding a control, bidirectional or separator character, and says which", async () => {
    const cases: Array<[string, string]> = [
      ["al\u202eice", "U+202E (a bidirectional control)"],
      ["bob\u0007", "U+0007 (a control character)"],
      ["carl\u0085os", "U+0085 (a control character)"],
      ["dora\u2028", "U+2028 (a line or paragraph separator)"],
      ["e\u200bve", "U+200B (an invisible formatting character)"],
      ["tab\tname", "U+0009 (a control character)"],
    ];
    for (const [name, which] of cases) {
      for (const users of [[`${name}:pw-123456`], [{ username: name, password: "pw-123456" }]]) {
        const error = await startServer({ port: 0, users, log: () => {} }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, JSON.stringify(name)).toBeInstanceOf(ServerOptionsError);
        const message = (error as Error).message;
        expect(message).toContain(`holds ${which}`);
        expect(message).toContain("letters, digits, spaces, dots, hyphens, apostrophes and @");
        // The name is shown escaped, never with the character itself; the password never.
        expect(message).not.toContain(name);
        expect(message).not.toContain("pw-123456");
      }
    }
  });

  it("keeps user names of letters in any script, digits, spaces, dots, hyphens, apostrophes and @", async () => {
    // ZWNJ (U+200C) is part of spelling in Persian and Indic scripts: kept.
    const names = ["Zoë O'Brien-Smith", "张伟", "dr.who@uni.example", "مریم\u200cرضایی", "user 2"];
    const server = await startServer({ port: 0, users: names.map((n) => ({ username: n, password: "pw-123456" })) });
    try {
      for (const name of names) expect((await login(server, name, "pw-123456"))["X-Auth-Token"], name).toBeTruthy();
    } finally {
      await server.close();
    }
  });

  it("refuses bad user specs and bad options", async () => {
    const cases: Array<[object, RegExp]> = [
      [{ users: ["nocolon"] }, /NAME:PASSWORD/],
      [{ users: [":pw"] }, /non-empty/],
      [{ users: ["a:"] }, /non-empty/],
      [{ users: ["a:1", "a:2"] }, /given twice/],
      [{ port: -1 }, /port/],
      [{ port: 70000 }, /port/],
      [{ synthetic: -5 }, /synthetic/],
      [{ synthetic: 1.5 }, /synthetic/],
    ];
    for (const [options, message] of cases) {
      const error = await startServer({ port: 0, ...options }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, JSON.stringify(options)).toBeInstanceOf(ServerOptionsError);
      expect((error as Error).message).toMatch(message);
    }
  });

  it("reports a port in use clearly", async () => {
    const first = await startTestServer();
    try {
      const error = await startServer({ port: first.port }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((error as Error).message).toMatch(/already in use/);
    } finally {
      await first.close();
    }
  });
});
