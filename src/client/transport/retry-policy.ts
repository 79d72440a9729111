// Whether to send a request again, and when: a pure function of what happened, so that the
// rules can be read in one place and tested without a socket. The loop that sends lives in
// `transport.ts`; the failures it classifies come from `failure.ts`.
import type { Failure } from "./failure";
import { MAX_RETRY_AFTER_MS, RETRYABLE_STATUSES, backoffDelayMs } from "./retry";

/** What one attempt ended with: a failure without an answer, or a status that is not a success. */
export type AttemptOutcome = { failure: Failure } | { status: number; retryAfterMs?: number };

export interface StepInput {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** A login: safe to repeat (it only makes another token), but a wrong password must not be tried twice. */
  login?: boolean;
  /** 1 for the first attempt. */
  attempt: number;
  maxRetries: number;
  /** Timeouts so far, this attempt's included. */
  timeouts: number;
  outcome: AttemptOutcome;
  /** For the backoff's jitter. @default Math.random */
  random?: () => number;
}

/** Send again after `delayMs`, or give up and report the outcome. */
export type Step = { action: "retry"; delayMs: number } | { action: "fail" };

const FAIL: Step = { action: "fail" };

/**
 * The next step after a failed attempt:
 * - a read (GET) is sent again on a timeout, a broken connection, a body that does not decode,
 *   and on 408/429/5xx (after `Retry-After` when the server says how long, up to a minute);
 * - a write (POST, PUT, PATCH, DELETE) only when it provably never reached the server (no
 *   connection was made): one that may have been applied is never sent twice;
 * - a login when it never reached the server, on 503 with `Retry-After` (a full login queue,
 *   refused before the password was looked at), and once on a timeout (a class logging in at
 *   once on one laptop); never after a 401;
 * - never on a refusal by a proxy, a closed client, an abort or a request that cannot be sent;
 * and never beyond `maxRetries`.
 */
export function nextStep(input: StepInput): Step {
  const { attempt, maxRetries, outcome } = input;
  if (attempt > maxRetries) return FAIL;
  const backoff = (): Step => ({ action: "retry", delayMs: backoffDelayMs(attempt - 1, input.random) });
  if ("failure" in outcome) {
    const f = outcome.failure;
    if (f.kind === "connection" && f.reach === "never-sent") return backoff();
    if (input.login) return f.kind === "timeout" && input.timeouts <= 1 ? backoff() : FAIL;
    if (input.method !== "GET") return FAIL;
    return f.kind === "timeout" || f.kind === "connection" || f.kind === "decode" ? backoff() : FAIL;
  }
  const wait = outcome.retryAfterMs;
  if (wait !== undefined && wait > MAX_RETRY_AFTER_MS) return FAIL;
  const retryable = input.login
    ? outcome.status === 503 && wait !== undefined
    : input.method === "GET" && RETRYABLE_STATUSES.has(outcome.status);
  if (!retryable) return FAIL;
  return wait !== undefined ? { action: "retry", delayMs: wait } : backoff();
}
