import type { Projection, Query } from "../../schemas";
import type { PlatformRecord } from "../collection";

/** One list request of a walk: the query and projection to send, and the walk's signal. */
export type FetchPage = (request: { query: Query; projection: Projection }, signal?: AbortSignal) => Promise<PlatformRecord[]>;
