import { MatframeError } from "./matframe-error";

/** The client was logged out or closed, and refuses further requests. */
export class ClientClosedError extends MatframeError {
  override readonly code: string = "ERR_CLIENT_CLOSED";
  override readonly name: string = "ClientClosedError";
}
