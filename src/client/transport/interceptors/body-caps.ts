// Caps on what an answer may make the client hold: a wrong address or a hostile server must not
// make it keep an endless body in memory. A 2xx body is capped as received here, and as decoded
// by `decompress.ts` (zlib's own output limit, which stops a small bomb early); an error body is
// cut, not refused: only its message is wanted.
import { type Controller, Forward, type Handler, type Interceptor, headerValue, isSuccess } from "./forward";
import type { IncomingHttpHeaders } from "node:http";

/** An error body longer than this is cut: only its `message` is wanted. */
export const ERROR_BODY_LIMIT = 64 * 1024;

/** The code of the error a request is aborted with when its body passes the cap. */
export const TOO_LARGE_CODE = "MATFRAME_BODY_TOO_LARGE";

/** The abort reason for a body over the cap: `bytes` received (0 when announced too large). */
export function bodyTooLarge(bytes: number, limit: number): Error & { code: string; bytes: number } {
  return Object.assign(new Error(`the response body passed ${limit} bytes (${bytes} received)`), {
    code: TOO_LARGE_CODE,
    bytes,
  });
}

/**
 * Refuses a 2xx body over `limit` bytes as received: at once when its Content-Length says so,
 * else as soon as the bytes counted pass it. The request is aborted with `bodyTooLarge`.
 */
export function receivedBodyCap(limit: number): Interceptor {
  return (dispatch) => (options, handler) => dispatch(options, new ReceivedCap(handler, limit));
}

class ReceivedCap extends Forward {
  #capped = false;
  #over = false;
  #bytes = 0;

  constructor(
    next: Handler,
    private readonly limit: number,
  ) {
    super(next);
  }

  override onResponseStart(c: Controller, status: number, headers: IncomingHttpHeaders, message?: string): void {
    this.#capped = isSuccess(status);
    const announced = Number(headerValue(headers, "content-length"));
    if (this.#capped && Number.isFinite(announced) && announced > this.limit) {
      this.#over = true;
      c.abort(bodyTooLarge(0, this.limit));
      return;
    }
    super.onResponseStart(c, status, headers, message);
  }

  override onResponseData(c: Controller, chunk: Buffer): void {
    if (this.#over) return;
    if (this.#capped) {
      this.#bytes += chunk.length;
      if (this.#bytes > this.limit) {
        this.#over = true;
        c.abort(bodyTooLarge(this.#bytes, this.limit));
        return;
      }
    }
    super.onResponseData(c, chunk);
  }

  override onResponseEnd(c: Controller, trailers: IncomingHttpHeaders): void {
    if (!this.#over) super.onResponseEnd(c, trailers);
  }
}

/**
 * Cuts a non-2xx body (as decoded) once `limit` bytes have come: the answer ends there, and the
 * rest is not read (the connection is dropped, as a body left half-read must be).
 */
export function errorBodyCap(limit: number = ERROR_BODY_LIMIT): Interceptor {
  return (dispatch) => (options, handler) => dispatch(options, new ErrorBodyCap(handler, limit));
}

class ErrorBodyCap extends Forward {
  #cutting = false;
  #cut = false;
  #bytes = 0;

  constructor(
    next: Handler,
    private readonly limit: number,
  ) {
    super(next);
  }

  override onResponseStart(c: Controller, status: number, headers: IncomingHttpHeaders, message?: string): void {
    this.#cutting = !isSuccess(status);
    super.onResponseStart(c, status, headers, message);
  }

  override onResponseData(c: Controller, chunk: Buffer): void {
    if (this.#cut) return;
    super.onResponseData(c, chunk);
    if (!this.#cutting) return;
    this.#bytes += chunk.length;
    if (this.#bytes < this.limit) return;
    this.#cut = true;
    super.onResponseEnd(c, {});
    c.abort(Object.assign(new Error("error body cut at its limit"), { code: "MATFRAME_ERROR_BODY_CUT" }));
  }

  override onResponseEnd(c: Controller, trailers: IncomingHttpHeaders): void {
    if (!this.#cut) super.onResponseEnd(c, trailers);
  }

  override onResponseError(c: Controller, error: Error): void {
    if (!this.#cut) super.onResponseError(c, error);
  }
}
