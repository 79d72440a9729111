// The order of the transport's interceptors, in one place. undici's `compose(a, b, c)` makes `c`
// the outermost: a request passes c, b, a, then the dispatcher; its answer comes back a, b, c.
import type { Dispatcher } from "undici";
import type { LinkEstimate } from "../link-estimate";
import type { ResponseCache } from "../response-cache";
import { errorBodyCap, receivedBodyCap } from "./body-caps";
import { revalidatingCache } from "./cache";
import { decompress } from "./decompress";
import type { Dispatch, Interceptor } from "./forward";
import { linkTiming } from "./link-timing";
import { retry } from "./retry";

export interface InterceptorSettings {
  /** Largest 2xx body accepted, as received and as decoded. */
  maxResponseBytes: number;
  estimate: LinkEstimate;
  /** Whether to ask for compressed bodies; undefined: as the link measures. */
  compression: boolean | undefined;
  cache?: ResponseCache;
  maxRetries: number;
  /** Each attempt's time limit, in ms. */
  timeoutMs: number;
  /** Attempts given up on while undici still holds them (see `retry`). */
  abandoned: Set<Promise<unknown>>;
}

/**
 * The transport's interceptors, innermost first:
 * 1. `receivedBodyCap`: a 2xx body over the cap as it comes off the wire is dropped at once;
 * 2. `decompress`: decoded (within the cap) once all its bytes are in;
 * 3. `errorBodyCap`: an error body is cut after its decoded first 64 KiB;
 * 4. `linkTiming`: asks for compression as the link says, and times the answer;
 * 5. `retry`: each attempt within its time limit, sent again as the retry policy says (each
 *    attempt passes 4 to 1 again, and is timed);
 * 6. `revalidatingCache` (with a cache): kept answers go out conditional, and come back whole
 *    (looked up once, whatever the attempts).
 */
export function transportInterceptors(s: InterceptorSettings): Interceptor[] {
  return [
    receivedBodyCap(s.maxResponseBytes),
    decompress(s.maxResponseBytes),
    errorBodyCap(),
    linkTiming(s.estimate, s.compression),
    retry({ maxRetries: s.maxRetries, timeoutMs: s.timeoutMs, abandoned: s.abandoned }),
    ...(s.cache ? [revalidatingCache(s.cache)] : []),
  ];
}

/** `dispatcher`'s dispatch with the interceptors composed onto it (undici's `compose`). */
export function composeOnto(dispatcher: Dispatcher, interceptors: Interceptor[]): Dispatch {
  const composed = dispatcher.compose(interceptors as Dispatcher.DispatcherComposeInterceptor[]);
  return composed.dispatch.bind(composed) as Dispatch;
}
