import type { Material, Projection, Query } from "../../schemas";

/** One list request of a walk: the query and projection to send, and the walk's signal. */
export type FetchPage = (request: { query: Query; projection: Projection }, signal?: AbortSignal) => Promise<Material[]>;
