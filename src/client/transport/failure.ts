// What went wrong with one attempt, and what the user is told: a failure is classified once (a
// pure function of the error undici gave and the signals), and the retry policy and the message
// both read that classification, never the error's text.
import {
  AbortError,
  ClientClosedError,
  ConnectionError,
  type MatframeError,
  ResponseTooLargeError,
  ResponseValidationError,
  TimeoutError,
} from "../../errors";
import { TOO_LARGE_CODE } from "./interceptors/body-caps";
import { ACCEPT_ENCODING, UNSUPPORTED_CODING_CODE, isDecodeError } from "./interceptors/decompress";
import { redact } from "./redact";

/**
 * How far a request got before its connection failed, as far as the client can prove it:
 * - `never-sent`: no connection was made (refused, no such host, no route): the server has not
 *   seen a byte of it;
 * - `unanswered`: the connection closed (or was reset) after the request went out and before any
 *   byte of an answer came back: the server may or may not have acted on it;
 * - `unknown`: anything else (cut off in the middle of the answer, say).
 */
export type Reach = "never-sent" | "unanswered" | "unknown";

/** One failed attempt, classified. */
export type Failure =
  | { kind: "timeout" | "aborted" | "closed" | "invalid-request" | "decode" | "unsupported-coding"; cause: unknown }
  | { kind: "connection"; cause: unknown; reach: Reach }
  /** The proxy refused to carry the request (a status), or closed a tunnel without answering (none). */
  | { kind: "proxy-refused"; cause: unknown; status?: number }
  | { kind: "too-large"; cause: unknown; bytes: number };

/** undici codes meaning a timeout rather than a broken connection. */
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT"]);
/** undici codes meaning our own pool was closed under the request. */
const CLOSED_CODES = new Set(["UND_ERR_DESTROYED", "UND_ERR_CLOSED"]);
/** undici's code for a request it refused to send (e.g. a header value with CR/LF). */
const INVALID_ARGUMENT_CODE = "UND_ERR_INVALID_ARG";
/** Failures that happen before a request can reach the server: nothing was received there. */
const NEVER_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
/** A connection closed or reset under a request: "other side closed", ECONNRESET, EPIPE. */
const CLOSED_UNDER_CODES = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);
/** The code `tunnel-pool.ts` gives a tunnel the proxy closed without answering CONNECT. */
export const TUNNEL_CLOSED_CODE = "MATFRAME_PROXY_TUNNEL_CLOSED";

/**
 * Classifies what undici threw for one attempt. `answered` is true once the response's headers
 * had arrived (a failure while reading the body): then the request surely reached the server.
 */
export function classifyFailure(
  cause: unknown,
  callerSignal: AbortSignal | undefined,
  timeout: AbortSignal,
  answered = false,
): Failure {
  const code = String((cause as { code?: unknown } | null)?.code);
  if (callerSignal?.aborted) return { kind: "aborted", cause: callerSignal.reason };
  if (timeout.aborted || TIMEOUT_CODES.has(code)) return { kind: "timeout", cause };
  // What the interceptors abort an answer with (interceptors/body-caps.ts, decompress.ts).
  if (code === TOO_LARGE_CODE)
    return { kind: "too-large", cause: undefined, bytes: (cause as { bytes: number }).bytes };
  if (code === UNSUPPORTED_CODING_CODE)
    return { kind: "unsupported-coding", cause: (cause as { coding?: unknown }).coding };
  // A body that does not decode: retried like a truncated one, then reported as what it is.
  if (isDecodeError(cause)) return { kind: "decode", cause };
  if (CLOSED_CODES.has(code)) return { kind: "closed", cause };
  const proxy = proxyRefusal(cause);
  if (proxy) return proxy;
  // Refused before anything was sent: trying again would fail the same way.
  if (code === INVALID_ARGUMENT_CODE) return { kind: "invalid-request", cause };
  const reach: Reach = neverSent(cause)
    ? "never-sent"
    : !answered && someCause(cause, (c) => CLOSED_UNDER_CODES.has(String(c.code)))
      ? "unanswered"
      : "unknown";
  return { kind: "connection", cause, reach };
}

