import { badRequest } from "../http/http-errors";
import { parseJsonObjectBody, parseJsonParam, readBody } from "../http/request-input";
import { makeFieldSelector, parseProjection } from "../query/projection";
import { applyModifier, checkModifier, PROTECTED_PATHS } from "../records/modifier";
import type { Caller } from "../records/owners";
import { checkRecordSize, checkValue, MAX_WRITE_BODY_BYTES } from "../records/record-rules";
import type { StoredRecord } from "../records/store";
import {
  checkRequestedOwner,
  forbidden,
  newRecordId,
  owned,
  ownStore,
  quoted,
  readableOr404,
  type Collection,
} from "../collections/collection";
import { defaultProject } from "../collections/account-defaults";
import { checkEsse } from "../records/esse-check";
import { requireSession } from "./auth-handlers";
import { listVisible } from "./materials-handlers";
import type { Reply, RequestInfo, ServerState } from "./reply";
import { matchesValidator, notModified, readValidator, success, successValidated } from "./reply";

/** Paths no modifier changes in any collection: a set stays a set, a record its kind. */
const SET_PATHS = ["isEntitySet", "entityCls"];

function orEmpty(value: unknown): unknown {
  return value === undefined ? {} : value;
}

/** GET /<collection>?query=...&projection=...: the public records and the caller's own, in one order. */
export async function handleListRecords(info: RequestInfo, state: ServerState, collection: Collection): Promise<Reply> {
  // A read never writes: the account's defaults were made with it (account-defaults.ts).
  const caller = requireSession(info, state);
  return listVisible(info, state, caller._id, collection.served, ownStore(state, collection, caller));
}

/** GET /<collection>/<id> (optionally with projection={"fields": ...}). */
export async function handleGetRecord(
  info: RequestInfo,
  state: ServerState,
  collection: Collection,
  id: string,
): Promise<Reply> {
  const caller = requireSession(info, state);
  const options = parseProjection(orEmpty(parseJsonParam(info.params, "projection")));
  const etag = readValidator(info, state, caller._id);
  const record = readableOr404(state, collection, caller, id);
  if (matchesValidator(info, etag)) return notModified(etag);
  return successValidated(makeFieldSelector(options.fields)(record), etag);
}

function refuseWrites(collection: Collection, verb: string): never {
  const how = collection.readOnlyHint
    ? ` ${collection.readOnlyHint}`
    : collection.copyTo !== null && collection.copyTo !== collection.name
      ? ` Copy one into your account with POST /${collection.name}/<id>/copy.`
      : "";
  throw forbidden(`${collection.name} are read-only for users: they cannot be ${verb}.${how}`);
}

/** A new record of the caller's: the server's `_id`, owner and creation time. */
export function stamped(
  state: ServerState,
  caller: Caller,
  fields: Record<string, unknown>,
  what: string,
): StoredRecord {
  const { _id: _ignored, owner: _owner, createdAt: _created, ...rest } = fields;
  const record: StoredRecord = {
    _id: newRecordId(state),
    ...rest,
    owner: { _id: caller._id, slug: caller.slug },
    createdAt: new Date().toISOString(),
  };
  checkRecordSize(record, what);
  return record;
}

/** PUT /<collection>/create: the body is the record, completed with the platform's defaults. */
export async function handleCreateRecord(
  info: RequestInfo,
  state: ServerState,
  collection: Collection,
): Promise<Reply> {
  const caller = requireSession(info, state);
  if (!collection.writable) refuseWrites(collection, "created");
  const body = parseJsonObjectBody(
    await readBody(info.req, MAX_WRITE_BODY_BYTES),
    `The ${collection.noun} to create`,
    '{"name": "..."}',
  );
  // A workflow body taken from the bank or standata still holds its _id (qe_scf_calculation sends
  // one): the new record gets its own, as on the platform. Elsewhere an _id is a mistake worth saying.
  if ("_id" in body && !collection.dropsSentId)
    throw badRequest(`The ${collection.noun} to create has an _id; leave it out, the server assigns one.`);
  if (
    body.owner !== undefined &&
    (typeof body.owner !== "object" || body.owner === null || Array.isArray(body.owner))
  ) {
    throw badRequest(`owner must be an object {"_id": "<your account id>"} or left out.`);
  }
  checkRequestedOwner((body.owner as { _id?: unknown } | undefined)?._id, caller, "owner._id");
  if (body.isEntitySet !== undefined)
    throw badRequest(`Make a set with PUT /${collection.name}/create-set, not with create.`);
  checkValue(body, "the record");
  const fields = collection.complete ? await collection.complete(state, caller, body) : body;
  const record = stamped(state, caller, fields, `The ${collection.noun}`);
  if (collection.esseSchema) checkEsse(record, collection.esseSchema, `The ${collection.noun} to create`);
  return success(await state.written.write(() => ({ put: record, result: record, collection: collection.name })));
}

