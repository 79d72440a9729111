import type { Projection, Query } from "../../schemas";
import type { PlatformRecord } from "../platform-record";

/** One list request of a walk: the query and projection to send. */
export interface PageRequest {
  query: Query;
  projection: Projection;
}

/**
 * Fetches one page of a walk (with the walk's signal). `onReceived` is told once the answer's
 * body has arrived, before it is parsed and checked.
 */
export interface FetchPage {
  (request: PageRequest, signal?: AbortSignal, onReceived?: () => void): Promise<PlatformRecord[]>;
  /**
   * The size of the client's kept answer to this request, when its cache holds one: fetching it
   * is a revalidation, which costs a round trip and no body. Undefined without a cache.
   */
  keptBytes?(request: PageRequest): number | undefined;
}