/** undici's words for a proxy that refused a tunnel or its credentials, and ours for a tunnel closed unanswered. */
function proxyRefusal(cause: unknown): Failure | undefined {
  if (someCause(cause, (c) => c.code === TUNNEL_CLOSED_CODE)) return { kind: "proxy-refused", cause };
  const message = cause instanceof Error ? cause.message : "";
  const status =
    /Proxy response \((\d{3})\) !== 200 when HTTP Tunneling/.exec(message)?.[1] ??
    /Proxy Authentication Required \((407)\)/.exec(message)?.[1];
  return status ? { kind: "proxy-refused", cause, status: Number(status) } : undefined;
}

function someCause(cause: unknown, test: (c: { code?: unknown; errors?: unknown[] }) => boolean): boolean {
  for (
    let c = cause as { code?: unknown; cause?: unknown; errors?: unknown[] } | undefined, depth = 0;
    c && depth < 4;
    c = c.cause as typeof c, depth++
  ) {
    if (test(c)) return true;
  }
  return false;
}

function neverSent(cause: unknown): boolean {
  return someCause(cause, (c) => {
    if (NEVER_SENT_CODES.has(String(c.code))) return true;
    // Several addresses tried (happy eyeballs): refused on every one.
    const errors = c.errors;
    return (
      Array.isArray(errors) &&
      errors.length > 0 &&
      errors.every((e) => NEVER_SENT_CODES.has(String((e as { code?: unknown })?.code)))
    );
  });
}

/** An error's message with its code, once. */
export function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const code = (cause as { code?: unknown }).code;
  return typeof code === "string" && !cause.message.includes(code) ? `${cause.message} (${code})` : cause.message;
}

/** What a failure's message needs to know of the request and the client. */
export interface FailureContext {
  endpoint: string;
  /** The platform's origin, e.g. `http://127.0.0.1:4000`. */
  origin: string;
  /** Whether the request was a read (GET): a write that may have been applied is said so. */
  read: boolean;
  attempts: number;
  timeoutMs: number;
  maxResponseBytes: number;
  /** Strings never to show (password, token, a proxy URL's credentials). */
  secrets: readonly (string | undefined)[];
  /** The proxy the request went through, without its credentials; undefined when none. */
  proxy?: string;
  /** The variable that named the proxy (`HTTP_PROXY`, `https_proxy`...). */
  proxyVariable?: string;
}

/** The variable a proxy came from, or both names when it is not known. */
function proxyVariableOf(c: { proxyVariable?: string }): string {
  return c.proxyVariable ?? "HTTPS_PROXY/HTTP_PROXY";
}

/** The proxy as every message names it: its URL (without credentials) and the variable it came from. */
export function proxyNamed(c: { proxy?: string; proxyVariable?: string }): string {
  return c.proxy ? `the proxy ${c.proxy} (${proxyVariableOf(c)})` : `the proxy in ${proxyVariableOf(c)}`;
}

