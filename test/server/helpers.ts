import { request } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { startServer, type ServerHandle, type StartServerOptions } from "../../src/server";

export const PREFIX = "/api/2018-10-01";

/** A JSend body as the server sends it. */
export interface Body {
  status: string;
  data?: any;
  message?: string;
  code?: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: Body;
}

/** Starts the real server on 127.0.0.1, port 0. */
export function startTestServer(options: StartServerOptions = {}): Promise<ServerHandle> {
  return startServer({ host: "127.0.0.1", port: 0, ...options });
}

/** A response with its body as it came over the wire (compressed or not). */
export interface BytesResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/** One GET with exactly these headers, the body as it came over the wire (not decoded). */
export function getBytes(server: ServerHandle, path: string, headers: Record<string, string>): Promise<BytesResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** The text of a body in the coding its Content-Encoding names (gzip, br, or none). */
export function decodeBody(res: BytesResponse): string {
  const coding = res.headers["content-encoding"];
  if (coding === "gzip") return gunzipSync(res.bytes).toString("utf8");
  if (coding === "br") return brotliDecompressSync(res.bytes).toString("utf8");
  if (coding !== undefined) throw new Error(`unexpected Content-Encoding ${String(coding)}`);
  return res.bytes.toString("utf8");
}

/**
 * Sends one request with the path exactly as given (no URL normalisation, unlike fetch), so
 * tests can send malformed escapes, `+` for spaces and oversized URLs.
 */
export function rawRequest(
  server: ServerHandle,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, method, path, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: Body;
        if (text === "" && res.statusCode === 304) {
          resolve({ status: 304, headers: res.headers, text, body: { status: "" } });
          return;
        }
        try {
          body = JSON.parse(text) as Body;
        } catch {
          reject(new Error(`${method} ${path.slice(0, 80)}: response is not JSON: ${text.slice(0, 200)}`));
          return;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

export interface Session {
  "X-Account-Id": string;
  "X-Auth-Token": string;
}

/** Logs in with a form body and returns the two credential headers. */
export async function login(server: ServerHandle, username = "demo", password = "demo"): Promise<Session> {
  const res = await rawRequest(server, "POST", `${PREFIX}/login`, {
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: `username=${encodeURIComponent(username)}&password=${encodeURIComponent(password)}`,
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  return res.body.data as Session;
}

/** GET /materials with JSON-encoded query and projection. */
export function listMaterials(
  server: ServerHandle,
  session: Session,
  query?: unknown,
  projection?: unknown,
): Promise<RawResponse> {
  const params: string[] = [];
  if (query !== undefined) params.push(`query=${encodeURIComponent(JSON.stringify(query))}`);
  if (projection !== undefined) params.push(`projection=${encodeURIComponent(JSON.stringify(projection))}`);
  const search = params.length > 0 ? `?${params.join("&")}` : "";
  return rawRequest(server, "GET", `${PREFIX}/materials${search}`, { headers: { ...session } });
}

/** Asserts the JSend error shape and returns the message. */
export function errorMessage(res: RawResponse, status: number): string {
  if (
    res.status !== status ||
    res.body.status !== "error" ||
    res.body.code !== status ||
    typeof res.body.message !== "string"
  ) {
    throw new Error(`expected a JSend error ${status}, got ${res.status} ${res.text.slice(0, 300)}`);
  }
  return res.body.message;
}
