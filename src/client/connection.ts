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
  /**
   * Told the answer's validator (its `ETag`, or undefined without one) once it has arrived.
   * @internal
   */
  onValidator?: (etag: string | undefined) => void;
  /**
   * Told once a 2xx answer's body has arrived whole, before it is parsed: a walk sends its next
   * request then, so the link carries one page while the client parses another.
   * @internal
   */
  onReceived?: () => void;
}

/**
 * The client as its collections use it (see `Client` for each member). The members `Client`
 * keeps internal are internal here too, so the published types stay those of `Client`.
 */
export interface Connection {
  /** The versioned base URL, e.g. `"http://127.0.0.1:4000/api/2018-10-01"`. */
  readonly baseUrl: string;
  /** An authenticated `GET {baseUrl}/{path}` with retries, returning the JSend `data` (see `Client.getData`). */
  getData<T = unknown>(path: string, options?: GetDataOptions<T>): Promise<T>;
  /** @internal */
  readonly identity: string;
  /** @internal */
  readonly defaultConcurrency: number;
  /** @internal */
  readonly keepsReads: boolean;
  /** @internal */
  writeData(
    method: "PUT" | "PATCH" | "POST" | "DELETE",
    path: string,
    options?: { body?: unknown; search?: Record<string, string>; signal?: AbortSignal },
  ): Promise<unknown>;
  /** @internal */
  measureLink(signal?: AbortSignal): Promise<void>;
  /** @internal */
  keptBytes(path: string, search?: Record<string, string>): number | undefined;
  /** @internal */
  revalidate(
    path: string,
    search: Record<string, string> | undefined,
    etag: string,
    signal?: AbortSignal,
  ): Promise<boolean>;
}
