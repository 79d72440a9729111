// Answers kept for revalidation (the `cache` option): a GET whose answer is kept goes out with
// `If-None-Match`, and a 304 is answered with the kept body, the only way a kept body is ever
// used (RFC 9110 section 13.1.2). A 200 that carries an ETag is kept before it is handed on, so
// the next read finds it.
import type { IncomingHttpHeaders } from "node:http";
import { isJson } from "../parse";
import { type CachedResponse, type ResponseCache, cacheKey, keepOrForget } from "../response-cache";
import { type Controller, Forward, type Handler, type Interceptor, isSuccess } from "./forward";

/**
 * Keeps and revalidates the answers of GETs that name a `cacheScope` (the account whose answer it
 * is). A request that brings its own `if-none-match` (a revalidation of a read kept elsewhere)
 * gets the 304 as it is, and a 200 it gets is kept.
 */
export function revalidatingCache(cache: ResponseCache): Interceptor {
  return (dispatch) => (options, handler) => {
    const scope = options.matframe?.cacheScope;
    if (options.method !== "GET" || scope === undefined) return dispatch(options, handler);
    const key = cacheKey(String(options.origin) + options.path, scope);
    const headers = options.headers as Record<string, string> | undefined;
    if (headers?.["if-none-match"] !== undefined) return dispatch(options, new Keeper(handler, cache, key, undefined));
    cache.get(key).then(
      (kept) => {
        const conditional = kept ? { ...options, headers: { ...headers, "if-none-match": kept.etag } } : options;
        dispatch(conditional, new Keeper(handler, cache, key, kept));
      },
      // A store that cannot be read sends the request as if nothing were kept.
      () => dispatch(options, new Keeper(handler, cache, key, undefined)),
    );
    return true;
  };
}

class Keeper extends Forward {
  #confirmed = false;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  readonly #chunks: Buffer[] = [];

  constructor(
    next: Handler,
    private readonly cache: ResponseCache,
    private readonly key: string,
    private readonly kept: CachedResponse | undefined,
  ) {
    super(next);
  }

  override onResponseStart(c: Controller, status: number, headers: IncomingHttpHeaders, message?: string): void {
    this.#status = status;
    this.#headers = headers;
    if (status === 304 && this.kept) {
      this.#confirmed = true;
      super.onResponseStart(c, 200, headers, "OK");
      return;
    }
    super.onResponseStart(c, status, headers, message);
  }

  override onResponseData(c: Controller, chunk: Buffer): void {
    if (this.#confirmed) return;
    if (isSuccess(this.#status)) this.#chunks.push(chunk);
    super.onResponseData(c, chunk);
  }

  override onResponseEnd(c: Controller, trailers: IncomingHttpHeaders): void {
    if (this.#confirmed) {
      super.onResponseData(c, Buffer.from(this.kept!.text));
      super.onResponseEnd(c, trailers);
      return;
    }
    if (!isSuccess(this.#status)) {
      super.onResponseEnd(c, trailers);
      return;
    }
    const raw = { status: this.#status, headers: this.#headers, text: Buffer.concat(this.#chunks).toString("utf8") };
    // A body that is not JSON is refused by the transport: nothing to keep of it.
    const kept = isJson(raw) ? keepOrForget(this.cache, this.key, raw) : this.cache.delete(this.key);
    void kept.then(() => super.onResponseEnd(c, trailers));
  }
}
