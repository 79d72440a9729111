import { MatframeError } from "../../errors";

/**
 * An error that becomes a JSend error response. Anything thrown while handling a request that is
 * not an `HttpError` is a bug in matframe and is answered with 500 (never with its message).
 * Thrown inside the local platform's handlers and answered there; a MatframeError like every
 * error of matframe's.
 */
export class HttpError extends MatframeError {
  override readonly code: string = "ERR_HTTP_ANSWER";
  override readonly name: string = "HttpError";

  constructor(
    /** The HTTP status to answer with (4xx for the client's mistakes). */
    readonly status: number,
    /** What was wrong and what to do, shown to the client as is. */
    message: string,
    /** Extra response headers, e.g. `Retry-After` or `Allow`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function badRequest(message: string): HttpError {
  return new HttpError(400, message);
}

export function unauthorized(message: string): HttpError {
  return new HttpError(401, message);
}

export function notFound(message: string): HttpError {
  return new HttpError(404, message);
}

export function methodNotAllowed(method: string, path: string, allowed: string[]): HttpError {
  return new HttpError(405, `${method} is not allowed on ${path}; use ${allowed.join(" or ")}.`, {
    Allow: allowed.join(", "),
  });
}

export function payloadTooLarge(limitBytes: number): HttpError {
  return new HttpError(413, `The request body is larger than ${limitBytes} bytes; send a smaller body.`);
}

export function uriTooLong(limitChars: number): HttpError {
  return new HttpError(
    414,
    `The request URL is longer than ${limitChars} characters; shorten the query (e.g. fewer $in values) or page with smaller requests.`,
  );
}

export function tooManyRequests(message: string, retryAfterSeconds: number): HttpError {
  return new HttpError(429, message, { "Retry-After": String(retryAfterSeconds) });
}

/** The JSend body of an error response. */
export function errorBody(status: number, message: string): { status: "error"; message: string; code: number } {
  return { status: "error", message, code: status };
}
