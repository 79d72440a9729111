import type { z } from "zod";
import { MatframeError } from "./matframe-error";

/**
 * The server answered successfully but the body was not JSON, not JSend, or not the
 * expected shape. Not an HTTP error: the status was fine, the content was not.
 */
export class ResponseValidationError extends MatframeError {
  override readonly code: string = "ERR_RESPONSE_VALIDATION";
  override readonly name: string = "ResponseValidationError";
  /** Method and path of the request whose response was wrong. */
  readonly endpoint: string;
  /** The HTTP status of that response. */
  readonly status: number;
  /** What was wrong, as zod issues (one `custom` issue for a body that is not JSON). */
  readonly issues: z.core.$ZodIssue[];

  constructor(
    message: string,
    details: { endpoint: string; status: number; issues: z.core.$ZodIssue[] },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.endpoint = details.endpoint;
    this.status = details.status;
    this.issues = details.issues;
  }
}
