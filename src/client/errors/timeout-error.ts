import { MatframeError } from "./matframe-error";

/** An attempt took longer than the `timeout` option, on every attempt allowed. */
export class TimeoutError extends MatframeError {
  override readonly code: string = "ERR_TIMEOUT";
  override readonly name: string = "TimeoutError";
  /** Method and path of the request that timed out. */
  readonly endpoint: string;
  /** The per-attempt timeout, in milliseconds. */
  readonly timeoutMs: number;

  constructor(message: string, endpoint: string, timeoutMs: number, options?: { cause?: unknown }) {
    super(message, options);
    this.endpoint = endpoint;
    this.timeoutMs = timeoutMs;
  }
}
