import type { IncomingHttpHeaders } from "node:http";

/**
 * Statuses worth another attempt: the server or a proxy was overloaded or briefly down.
 * 413 (which ky also retries) is left out: our requests are GETs without a body.
 */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** First backoff step; doubles each attempt (0.5 s, 1 s, 2 s, ...), as openai-node does. */
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

/** A `Retry-After` longer than this is not waited for: the error is raised at once with the wait in it. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Delay before retry number `retry` (0 for the first retry): exponential backoff with
 * up to 25% jitter, so that many clients refused together do not return together.
 */
export function backoffDelayMs(retry: number, random: () => number = Math.random): number {
  const delay = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** retry);
  return Math.round(delay * (1 - 0.25 * random()));
}

/**
 * The wait a response asks for, in milliseconds: `retry-after-ms` (sent by some APIs),
 * else `Retry-After` in seconds or as an HTTP date (RFC 9110 §10.2.3). Undefined when
 * absent or unreadable.
 */
export function retryAfterMs(headers: IncomingHttpHeaders, now: number = Date.now()): number | undefined {
  const exact = first(headers["retry-after-ms"]);
  if (exact !== undefined && /^\d+(\.\d+)?$/.test(exact.trim())) return Math.round(Number(exact));
  const value = first(headers["retry-after"])?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Lets the event loop read its sockets before a write picks a connection. A server that closed
 * an idle keep-alive connection while this process was busy (a long synchronous notebook cell)
 * has sent its FIN, but the client reads it only in the event loop's poll phase: without this
 * the write went out on the dead connection and failed with "other side closed", though it
 * never reached the server. After two turns (the second immediate comes after a poll phase)
 * undici has seen the close, and the write goes out on a live or a new connection. undici does
 * this itself only for a connection's first reuse (GHSA-35p6-xmwp-9g52).
 */
export function settleIdleConnections(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** One signal that aborts when either does (either may be missing). */
export function mergeSignals(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (!a) return b;
  if (!b) return a;
  return AbortSignal.any([a, b]);
}
