import { badRequest } from "../http/http-errors";
import { parseJsonParam } from "../http/request-input";

/** The paging keys a client may give outside `projection`: bare in the URL, or inside the query dict. */
const PAGING_KEYS = ["limit", "skip"] as const;

/** Projection keys that need JSON, so they go inside the `projection` parameter. */
const PROJECTION_ONLY_PARAMS = ["fields", "sort"];

/** The parameters of a list request with a meaning of their own: everything else is a field to match. */
const LIST_PARAMS = new Set(["query", "projection", ...PAGING_KEYS, ...PROJECTION_ONLY_PARAMS]);

/** A list request's `query` and `projection`, as the filter and projection parsers take them. */
export interface ListParams {
  query: unknown;
  projection: unknown;
}

function orEmpty(value: unknown): unknown {
  return value === undefined ? {} : value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The `query` and `projection` of `GET /<collection>`, with the forms the platform's own
 * notebooks send besides the documented `query=<JSON>&projection=<JSON>` (the cloud answers them;
 * how it reads them is not documented, so this is the reading that answers what they ask):
 * - bare parameters, `?systemName=espresso-total-energy&limit=1`: each name other than `query`,
 *   `projection`, `limit` and `skip` is a field that must equal the (string) value, and `limit`
 *   and `skip` page as inside `projection`;
 * - `limit` (or `skip`) inside the query dict, `{"systemName": ..., "limit": 1}`: paging, not a
 *   field (no platform record has a field of those names).
 * A paging key given twice (in two of these places) is refused rather than silently picked.
 */
export function listParams(params: Map<string, string>): ListParams {
  for (const name of PROJECTION_ONLY_PARAMS) {
    if (params.has(name)) {
      throw badRequest(`"${name}" goes inside the projection parameter, e.g. projection={"${name}": ...}.`);
    }
  }
  const sentQuery = orEmpty(parseJsonParam(params, "query"));
  const sentProjection = orEmpty(parseJsonParam(params, "projection"));
  // Not objects: the parsers refuse them with their own messages.
  if (!isPlainObject(sentQuery) || !isPlainObject(sentProjection))
    return { query: sentQuery, projection: sentProjection };
  let query: Record<string, unknown> = sentQuery;
  const projection = sentProjection;
  const paging: Record<string, unknown> = {};
  const take = (key: string, value: unknown, where: string) => {
    if (key in paging || key in projection)
      throw badRequest(`"${key}" is given twice (${where} and elsewhere); give it once, inside projection.`);
    paging[key] = value;
  };
  for (const key of PAGING_KEYS) {
    if (key in query) {
      const { [key]: value, ...rest } = query;
      take(key, value, "in the query");
      query = rest;
    }
    const bare = params.get(key);
    if (bare === undefined) continue;
    // Said here in the words it was sent in: inside projection it would be named projection.limit.
    if (!/^\d{1,15}$/.test(bare))
      throw badRequest(
        `${key}=${JSON.stringify(bare.slice(0, 40))} as a URL parameter must be a whole number, e.g. ${key}=10.`,
      );
    take(key, Number(bare), "as a URL parameter");
  }
  const fields: Record<string, string> = {};
  for (const [name, value] of params) {
    if (LIST_PARAMS.has(name)) continue;
    if (name in query)
      throw badRequest(`"${name.slice(0, 60)}" is given both in the query and as a URL parameter; give it once.`);
    fields[name] = value;
  }
  return { query: { ...query, ...fields }, projection: { ...projection, ...paging } };
}