/** The error a failure is reported as: a pure function of the failure and its context. */
export function failureError(f: Failure, c: FailureContext): MatframeError {
  const { endpoint } = c;
  const tries = c.attempts > 1 ? ` (${c.attempts} attempts)` : "";
  switch (f.kind) {
    case "too-large":
      return new ResponseTooLargeError(
        `${endpoint} sent a body larger than maxResponseBytes (${c.maxResponseBytes} bytes; ${f.bytes} received when it was ` +
          `dropped). A page of 500 records is about 0.6 MB: check that baseUrl points at the platform API, or raise maxResponseBytes.`,
        endpoint,
        c.maxResponseBytes,
      );
    case "decode":
      return new ResponseValidationError(
        `${endpoint} sent a compressed body that does not decode${tries}: ${describeCause(f.cause)}. A proxy may have ` +
          `corrupted it; try again, and if it persists, tell the platform's operators.`,
        { endpoint, status: 200, issues: [{ code: "custom", path: [], message: "Body does not decode" }] },
        { cause: f.cause },
      );
    case "unsupported-coding":
      return new ResponseValidationError(
        `${endpoint} answered in the content coding ${JSON.stringify(String(f.cause))}, which matframe did not ask for ` +
          `(it accepts ${ACCEPT_ENCODING}); check proxies between you and the platform.`,
        { endpoint, status: 0, issues: [{ code: "custom", path: [], message: "Unsupported Content-Encoding" }] },
      );
    case "invalid-request":
      return new ResponseValidationError(
        `${endpoint} could not be sent: ${redact(describeCause(f.cause), c.secrets)}. A credential or header value holds characters ` +
          `a header cannot carry (a line break, say); if it came from a login response, that response was malformed.`,
        { endpoint, status: 0, issues: [{ code: "custom", path: [], message: "Invalid request header value" }] },
        { cause: f.cause },
      );
    case "aborted":
      return new AbortError(`${endpoint} was aborted by the caller's signal.`, endpoint, { cause: f.cause });
    case "closed":
      return new ClientClosedError(`${endpoint} was cut short: the client was closed while it was in flight.`, {
        cause: f.cause,
      });
    case "timeout":
      return new TimeoutError(
        `${endpoint} got no complete answer within ${c.timeoutMs} ms${tries}. ${
          c.proxy ? `The server, or ${proxyNamed(c)} the request went through, may be` : "The server may be"
        } overloaded or unreachable: try again later.`,
        endpoint,
        c.timeoutMs,
        { cause: f.cause, remedy: { orRaise: "timeout" } },
      );
    case "proxy-refused": {
      const proxy = proxyNamed(c);
      const host = new URL(c.origin).host;
      const what =
        f.status === undefined
          ? `${proxy} closed the tunnel to ${host} without answering`
          : f.status === 407
            ? `${proxy} refused its credentials (407 Proxy Authentication Required)`
            : `${proxy} refused to open a tunnel to ${host} (${f.status}; many proxies allow tunnels only to port 443)`;
      const remedy =
        f.status === 407
          ? `Check the user name and password in ${proxyVariableOf(c)} (http://user:password@proxy:port).`
          : `Ask the proxy's operators to allow ${host}, or name the platform's host in NO_PROXY to go around the proxy.`;
      return new ConnectionError(`${endpoint} on ${c.origin} failed: ${what}. ${remedy}`, endpoint, { cause: f.cause });
    }
    case "connection": {
      const said = redact(describeCause(f.cause), c.secrets);
      if (
        (f.cause as { code?: unknown } | null)?.code === "ERR_SSL_WRONG_VERSION_NUMBER" &&
        c.proxy?.startsWith("https:")
      ) {
        // The client's first TLS handshake is with the proxy: most proxies speak plain HTTP.
        return new ConnectionError(
          `${endpoint} on ${c.origin} failed${tries}: ${proxyNamed(c)} answered in plain HTTP, not TLS. Most proxies do: ` +
            `write its URL with http://, not https:// (the request to the platform is still encrypted inside the tunnel).`,
          endpoint,
          { cause: f.cause },
        );
      }
      if (
        (f.cause as { code?: unknown } | null)?.code === "ERR_SSL_WRONG_VERSION_NUMBER" &&
        c.origin.startsWith("https:")
      ) {
        return new ConnectionError(
          `${endpoint} on ${c.origin} failed${tries}: the server answered in plain HTTP, not TLS. Its address starts with ` +
            `http://, not https:// (with the platform's Python client's variables: API_SECURE=false).`,
          endpoint,
          { cause: f.cause },
        );
      }
      if (f.reach === "unanswered") {
        // The address is right (the server took the connection); what happened is a close.
        const applied = c.read
          ? "The server may be restarting, or closing idle connections sooner than the client's keepAliveTimeout; try again."
          : "The request had been sent, so it may have been applied: check (read the record back) before sending it again.";
        const closer = c.proxy ? `the server (or ${proxyNamed(c)} between)` : "the server";
        return new ConnectionError(
          `${endpoint} on ${c.origin} failed${tries}: ${closer} closed the connection before answering (${said}); it may have closed an ` +
            `idle connection just as the request went out, or stopped while handling it. ${applied}`,
          endpoint,
          { cause: f.cause },
        );
      }
      // Through a proxy every connection this client opens is to the proxy: one refused, or a name
      // that did not resolve, is the proxy's (the platform's own failures come back as its answers).
      if (c.proxy && f.reach === "never-sent") {
        const variable = proxyVariableOf(c);
        return new ConnectionError(
          `${endpoint} on ${c.origin} failed${tries}: ${proxyNamed(c)} could not be reached (${said}); the request did not ` +
            `leave for the platform. Check that ${variable} names a proxy that is running, or name the platform's host in ` +
            `NO_PROXY to go around it.`,
          endpoint,
          { cause: f.cause },
        );
      }
      const hint = c.proxy
        ? `, and that ${proxyNamed(c)} is (or that NO_PROXY names the platform's host to go around it)`
        : "";
      return new ConnectionError(
        `${endpoint} on ${c.origin} failed${tries}: ${said}. ` +
          `Check that ${c.origin} is the platform's address and that its server is running and reachable${hint}, then try again.`,
        endpoint,
        { cause: f.cause },
      );
    }
  }
}
