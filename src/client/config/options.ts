import type { CacheSetting } from "../transport/response-cache";
import type { Dispatcher } from "undici";
import type { Fields, Projection, Query, Sort } from "../../schemas";

/** Transport settings shared by `new Client(...)` and `Client.login(...)`. */
export interface TransportSettings {
  /**
   * The platform's address: the host (`https://platform.example.org`) or the versioned base
   * (`https://platform.example.org/api/2018-10-01`); the version segment is added when missing.
   * @example "http://127.0.0.1:4000"
   */
  baseUrl: string;
  /**
   * Milliseconds one attempt may take, from sending the request to the last byte of the body.
   * A retried request gets a fresh `timeout` per attempt.
   * @default 30000
   */
  timeout?: number;
  /**
   * Extra attempts for a GET that failed on the network, timed out, or got 408, 429, 500,
   * 502, 503 or 504. The login POST is never retried.
   * @default 2
   */
  maxRetries?: number;
  /**
   * Aborts every request of this client when it fires (merged with each call's own `signal`).
   * @example AbortSignal.timeout(600_000)
   */
  signal?: AbortSignal;
  /**
   * The `User-Agent` header.
   * @default "matframe/<version> node/<version>"
   */
  userAgent?: string;
  /**
   * An undici dispatcher (`Agent`, `Pool`, `MockAgent`, a proxy agent, ...) to send requests
   * through instead of the client's own pool. The client never closes a dispatcher it was given.
   * The client's interceptors (body caps, decompression, link timing, the cache) are composed
   * onto it with its `compose()` (undici 7), which leaves the dispatcher itself as it was.
   * Without one, the proxy variables are honoured: `HTTPS_PROXY` / `HTTP_PROXY` (or lower-case)
   * through undici's `EnvHttpProxyAgent`, with `NO_PROXY` naming hosts to reach directly.
   * @default the client's own pool (through the environment's proxy when one is set)
   */
  dispatcher?: Dispatcher;
  /**
   * Most keep-alive connections the client's own pool opens to the server (opened only as
   * needed: a walk with 3 pages in flight uses 3).
   * @default 8
   */
  connections?: number;
  /**
   * Largest response body accepted, in bytes, counted while it streams in. A bigger one (or an
   * endless one) is dropped with `ResponseTooLargeError` and not retried.
   * @default 67108864 (64 MiB; a page of 500 whole records is about 0.6 MB)
   */
  maxResponseBytes?: number;
  /**
   * Keep list and read responses that carry an `ETag`, and revalidate them (`If-None-Match`) the
   * next time the same request is sent: an unchanged page then costs a round trip and no body.
   * `"memory"` is shared by the clients of one process (a re-run notebook cell that makes a new
   * client still finds it); `{ dir }` survives kernel restarts (created 0700: it holds the
   * account's records). A kept body is used only after the server answers 304, so nothing stale
   * is ever served, and a response without a validator is never kept.
   * @default undefined (off)
   * @example new Client({ ...credentials, cache: { dir: ".matframe-cache" } })
   */
  cache?: CacheSetting;
  /**
   * Ask for compressed bodies (`Accept-Encoding: br, gzip, deflate`) and decode them. Over the
   * internet this moves about 7x fewer bytes; on this machine it only costs CPU on both sides.
   * By default the client follows the link as it measures it, not its hostname: compressed
   * until an answer shows a near link (its first byte within 20 ms, as from a server on this
   * machine), then not. A loopback address that forwards to a distant platform (an SSH tunnel,
   * `kubectl port-forward`) so keeps compression. Bandwidth is not measured: for a tunnel under
   * 20 ms to a narrow line, say `true`.
   * @default follows the measured link
   */
  compression?: boolean;
}

