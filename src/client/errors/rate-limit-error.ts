import { ApiError, type ApiErrorDetails } from "./api-error";

/** 429: too many requests, still refused after the retries. */
export class RateLimitError extends ApiError {
  override readonly code: string = "ERR_RATE_LIMITED";
  override readonly name: string = "RateLimitError";
  /** How long the server asked to wait (from `Retry-After`), in milliseconds, when it said. */
  readonly retryAfterMs?: number;

  constructor(message: string, details: ApiErrorDetails & { retryAfterMs?: number }, options?: { cause?: unknown }) {
    super(message, details, options);
    this.retryAfterMs = details.retryAfterMs;
  }
}