/** PATCH /<collection>/<id>: a modifier ($set, $unset, $push, $pull, $addToSet) or a plain object of fields. */
export async function handleUpdateRecord(
  info: RequestInfo,
  state: ServerState,
  collection: Collection,
  id: string,
): Promise<Reply> {
  const caller = requireSession(info, state);
  if (!collection.writable) refuseWrites(collection, "updated");
  const { updateParameters: _options, ...sent } = parseJsonObjectBody(
    await readBody(info.req, MAX_WRITE_BODY_BYTES),
    "The modifier",
    '{"$set": {"name": "new name"}}',
  );
  // `updateParameters` (e.g. {"skipRender": false}) tells the platform how to apply an update
  // (the twisted-MoS2 notebooks send it with every job PATCH); it is no field of the record.
  const modifier = checkModifier(sent);
  const kept = [...(collection.serverPaths ?? []), ...SET_PATHS];
  for (const path of Object.values(modifier).flatMap((fields) => Object.keys(fields ?? {}))) {
    const [top = path] = path.split(".");
    if (kept.includes(top))
      throw badRequest(
        `${path} is refused: the server keeps ${top}${top === "status" ? " (it changes through POST /jobs/<id>/submit and /terminate)" : ""}.`,
      );
  }
  const updated = await state.written.write(() => {
    const current = owned(state, collection, caller, id);
    let next = applyModifier(current, modifier);
    for (const path of PROTECTED_PATHS) next[path] = current[path];
    if (collection.normalize) next = collection.normalize(next);
    checkRecordSize(next, `The ${collection.noun} ${quoted(id)} after the update`);
    // A set is ESSE's system/set, not a record of its collection's schema.
    if (next.isEntitySet !== true && collection.esseSchema)
      checkEsse(next, collection.esseSchema, `The ${collection.noun} ${quoted(id)} after the update`);
    return { put: next, result: next, collection: collection.name };
  });
  return success(updated);
}

/** DELETE /<collection>/<id>: answers `{ _id }`; a job's properties go with it. */
export async function handleDeleteRecord(
  info: RequestInfo,
  state: ServerState,
  collection: Collection,
  id: string,
): Promise<Reply> {
  const caller = requireSession(info, state);
  if (!collection.writable) refuseWrites(collection, "deleted");
  // A job goes with its results in one transaction, and its process and files after.
  if (collection.deletedByRunner) return success(await state.jobs.delete(caller, id));
  const removed = await state.written.write(() => {
    const record = owned(state, collection, caller, id);
    if (collection.keepsDefault && record.isDefault === true) {
      throw badRequest(
        `The ${collection.noun} ${quoted(id)} is your default ${collection.noun}; make another one the default (POST /${collection.name}/<id>/set-default) before deleting it.`,
      );
    }
    return { remove: record._id, result: { _id: record._id }, collection: collection.name };
  });
  return success(removed);
}

/** POST /<collection>/<id>/copy[?accountId=]: a readable record (public ones included) copied into the caller's account. */
export async function handleCopyRecord(
  info: RequestInfo,
  state: ServerState,
  collection: Collection,
  id: string,
): Promise<Reply> {
  const caller = requireSession(info, state);
  checkRequestedOwner(info.params.get("accountId"), caller, "accountId");
  const target = collection.copyTo;
  if (target === null) refuseWrites(collection, "copied");
  // A copied job starts over, in the caller's default project.
  const project = target === "jobs" ? await defaultProject(state, caller) : undefined;
  const copy = await state.written.write(() => {
    const source = readableOr404(state, collection, caller, id);
    const { localRun: _run, inSet: _sets, ...fields } = structuredClone(source);
    const reset = project
      ? { status: "pre-submission", _project: { _id: project._id, slug: project.slug, cls: "Project" } }
      : {};
    const record = stamped(
      state,
      caller,
      { ...fields, ...reset, ...(fields.isDefault === undefined ? {} : { isDefault: false }) },
      `The copy of ${quoted(id)}`,
    );
    return { put: record, result: record, collection: target };
  });
  return success(copy);
}