/** `new Client(options)`: credentials from the account preferences, or from a previous login. */
export interface ClientOptions extends TransportSettings {
  /** Sent as `X-Account-Id` (with `authToken`). */
  accountId?: string;
  /** Sent as `X-Auth-Token` (with `accountId`); never printed, logged or put in an error. */
  authToken?: string;
  /**
   * An OIDC access token, sent as `Authorization: Bearer ...` instead of the id/token pair, as the
   * platform's own client does with `OIDC_ACCESS_TOKEN`; never printed, logged or put in an error.
   */
  accessToken?: string;
}

/** `Client.login(options)`. */
export interface LoginOptions extends TransportSettings {
  username: string;
  /** Sent once in the login form; never printed, logged or put in an error. */
  password: string;
}

/** `collection.list(options)`: exactly one request. */
export interface ListOptions {
  /**
   * A MongoDB-style query document.
   * @default {}
   * @example { formula: "Si" }
   */
  query?: Query;
  /**
   * `fields`, `sort`, `skip` and `limit`, sent as the `projection` parameter.
   * @example { fields: { formula: 1 }, sort: { formula: 1 }, limit: 100 }
   */
  projection?: Projection;
  /** Aborts this request. */
  signal?: AbortSignal;
}

/**
 * Progress of a walk, a table read or an export, after each page: `onPage` of `iterate`/`pages`
 * and `onProgress` of `toDataFrame` and the exports all receive it.
 */
export interface Progress {
  /** Pages received so far, this one included. */
  readonly pages: number;
  /** Records so far, this page's included (after any duplicates were dropped). */
  readonly items: number;
  /** Bytes written so far (UTF-8); exports only. */
  readonly bytes?: number;
}

/** A record an offset walk saw twice (see `IterateOptions.onDuplicate`). */
export interface DuplicateInfo {
  id: string;
  /** 1-based page on which it came again. */
  page: number;
}

/** `collection.iterate(options)` and `collection.pages(options)`. */
export interface IterateOptions {
  /**
   * A MongoDB-style query document.
   * @default {}
   * @example { "lattice.type": "FCC" }
   */
  query?: Query;
  /**
   * Which fields each record carries: `{ path: 1 }` to include, `{ path: 0 }` to exclude.
   * @default every field
   * @example { formula: 1, "lattice.a": 1 }
   */
  fields?: Fields;
  /**
   * Sort keys in priority order. Offset paging appends `_id` as the last key so pages are
   * stable; keyset paging always sorts by `_id` and refuses any other sort.
   * @example { formula: 1 }
   */
  sort?: Sort;
  /**
   * Records per request, an integer from 1 to 500 (the platform's largest `limit`).
   * @default 500
   */
  pageSize?: number;
  /**
   * Stop after this many records.
   * @default no limit
   */
  maxItems?: number;
  /**
   * `"offset"`: `limit=N`, then `skip=N`, ... as the specification says, several pages in
   * flight. `"keyset"`: sort by `_id` and ask for `_id > last` each time: immune to records
   * added or removed during the walk and as cheap for the last page as for the first, but
   * one page at a time.
   * @default "offset"
   */
  paging?: "offset" | "keyset";
  /**
   * Offset pages in flight at once (records are still yielded in order). Keyset paging
   * always has one page in flight.
   * @default follows the measured link: 3 when near (a server on this machine), 6 when far;
   *   before the client's first answer, 3 for a loopback address and 6 for any other
   */
  concurrency?: number;
  /** Aborts the walk: the pending iteration rejects with `AbortError`. */
  signal?: AbortSignal;
  /** Called after each page, before its records are yielded. */
  onPage?: (progress: Progress) => void;
  /**
   * Offset paging only. A record seen twice means the collection changed during the walk
   * (so records may also have been missed). Without this callback the walk throws
   * `DuplicateRecordError`; with it, the repeat is dropped and reported here and the walk
   * goes on. Use `paging: "keyset"` for collections that change while you read them.
   */
  onDuplicate?: (info: DuplicateInfo) => void;
}
