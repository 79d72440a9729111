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
}

/** The client as its collections use it (see `Client` for each member). */
export interface Connection {
  readonly baseUrl: string;
  readonly identity: string;
  readonly defaultConcurrency: number;
  readonly keepsReads: boolean;
  getData<T = unknown>(path: string, options?: GetDataOptions<T>): Promise<T>;
  writeData(method: "PUT" | "PATCH" | "POST" | "DELETE", path: string, options?: { body?: unknown; signal?: AbortSignal }): Promise<unknown>;
  measureLink(signal?: AbortSignal): Promise<void>;
  keptBytes(path: string, search?: Record<string, string>): number | undefined;
  revalidate(path: string, search: Record<string, string> | undefined, etag: string, signal?: AbortSignal): Promise<boolean>;
}
