// What a collection and its record walker need of the client they read through. `Client`
// implements it; naming this interface instead of the class keeps `client.ts` (which makes
// collections) and the collections from importing each other.
import type { ResponseCheck } from "./transport/response-checks";

/** `client.getData(path, options)`. */
export interface GetDataOptions<T> {
  /** Query-string parameters (values are sent as given; JSON-encode them first where the API wants JSON). */
  search?: Record<string, string>;
  /** Aborts this request. */
  signal?: AbortSignal;
  /** Checks the JSend `data`; a failure becomes a `ResponseValidationError`. */
  check?: ResponseCheck<T>;
}

/**
 * The client as its collections use it (see `Client` for each member). What else they need of
 * it (writes, the link estimate, kept reads) is behind `internalsOf` (`client-internals.ts`).
 */
export interface Connection {
  /** The versioned base URL, e.g. `"http://127.0.0.1:4000/api/2018-10-01"`. */
  readonly baseUrl: string;
  /** An authenticated `GET {baseUrl}/{path}` with retries, returning the JSend `data` (see `Client.getData`). */
  getData<T = unknown>(path: string, options?: GetDataOptions<T>): Promise<T>;
}
