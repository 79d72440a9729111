import type { IncomingMessage } from "node:http";
import { badRequest, HttpError, payloadTooLarge } from "./http-errors";

/** Longest request URL accepted (414 beyond). */
export const MAX_URL_LENGTH = 8192;
/** Largest request body of a login or logout (413 beyond); writes have their own cap (record-rules.ts). */
export const MAX_BODY_BYTES = 8192;

/**
 * Decodes one query-string or form component: `+` is a space (HTML forms and Python's
 * `requests` send it), `%20` too. A malformed escape is the client's mistake: 400, not 500.
 */
export function decodeComponent(text: string, what: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    throw badRequest(
      `${what} has a malformed percent-escape; encode it with encodeURIComponent (or urllib.parse.quote).`,
    );
  }
}

/** Parses `a=1&b=2`; a parameter given twice is refused rather than silently picked. */
export function parseParams(search: string, what: string): Map<string, string> {
  const params = new Map<string, string>();
  if (search === "") return params;
  for (const pair of search.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const name = decodeComponent(eq === -1 ? pair : pair.slice(0, eq), what);
    const value = eq === -1 ? "" : decodeComponent(pair.slice(eq + 1), `${what} parameter "${name}"`);
    if (params.has(name)) throw badRequest(`The ${what} parameter "${name}" is given more than once; give it once.`);
    params.set(name, value);
  }
  return params;
}

/** A JSON parameter (`query`, `projection`), or undefined when absent or empty. */
export function parseJsonParam(params: Map<string, string>, name: string): unknown {
  const text = params.get(name);
  if (text === undefined || text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    // JSON.parse throws RangeError on absurd nesting; both are the client's mistake.
    const reason = error instanceof SyntaxError ? error.message : "it is nested too deeply";
    throw badRequest(
      `The ${name} parameter is not valid JSON (${reason}); send it JSON-encoded, e.g. ${name}={"formula":"Si"}.`,
    );
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Reads the whole body, refusing more than `limit` bytes with 413. */
export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<string> {
  const bytes = await readBytes(req, limit);
  try {
    return utf8.decode(bytes);
  } catch {
    throw badRequest("The request body is not valid UTF-8.");
  }
}

/** Reads the whole body as bytes (a file's, which need not be text), refusing more than `limit` with 413. */
export function readBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(payloadTooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on("data", (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(payloadTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on("error", () => {
      if (!failed) reject(new HttpError(400, "The request body could not be read completely."));
      failed = true;
    });
  });
}

/** Username and password from a form (`username=..&password=..`) or a JSON body. */
export function parseLoginBody(body: string, contentType: string | undefined): { username: string; password: string } {
  const isJson = /\bjson\b/i.test(contentType ?? "") || body.trimStart().startsWith("{");
  let fields: Record<string, unknown>;
  if (isJson) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw badRequest('The login body is not valid JSON; send {"username": "...", "password": "..."} or a form.');
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw badRequest('The login body must be a JSON object: {"username": "...", "password": "..."}.');
    }
    fields = parsed as Record<string, unknown>;
  } else {
    fields = Object.fromEntries(parseParams(body, "login form"));
  }
  const { username, password } = fields;
  if (typeof username !== "string" || username === "" || typeof password !== "string" || password === "") {
    throw badRequest(
      "Login needs a username and a password: send the form username=...&password=... or the same as JSON.",
    );
  }
  return { username, password };
}

/** A JSON object body (of a write); 400 naming `what` and showing `example` otherwise. */
export function parseJsonObjectBody(body: string, what: string, example: string): Record<string, unknown> {
  if (body.trim() === "")
    throw badRequest(`${what} is empty; send a JSON object such as ${example} with Content-Type: application/json.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message : "it is nested too deeply";
    throw badRequest(`${what} is not valid JSON (${reason}); send a JSON object such as ${example}.`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw badRequest(
      `${what} must be a JSON object such as ${example}, not ${Array.isArray(parsed) ? "an array" : parsed === null ? "null" : `a ${typeof parsed}`}.`,
    );
  }
  return parsed as Record<string, unknown>;
}
