import { describe, expect, it } from "vitest";
import { backoffDelayMs, retryAfterMs, sleep } from "../../src/client/transport/retry";
import { redact } from "../../src/client/transport/redact";

describe("retry timing rules", () => {
  it("backs off exponentially with at most 25% jitter, capped at 8 s", () => {
    expect(backoffDelayMs(0, () => 0)).toBe(500);
    expect(backoffDelayMs(1, () => 0)).toBe(1000);
    expect(backoffDelayMs(2, () => 0.999999)).toBe(Math.round(2000 * (1 - 0.25 * 0.999999)));
    expect(backoffDelayMs(10, () => 0)).toBe(8000);
  });

  it("reads Retry-After as seconds, as an HTTP date, and retry-after-ms", () => {
    const now = Date.parse("2024-01-01T00:00:00Z");
    expect(retryAfterMs({ "retry-after": "2" })).toBe(2000);
    expect(retryAfterMs({ "retry-after": "0.5" })).toBe(500);
    expect(retryAfterMs({ "retry-after": "Mon, 01 Jan 2024 00:00:03 GMT" }, now)).toBe(3000);
    expect(retryAfterMs({ "retry-after": "Sun, 31 Dec 2023 00:00:03 GMT" }, now)).toBe(0);
    expect(retryAfterMs({ "retry-after-ms": "250", "retry-after": "9" })).toBe(250);
    expect(retryAfterMs({ "retry-after": "soon" })).toBeUndefined();
    expect(retryAfterMs({})).toBeUndefined();
  });

  it("sleep rejects with the signal's reason when aborted", async () => {
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(pending).rejects.toThrow("stop");
  });

  it("redacts every secret occurrence", () => {
    expect(redact("token abc123 and abc123 again", ["abc123", undefined])).toBe(
      "token [redacted] and [redacted] again",
    );
  });
});
