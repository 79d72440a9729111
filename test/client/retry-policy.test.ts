import { describe, expect, it } from "vitest";
import { classifyFailure, type Failure } from "../../src/client/transport/failure";
import { nextStep, type StepInput } from "../../src/client/transport/retry-policy";

// The retry rules as a table, without a socket: what is sent again, after how long, and what
// never is. `random: () => 0` makes the backoff exact (0.5 s, 1 s, 2 s, ...).

const failure = (f: Failure): StepInput["outcome"] => ({ failure: f });
const refused: Failure = {
  kind: "connection",
  cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
  reach: "never-sent",
};
const unanswered: Failure = { kind: "connection", cause: new Error("other side closed"), reach: "unanswered" };
const timeout: Failure = { kind: "timeout", cause: undefined };
const step = (input: Partial<StepInput> & Pick<StepInput, "outcome">) =>
  nextStep({ method: "GET", attempt: 1, maxRetries: 2, timeouts: 0, random: () => 0, ...input });

describe("nextStep", () => {
  it("a read is sent again on a timeout, a broken connection and a body that does not decode, with a growing backoff", () => {
    expect(step({ outcome: failure(timeout), timeouts: 1 })).toEqual({ action: "retry", delayMs: 500 });
    expect(step({ outcome: failure(unanswered), attempt: 2 })).toEqual({ action: "retry", delayMs: 1000 });
    expect(step({ outcome: failure({ kind: "decode", cause: undefined }) })).toEqual({ action: "retry", delayMs: 500 });
    expect(step({ outcome: failure(timeout), attempt: 3 })).toEqual({ action: "fail" });
  });

  it("a read is sent again on 408, 429 and 5xx, after Retry-After when given (up to a minute)", () => {
    expect(step({ outcome: { status: 503, retryAfterMs: 2000 } })).toEqual({ action: "retry", delayMs: 2000 });
    expect(step({ outcome: { status: 429 } })).toEqual({ action: "retry", delayMs: 500 });
    expect(step({ outcome: { status: 503, retryAfterMs: 120_000 } })).toEqual({ action: "fail" });
    for (const status of [400, 401, 403, 404, 409, 422])
      expect(step({ outcome: { status } })).toEqual({ action: "fail" });
  });

  it("a write is sent again only when it never reached the server", () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"] as const) {
      expect(step({ method, outcome: failure(refused) })).toEqual({ action: "retry", delayMs: 500 });
      // The connection closed after the request went out: it may have been applied.
      expect(step({ method, outcome: failure(unanswered) })).toEqual({ action: "fail" });
      expect(step({ method, outcome: failure({ kind: "connection", cause: undefined, reach: "unknown" }) })).toEqual({
        action: "fail",
      });
      expect(step({ method, outcome: failure(timeout), timeouts: 1 })).toEqual({ action: "fail" });
      expect(step({ method, outcome: { status: 503, retryAfterMs: 0 } })).toEqual({ action: "fail" });
    }
    expect(step({ method: "POST", outcome: failure(refused), attempt: 3 })).toEqual({ action: "fail" });
  });

  it("a login: on a full queue (503 with Retry-After), once on a timeout, never after a close or a 401", () => {
    const login = { method: "POST", login: true } as const;
    expect(step({ ...login, outcome: { status: 503, retryAfterMs: 0 } })).toEqual({ action: "retry", delayMs: 0 });
    expect(step({ ...login, outcome: { status: 503 } })).toEqual({ action: "fail" });
    expect(step({ ...login, outcome: { status: 401 } })).toEqual({ action: "fail" });
    expect(step({ ...login, outcome: failure(timeout), timeouts: 1 })).toEqual({ action: "retry", delayMs: 500 });
    expect(step({ ...login, outcome: failure(timeout), timeouts: 2, attempt: 2 })).toEqual({ action: "fail" });
    expect(step({ ...login, outcome: failure(unanswered) })).toEqual({ action: "fail" });
    expect(step({ ...login, outcome: failure(refused) })).toEqual({ action: "retry", delayMs: 500 });
  });

  it("never: a proxy's refusal, an abort, a closed client, a request that cannot be sent, or maxRetries 0", () => {
    for (const f of [
      { kind: "proxy-refused", cause: undefined, status: 403 },
      { kind: "aborted", cause: undefined },
      { kind: "closed", cause: undefined },
      { kind: "invalid-request", cause: undefined },
      { kind: "too-large", cause: undefined, bytes: 1 },
    ] as Failure[]) {
      expect(step({ outcome: failure(f) })).toEqual({ action: "fail" });
    }
    expect(step({ outcome: failure(timeout), maxRetries: 0 })).toEqual({ action: "fail" });
  });
});

describe("classifyFailure: how far a request got", () => {
  const live = new AbortController().signal;
  const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
  it("refused, unanswered, or cut off in the answer", () => {
    expect(classifyFailure(coded("ECONNREFUSED"), undefined, live)).toMatchObject({
      kind: "connection",
      reach: "never-sent",
    });
    // Happy eyeballs: every address refused.
    expect(
      classifyFailure(
        Object.assign(new AggregateError([coded("ECONNREFUSED"), coded("ECONNREFUSED")]), { code: "ECONNREFUSED" }),
        undefined,
        live,
      ),
    ).toMatchObject({ reach: "never-sent" });
    expect(classifyFailure(coded("UND_ERR_SOCKET", "other side closed"), undefined, live)).toMatchObject({
      kind: "connection",
      reach: "unanswered",
    });
    expect(classifyFailure(coded("UND_ERR_SOCKET", "other side closed"), undefined, live, true)).toMatchObject({
      kind: "connection",
      reach: "unknown",
    });
  });
  it("a proxy's refusal, with its status", () => {
    expect(
      classifyFailure(coded("UND_ERR_ABORTED", "Proxy response (403) !== 200 when HTTP Tunneling"), undefined, live),
    ).toEqual(expect.objectContaining({ kind: "proxy-refused", status: 403 }));
    expect(
      classifyFailure(coded("UND_ERR_INVALID_ARG", "Proxy Authentication Required (407)"), undefined, live),
    ).toEqual(expect.objectContaining({ kind: "proxy-refused", status: 407 }));
  });
});
