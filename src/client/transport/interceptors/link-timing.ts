// The link's timing, and the compression it decides: each request asks for compressed bodies
// unless the link is known to be near (or the client says), and each answer's time to its first
// byte refines the estimate (`LinkEstimate`).
import type { IncomingHttpHeaders } from "node:http";
import type { LinkEstimate } from "../link-estimate";
import { ACCEPT_ENCODING } from "./decompress";
import { type Controller, Forward, type Handler, type Interceptor, isSuccess } from "./forward";

/**
 * Sets `accept-encoding` (a header the request gives itself wins) from `compression`, or from
 * the estimate when it is undefined, and times every answer but a login's into `estimate`: a
 * non-2xx one at its headers, a 2xx one once its body has come whole (a body refused or cut off
 * says nothing of the link). The headers of the transport's requests are plain objects.
 */
export function linkTiming(estimate: LinkEstimate, compression: boolean | undefined): Interceptor {
  return (dispatch) => (options, handler) => {
    const encoding = (compression ?? estimate.compression) ? ACCEPT_ENCODING : "identity";
    const headers = { "accept-encoding": encoding, ...(options.headers as Record<string, string> | undefined) };
    const timed = { ...options, headers };
    // A login's answer waits for the password hash, so it says nothing of the link.
    if (options.matframe?.login) return dispatch(timed, handler);
    return dispatch(timed, new Timing(handler, estimate, performance.now()));
  };
}

class Timing extends Forward {
  #firstByteMs = -1;

  constructor(
    next: Handler,
    private readonly estimate: LinkEstimate,
    private readonly sent: number,
  ) {
    super(next);
  }

  override onResponseStart(c: Controller, status: number, headers: IncomingHttpHeaders, message?: string): void {
    const firstByteMs = performance.now() - this.sent;
    if (isSuccess(status)) this.#firstByteMs = firstByteMs;
    else this.estimate.observe(firstByteMs);
    super.onResponseStart(c, status, headers, message);
  }

  override onResponseEnd(c: Controller, trailers: IncomingHttpHeaders): void {
    if (this.#firstByteMs >= 0) this.estimate.observe(this.#firstByteMs);
    super.onResponseEnd(c, trailers);
  }
}
