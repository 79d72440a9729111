import { parseJsonObjectBody, readBody } from "../http/request-input";
import { checkValue, MAX_WRITE_BODY_BYTES } from "../records/record-rules";
import type { Collection } from "../collections/collection";
import { defaultChanges, movedToSet, newEntitySet } from "../collections/entity-sets";
import { requireSession } from "./auth-handlers";
import type { Reply, RequestInfo, ServerState } from "./reply";
import { success } from "./reply";

/** PUT /<collection>/create-set: a new, empty set of the caller's (`{"name": ...}`). */
export async function handleCreateSet(info: RequestInfo, state: ServerState, collection: Collection): Promise<Reply> {
  const caller = requireSession(info, state);
  const body = parseJsonObjectBody(
    await readBody(info.req, MAX_WRITE_BODY_BYTES),
    "The set to create",
    '{"name": "my set"}',
  );
  checkValue(body, "the set");
  const set = newEntitySet(state, collection, caller, body);
  return success(await state.written.write(() => ({ put: set, result: set, collection: collection.name })));
}

/** POST /<collection>/<id>/move-to-set?oldSetId=&newSetId=: moves one of the caller's records between their sets. */
export async function handleMoveToSet(
  info: RequestInfo,
  state: ServerState,
  collection: Collection,
  id: string,
): Promise<Reply> {
  const caller = requireSession(info, state);
  const moved = await state.written.write(() => {
    const next = movedToSet(state, collection, caller, id, info.params.get("oldSetId"), info.params.get("newSetId"));
    return { put: next, result: next, collection: collection.name };
  });
  return success(moved);
}

/** POST /<collection>/<id>/set-default: one of the caller's records becomes their default (and no other is). */
export async function handleSetDefault(
  info: RequestInfo,
  state: ServerState,
  collection: Collection,
  id: string,
): Promise<Reply> {
  const caller = requireSession(info, state);
  const changes = defaultChanges(state, collection, caller, id);
  let result: unknown;
  // One write per changed record, the chosen one last: a reader never sees two defaults.
  for (const record of changes)
    result = await state.written.write(() => ({ put: record, result: record, collection: collection.name }));
  return success(result);
}
