import { MatframeError } from "./matframe-error";

/** The caller's `signal` aborted the request (or the walk). `cause` is the signal's reason. */
export class AbortError extends MatframeError {
  override readonly code: string = "ERR_ABORTED";
  override readonly name: string = "AbortError";
  /** Method and path of the request that was aborted, when one was in flight. */
  readonly endpoint?: string;

  constructor(message: string, endpoint?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.endpoint = endpoint;
  }
}
