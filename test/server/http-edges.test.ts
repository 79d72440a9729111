import { connect } from "node:net";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { listMaterials, login, PREFIX, rawRequest, startTestServer, type Session } from "./helpers";

let server: ServerHandle;
let session: Session;
beforeAll(async () => {
  server = await startTestServer();
  session = await login(server);
});
afterAll(() => server.close());

/** A HEAD request: status, headers and the bytes of body received (there must be none). */
function head(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, method: "HEAD", path, headers }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => (bytes += chunk.length));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Sends `text` on a fresh connection and returns everything the server sends until it closes it. */
function rawExchange(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1", () => socket.write(text));
    let received = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => (received += chunk));
    socket.on("close", () => resolve(received));
    socket.on("error", reject);
  });
}

describe("HTTP edges", () => {
  it("HEAD on the list and on one material answers like GET, without a body", async () => {
    const headers = { ...session, "Accept-Encoding": "identity" };
    const get = await rawRequest(server, "GET", `${PREFIX}/materials`, { headers });
    const listed = await head(`${PREFIX}/materials`, headers);
    expect(listed.status).toBe(200);
    expect(listed.bytes).toBe(0);
    expect(listed.headers["content-type"]).toBe(get.headers["content-type"]);
    expect(Number(listed.headers["content-length"])).toBe(Buffer.byteLength(get.text));
    expect(listed.headers.etag).toBe(get.headers.etag);
    const id = (await listMaterials(server, session, {}, { fields: { _id: 1 }, limit: 1 })).body.data[0]._id;
    const one = await head(`${PREFIX}/materials/${id}`, headers);
    expect(one.status).toBe(200);
    expect(one.bytes).toBe(0);
    // A HEAD is still checked like its GET.
    expect((await head(`${PREFIX}/materials`)).status).toBe(401);
  });

  it("HEAD does not log out, and 405 answers name HEAD where GET is allowed", async () => {
    const refused = await head(`${PREFIX}/logout`, { ...session });
    expect(refused.status).toBe(405);
    expect(refused.headers.allow).toBe("GET, POST");
    expect((await listMaterials(server, session, {}, { limit: 1 })).status).toBe(200);
    const wrong = await rawRequest(server, "POST", `${PREFIX}/materials`, { headers: { ...session } });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe("GET, HEAD");
  });

  it("a request without Host gets a JSend 400 that says what is missing", async () => {
    const answer = await rawExchange(`GET ${PREFIX}/materials HTTP/1.1\r\nConnection: close\r\n\r\n`);
    const [head, body = ""] = answer.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toMatch(/content-type: application\/json/i);
    const parsed = JSON.parse(body);
    expect(parsed).toMatchObject({ status: "error", code: 400 });
    expect(parsed.message).toMatch(/no Host header/);
    // HTTP/1.0 has no Host requirement.
    const old = await rawExchange(
      `POST ${PREFIX}/login HTTP/1.0\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 27\r\n\r\nusername=demo&password=demo`,
    );
    expect(old).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("keeps idle connections for 65 s and says so, so clients close them first", async () => {
    const res = await rawRequest(server, "GET", `${PREFIX}/materials?projection=${encodeURIComponent('{"limit":1}')}`, {
      headers: { ...session, Connection: "keep-alive" },
    });
    expect(res.headers["keep-alive"]).toBe("timeout=65");
  });
});
