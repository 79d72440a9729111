// What matframe's own rooms need of a client beyond its public members: the collections' writes,
// the record walker's link estimate and kept reads, the CLI's saved login. They sit behind this
// handle rather than on `Client`, so that the published class declares only what users call.
// No entry re-exports this file.
import { ValidationError } from "../errors";
import type { Connection, GetDataOptions } from "./connection";

/** `getData`'s options with the hooks a walk uses to pipeline and keep its pages. */
export interface ReadOptions<T> extends GetDataOptions<T> {
  /** Told the answer's validator (its `ETag`, or undefined without one) once it has arrived. */
  onValidator?: (etag: string | undefined) => void;
  /**
   * Told once a 2xx answer's body has arrived whole, before it is parsed: a walk sends its next
   * request then, so the link carries one page while the client parses another.
   */
  onReceived?: () => void;
}

/** The options of one write. */
export interface WriteDataOptions {
  body?: unknown;
  search?: Record<string, string>;
  signal?: AbortSignal;
}

/** A client's internals, as `Client` hands them over when it is made. */
export interface ClientInternals {
  /**
   * Who this client reads as, for keys that must differ between accounts (the response cache, a
   * resumable export's state): the account id, or a digest of a Bearer token (never the token).
   */
  readonly identity: string;
  /**
   * Pages in flight for walks that leave `concurrency` out: 3 on a near link, 6 on a far one, as
   * measured so far (see `LinkEstimate`). Read at each page, so a walk follows the estimate.
   */
  readonly defaultConcurrency: number;
  /**
   * Whether the client keeps whole reads in memory to confirm by their validators (`cache:
   * "memory"`), so that a re-run of the same read costs a revalidation of its answers.
   */
  readonly keepsReads: boolean;
  /** `getData` with the walk's hooks (`onValidator`, `onReceived`). */
  read<T>(path: string, options: ReadOptions<T>): Promise<T>;
  /**
   * An authenticated write (`PUT`, `PATCH`, `POST`, `DELETE` of `{baseUrl}/{path}`, with a JSON
   * body when given), returning the JSend `data`. Never retried unless the request surely did not
   * reach the server (the connection was refused): a write that may have been applied is not sent
   * twice. Every write of the collections goes through it.
   */
  writeData(method: "PUT" | "PATCH" | "POST" | "DELETE", path: string, options?: WriteDataOptions): Promise<unknown>;
  /** Times one request when the link is not yet known (see `Transport.measureLink`); never throws. */
  measureLink(signal?: AbortSignal): Promise<void>;
  /**
   * The size of the kept answer to `GET {baseUrl}/{path}?{search}` when the client has a cache
   * holding one (sending it again is a revalidation: a round trip, no body), else undefined.
   */
  keptBytes(path: string, search?: Record<string, string>): number | undefined;
  /**
   * Asks whether the answer to `GET {baseUrl}/{path}?{search}` still has the validator `etag`
   * (one conditional request, not retried): true on 304. A different answer is kept in the
   * response cache for the next read, so it does not cross the wire twice.
   */
  revalidate(
    path: string,
    search: Record<string, string> | undefined,
    etag: string,
    signal?: AbortSignal,
  ): Promise<boolean>;
  /** What `matframe login` saves: the address and the credentials (never a password). */
  savedCredentials(): { baseUrl: string; accountId: string; authToken: string };
}

// Keyed weakly, so a client that is dropped takes its internals with it.
const handles = new WeakMap<object, ClientInternals>();

/** Gives `client` its internals; `Client`'s constructor calls it once. */
export function attachInternals(client: object, internals: ClientInternals): void {
  handles.set(client, internals);
}

/**
 * The internals of a client that `Client` made.
 * @throws ValidationError when `client` is not one (an object that only has a client's shape).
 */
export function internalsOf(client: Connection): ClientInternals {
  const internals = handles.get(client);
  if (internals === undefined)
    throw new ValidationError(
      "client",
      "Expected a matframe Client (from Client.login, Client.fromEnv, Client.fromProfile or new Client); got an object that only has a client's shape.",
    );
  return internals;
}
