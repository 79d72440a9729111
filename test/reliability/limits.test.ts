import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type ServerHandle } from "../../src/server";
import { contractViolation, login, PREFIX, send, sendRaw, type Answer, type Session } from "./support/http";

// Every limit answers with a 4xx JSend error whose message names the limit and what to do,
// and a request just inside the limit still succeeds.

let server: ServerHandle;
let session: Session;

beforeAll(async () => {
  server = await startServer({ host: "127.0.0.1", port: 0, synthetic: 200 });
  session = await login(server.port);
});

afterAll(async () => {
  await server?.close();
});

/** GET /materials with the query JSON-encoded; commas left bare (legal in a query string) to fit more in a URL. */
async function query(value: unknown, projection?: unknown): Promise<Answer> {
  const encode = (v: unknown) => encodeURIComponent(JSON.stringify(v)).replace(/%2C/g, ",");
  const search = `query=${encode(value)}${projection === undefined ? "" : `&projection=${encode(projection)}`}`;
  return send(server.port, "GET", `${PREFIX}/materials?${search}`, { headers: { ...session } });
}

function expectRefused(res: Answer, status: number, message: RegExp): void {
  expect(contractViolation(res)).toBeUndefined();
  expect(res.status, res.text.slice(0, 300)).toBe(status);
  expect(res.body.message).toMatch(message);
}

function expectServed(res: Answer): void {
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  expect(res.body.status).toBe("success");
}

function nested(depth: number): unknown {
  let inner: unknown = { formula: "Si" };
  for (let i = 0; i < depth; i += 1) inner = { $and: [inner] };
  return inner;
}

describe("limits, each with a clear error", () => {
  it("request size: a login body over 8 KiB is 413, declared or streamed", async () => {
    const body = `username=demo&password=${"x".repeat(9000)}`;
    expectRefused(
      await send(server.port, "POST", `${PREFIX}/login`, {
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body,
      }),
      413,
      /larger than 8192 bytes.*smaller/,
    );
    // Without Content-Length (chunked), the limit is counted as the body arrives.
    const chunked = Buffer.from(
      `POST ${PREFIX}/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n` +
        `${(9000).toString(16)}\r\n${"y".repeat(9000)}\r\n0\r\n\r\n`,
    );
    expectRefused(await sendRaw(server.port, chunked), 413, /larger than 8192 bytes/);
    // Just inside the limit it is read (and the password is simply wrong).
    const inside = `username=demo&password=${"x".repeat(8000)}`;
    expect(
      (
        await send(server.port, "POST", `${PREFIX}/login`, {
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: inside,
        })
      ).status,
    ).toBe(401);
  });

  it("request size: a URL over 8192 characters is 414, oversized headers 431", async () => {
    expectRefused(await query({ name: "x".repeat(9000) }), 414, /longer than 8192 characters.*shorten/);
    const headers = { ...session, "X-Padding": "p".repeat(40_000) };
    expectRefused(await send(server.port, "GET", `${PREFIX}/materials`, { headers }), 431, /headers are larger than/);
  });

  it("query depth: deeper than 12 levels is 400 naming the limit; a nested query inside it works", async () => {
    expectRefused(await query(nested(30)), 400, /nested more than 12 levels.*flatten/);
    expectServed(await query(nested(3)));
    // JSON nested beyond what JSON.parse can take is the client's mistake too.
    const deep = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
    expect(
      (await send(server.port, "GET", `${PREFIX}/materials?query=${deep}`, { headers: { ...session } })).status,
    ).toBeGreaterThanOrEqual(400);
  });

  it("query size: more than 2000 values is 400 naming the limit", async () => {
    const zeros = (n: number) => Array.from({ length: n }, () => 0);
    expectRefused(
      await query({ a: { $nin: zeros(1000) }, b: { $nin: zeros(1000) }, c: { $nin: zeros(10) } }),
      400,
      /more than 2000 values.*split/,
    );
    expectServed(await query({ a: { $nin: zeros(900) }, b: { $nin: zeros(900) } }));
  });

  it("$in, $nin, $all and $or arrays: more than 1000 entries is 400 naming the limit", async () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => i);
    for (const op of ["$in", "$nin", "$all"]) {
      expectRefused(await query({ formula: { [op]: values(1001) } }), 400, /1001 entries; at most 1000/);
    }
    expectRefused(await query({ $or: Array.from({ length: 1001 }, () => ({})) }), 400, /at most 1000/);
    expectServed(await query({ formula: { $in: values(1000) } }));
  });

  it("regex length and complexity: 400 naming the limit or the construct", async () => {
    expectRefused(await query({ name: { $regex: "a".repeat(201) } }), 400, /201 characters long; at most 200/);
    expectServed(await query({ name: { $regex: "a".repeat(200) } }));
    expectRefused(await query({ name: { $regex: "(a+)+$" } }), 400, /exponential time.*Rewrite/);
    expectRefused(await query({ name: { $regex: "(x|xy)*z" } }), 400, /exponential time/);
    expectRefused(await query({ name: { $regex: "a*b*c*d*e" } }), 400, /4 unbounded quantifiers.*at most 3/);
    expectRefused(await query({ name: { $regex: "(.)\\1" } }), 400, /back-references/);
    expectRefused(
      await query({ name: { $regex: "^Si", $options: "g" } }),
      400,
      /\$options "g" is not supported; use any of i, m, s/,
    );
    expectServed(await query({ name: { $regex: "^si", $options: "i" } }));
  });

  it("projection: limit above 500, negative skip, too many sort keys or fields are 400 with the rule", async () => {
    expectRefused(await query({}, { limit: 501 }), 400, /limit must be an integer from 1 to 500/);
    expectRefused(await query({}, { skip: -1 }), 400, /skip must be a non-negative integer/);
    const manyKeys = (n: number, value: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));
    expectRefused(await query({}, { sort: manyKeys(17, 1) }), 400, /more than 16 keys/);
    expectRefused(await query({}, { fields: manyKeys(201, 1) }), 400, /more than 200 paths/);
    expectServed(await query({}, { sort: manyKeys(16, 1), limit: 500 }));
  });

  it("login form: over-long credentials are refused like a wrong password, without a 500", async () => {
    const res = await send(server.port, "POST", `${PREFIX}/login`, {
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `username=${"u".repeat(4000)}&password=${"p".repeat(4000)}`,
    });
    expectRefused(res, 401, /Wrong username or password/);
  });
});
