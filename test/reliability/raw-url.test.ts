import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type ServerHandle } from "../../src/server";
import { contractViolation, login, PREFIX, send, sendRaw, type Answer, type Session } from "./support/http";
import { Figures } from "./support/report";

// Bytes a well-behaved client never sends: invalid UTF-8, malformed percent-escapes, raw bytes
// above 0x7F, controls and spaces in the request line. Each must get a JSend error (or a
// success), never a 500, a dropped connection without an answer, or a hang.

const figures = new Figures("raw-url");
const logLines: string[] = [];
let server: ServerHandle;
let session: Session;

beforeAll(async () => {
  server = await startServer({ host: "127.0.0.1", port: 0, synthetic: 200, log: (line) => logLines.push(line) });
  session = await login(server.port);
});

afterAll(async () => {
  figures.write();
  await server?.close();
});

function rawRequest(target: Buffer, extraHeaders = ""): Buffer {
  const head = `\r\nHost: 127.0.0.1\r\nX-Account-Id: ${session["X-Account-Id"]}\r\nX-Auth-Token: ${session["X-Auth-Token"]}\r\n${extraHeaders}Connection: close\r\n\r\n`;
  return Buffer.concat([Buffer.from("GET "), target, Buffer.from(" HTTP/1.1"), Buffer.from(head)]);
}

function check(res: Answer, what: string): Answer {
  figures.add("inputs");
  figures.add(`answered ${res.status}`);
  const violation = contractViolation(res);
  if (violation) throw new Error(`${what} -> ${violation}`);
  return res;
}

/** Invalid UTF-8 as percent-escapes: lone continuation, overlong, surrogate, beyond U+10FFFF, cut short. */
const BAD_ESCAPES = [
  "%FF",
  "%80",
  "%C0%AF",
  "%E0%80%AF",
  "%ED%A0%80",
  "%ED%BF%BF",
  "%F4%90%80%80",
  "%F8%88%80%80%80",
  "%E0%A4%A",
  "%C3",
  "%",
  "%%",
  "%G0",
  "%0",
  "%u0041",
  "%7B%22a%22%3A%FF%7D",
];

describe("malformed bytes in the URL and body", () => {
  it("answers every invalid UTF-8 or malformed percent-escape in query, projection and path with 400", async () => {
    const refusedWrongly: string[] = [];
    for (const badEscape of BAD_ESCAPES) {
      for (const target of [
        `${PREFIX}/materials?query=${badEscape}`,
        `${PREFIX}/materials?query=%7B%22name%22%3A%22${badEscape}%22%7D`,
        `${PREFIX}/materials?projection=${badEscape}`,
        `${PREFIX}/materials?${badEscape}=1`,
        `${PREFIX}/materials/${badEscape}`,
        `${PREFIX}/${badEscape}`,
        `/api/${badEscape}/materials`,
      ]) {
        const res = check(await send(server.port, "GET", target, { headers: { ...session } }), target);
        if (res.status !== 400 && res.status !== 404) refusedWrongly.push(`${target} -> ${res.status}`);
      }
    }
    expect(refusedWrongly).toEqual([]);
  });

  it("answers random raw bytes in the query string with a JSend answer, never a 500 or a hang", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 80 }), async (bytes) => {
        const target = Buffer.concat([Buffer.from(`${PREFIX}/materials?query=`), Buffer.from(bytes)]);
        check(
          await sendRaw(server.port, rawRequest(target)),
          `raw ${JSON.stringify(Buffer.from(bytes).toString("latin1"))}`,
        );
      }),
      { numRuns: 300, endOnFailure: true },
    );
  });

  it("answers random raw bytes anywhere in the path with a JSend answer", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 40 }),
        fc.constantFrom("/", `${PREFIX}/`, `${PREFIX}/materials/`, "/api/"),
        async (bytes, prefix) => {
          const target = Buffer.concat([Buffer.from(prefix), Buffer.from(bytes)]);
          check(
            await sendRaw(server.port, rawRequest(target)),
            `raw path ${JSON.stringify(target.toString("latin1"))}`,
          );
        },
      ),
      { numRuns: 200, endOnFailure: true },
    );
  });

  it("answers a login body that is not valid UTF-8 with 400", async () => {
    const bodies = [
      Buffer.from([0x75, 0x73, 0x65, 0x72, 0x6e, 0x61, 0x6d, 0x65, 0x3d, 0xff, 0xfe]),
      Buffer.from('{"username":"demo","password":"\xff"}', "latin1"),
      Buffer.from([0xed, 0xa0, 0x80]),
    ];
    for (const body of bodies) {
      for (const type of ["application/x-www-form-urlencoded", "application/json"]) {
        const res = check(
          await send(server.port, "POST", `${PREFIX}/login`, { headers: { "Content-Type": type }, body }),
          `login body ${body.toString("hex")}`,
        );
        expect(res.status).toBe(400);
        expect(res.body.message).toMatch(/UTF-8/);
      }
    }
  });

  it("logged no internal error and still serves", async () => {
    expect(logLines.filter((line) => /internal error| 5\d\d \d+ms( by .*)?$/.test(line))).toEqual([]);
    const res = await send(server.port, "GET", `${PREFIX}/materials?query=${encodeURIComponent('{"formula":"Si"}')}`, {
      headers: { ...session },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
  });
});
