import { type Agent, request } from "node:http";
import { connect } from "node:net";

export const PREFIX = "/api/2018-10-01";

/** One answer as the wire carried it; `body` is undefined when the text is not JSON. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

/** Credentials as POST /login returns them, ready to send as headers. */
export interface Session {
  "X-Account-Id": string;
  "X-Auth-Token": string;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** How long one request may take before the test calls it a hang. */
export const HANG_MS = 20_000;

/**
 * Sends one request with the path exactly as given (no URL normalisation, unlike fetch), so
 * malformed escapes and odd bytes reach the server as written. Rejects after `HANG_MS`.
 */
export function send(
  port: number,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string | Buffer; agent?: Agent; hangMs?: number } = {},
): Promise<Answer> {
  const hangMs = options.hangMs ?? HANG_MS;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method, path, headers: options.headers, agent: options.agent, timeout: hangMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parse(text) });
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () =>
      req.destroy(new Error(`${method} ${path.slice(0, 120)}: no answer within ${hangMs} ms (a hang)`)),
    );
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/**
 * Writes raw bytes as a whole request on a fresh socket and reads the answer until the server
 * closes it: for request lines Node's own client refuses to send (bytes >= 0x80, spaces, controls).
 */
export function sendRaw(port: number, bytes: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `raw request ${JSON.stringify(bytes.toString("latin1").slice(0, 120))}: no answer within ${HANG_MS} ms`,
        ),
      );
    }, HANG_MS);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", (error) => {
      // A reset after the answer was read is fine; without an answer it is a failure.
      if (chunks.length === 0) {
        clearTimeout(timer);
        reject(error);
      }
    });
    socket.on("close", () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString("utf8");
      const match = /^HTTP\/1\.[01] (\d{3})[^\r\n]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(raw);
      if (!match) {
        reject(
          new Error(
            `raw request ${JSON.stringify(bytes.toString("latin1").slice(0, 120))}: not an HTTP answer: ${JSON.stringify(raw.slice(0, 200))}`,
          ),
        );
        return;
      }
      // All three groups take part in every match: the defaults only satisfy the type.
      const [, status = "", head = "", rest = ""] = match;
      const headers: Record<string, string> = {};
      for (const line of head.split("\r\n")) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      // Only the first answer counts: garbage may have been read as a second request.
      const length = Number(headers["content-length"]);
      const text = Number.isInteger(length) ? Buffer.from(rest, "utf8").subarray(0, length).toString("utf8") : rest;
      resolve({ status: Number(status), headers, text, body: parse(text) });
    });
    // Half-close after the request, so a server waiting for more bytes answers and closes.
    socket.end(bytes);
  });
}

/** Logs in with a form body; throws unless the answer is 200. */
export async function login(port: number, username = "demo", password = "demo"): Promise<Session> {
  const res = await send(port, "POST", `${PREFIX}/login`, {
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username, password }).toString(),
  });
  if (res.status !== 200) throw new Error(`login as ${username} answered ${res.status}: ${res.text.slice(0, 200)}`);
  return res.body.data as Session;
}

/**
 * Percent-encodes like encodeURIComponent, but a lone UTF-16 surrogate (which
 * encodeURIComponent refuses) becomes its WTF-8 bytes, e.g. %ED%A0%80: invalid UTF-8 on the
 * wire, which is exactly what a hostile client may send.
 */
export function percentEncode(text: string): string {
  let out = "";
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    if (ch.length === 1 && code >= 0xd800 && code <= 0xdfff) {
      const bytes = [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
      out += bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join("");
    } else {
      out += encodeURIComponent(ch);
    }
  }
  return out;
}

/** The list path with `query` and `projection` given as JSON text (not re-encoded). */
export function materialsPath(queryText?: string, projectionText?: string): string {
  const params: string[] = [];
  if (queryText !== undefined) params.push(`query=${percentEncode(queryText)}`);
  if (projectionText !== undefined) params.push(`projection=${percentEncode(projectionText)}`);
  return `${PREFIX}/materials${params.length ? `?${params.join("&")}` : ""}`;
}

/**
 * Why an answer breaks the contract, or undefined when it keeps it: a JSend success with a
 * 200, or a JSend error whose `code` is its 4xx status and whose message says something.
 */
export function contractViolation(res: Answer, expectData: "array" | "object" | "any" = "any"): string | undefined {
  const body = res.body;
  if (body === undefined || body === null || typeof body !== "object")
    return `${res.status} with a body that is not JSON: ${res.text.slice(0, 200)}`;
  if (res.status === 200) {
    if (body.status !== "success") return `200 without status "success": ${res.text.slice(0, 200)}`;
    if (expectData === "array" && !Array.isArray(body.data)) return `200 whose data is not an array`;
    if (expectData === "object" && (typeof body.data !== "object" || body.data === null))
      return `200 whose data is not an object`;
    return undefined;
  }
  if (res.status < 400 || res.status > 499) return `status ${res.status}: ${res.text.slice(0, 300)}`;
  if (body.status !== "error") return `${res.status} without status "error": ${res.text.slice(0, 200)}`;
  if (body.code !== res.status) return `${res.status} whose code is ${String(body.code)}`;
  if (typeof body.message !== "string" || body.message.length < 10) return `${res.status} without a useful message`;
  if (/\n\s+at /.test(body.message)) return `${res.status} whose message holds a stack trace`;
  return undefined;
}
