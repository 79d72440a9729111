import type { IncomingHttpHeaders } from "node:http";
import { MatframeError } from "./matframe-error";

/** What every HTTP error response carries. */
export interface ApiErrorDetails {
  /** The HTTP status the server answered. */
  status: number;
  /** Method and path, e.g. `GET /api/2018-10-01/materials`; never the query string. */
  endpoint: string;
  /** The server's own `message`, when its body had one. */
  serverMessage?: string;
  /** The response headers. */
  headers?: IncomingHttpHeaders;
}

/**
 * The server answered with an HTTP error status. The subclasses name the common
 * statuses; an `ApiError` that is none of them carries a status they do not cover.
 */
export class ApiError extends MatframeError {
  override readonly code: string = "ERR_API";
  override readonly name: string = "ApiError";
  readonly status: number;
  readonly endpoint: string;
  readonly serverMessage?: string;
  readonly headers?: IncomingHttpHeaders;

  constructor(message: string, details: ApiErrorDetails, options?: { cause?: unknown }) {
    super(message, options);
    this.status = details.status;
    this.endpoint = details.endpoint;
    this.serverMessage = details.serverMessage;
    this.headers = details.headers;
  }
}
