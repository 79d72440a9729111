import { notFound } from "../http/http-errors";
import { makeFieldSelector, parseProjection, recordProjection } from "../query/projection";
import { validateQuery } from "../query/query-filter";
import type { Reply, RequestInfo, ServerState } from "./reply";
import { matchesValidator, notModified, readValidator, successRecords, successValidated } from "./reply";
import { requireSession } from "./auth-handlers";
import { parseJsonParam } from "../http/request-input";
import { findVisible } from "../records/visible-find";
import { listParams } from "./list-params";
import { readableRecord } from "./write-handlers";

/** An absent parameter means `{}`; an explicit `null` is still refused as not an object. */
function orEmpty(value: unknown): unknown {
  return value === undefined ? {} : value;
}

/** GET /materials?query=...&projection=... */
export async function handleListMaterials(info: RequestInfo, state: ServerState): Promise<Reply> {
  const caller = requireSession(info, state);
  // The caller sees the served materials and their own records, in one order.
  return listVisible(info, state, caller._id, state.store, state.written.storeOf(caller._id));
}

/**
 * The list answer of any collection: the `shared` records and the caller's `own`, in one order,
 * filtered, projected and paged by the request's `query` and `projection`, with its validator.
 */
export async function listVisible(
  info: RequestInfo,
  state: ServerState,
  callerId: string,
  shared: Parameters<typeof findVisible>[0],
  own: Parameters<typeof findVisible>[1],
): Promise<Reply> {
  const params = listParams(info.params);
  // Only a `$regex` needs the longest string: a lookup by id never walks the collection for it.
  const query = validateQuery(params.query, () => Math.max(shared.longestString, own?.longestString ?? 0));
  const options = parseProjection(params.projection);
  // Taken before the scan: a write while it runs makes this tag obsolete (see readValidator).
  const etag = readValidator(info, state, callerId);
  if (matchesValidator(info, etag)) return notModified(etag);
  const projection = recordProjection(options.fields);
  // Built only when the same read's compressed answer is not kept (the validator names one body).
  const build = async (): Promise<Buffer> => {
    const records = await findVisible(shared, own, {
      query,
      sort: options.sort,
      skip: options.skip,
      limit: options.limit,
    });
    return successRecords(records, state, etag, projection).json!;
  };
  return { status: 200, body: undefined, etag, build };
}

/** GET /materials/<id> (optionally with projection={"fields": ...}). */
export async function handleGetMaterial(info: RequestInfo, state: ServerState, id: string): Promise<Reply> {
  const caller = requireSession(info, state);
  const options = parseProjection(orEmpty(parseJsonParam(info.params, "projection")));
  const etag = readValidator(info, state, caller._id);
  // Another account's record is as unknown as a missing one.
  const record = readableRecord(state, caller, id);
  if (!record) throw notFound(`No material has the id "${id.slice(0, 100)}"; list ids with GET /materials.`);
  if (matchesValidator(info, etag)) return notModified(etag);
  return successValidated(makeFieldSelector(options.fields)(record), etag);
}
