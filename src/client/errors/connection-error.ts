import { MatframeError } from "./matframe-error";

/** The server could not be reached, or the connection broke before the response was complete. */
export class ConnectionError extends MatframeError {
  override readonly code: string = "ERR_CONNECTION";
  override readonly name: string = "ConnectionError";
  /** Method and path of the request that failed. */
  readonly endpoint: string;

  constructor(message: string, endpoint: string, options?: { cause?: unknown }) {
    super(message, options);
    this.endpoint = endpoint;
  }
}
