import { badRequest } from "../http/http-errors";
import type { Caller } from "../records/owners";
import type { StoredRecord } from "../records/store";
import {
  checkRequestedOwner,
  forbidden,
  newRecordId,
  owned,
  quoted,
  type Collection,
  type CollectionContext,
} from "./collection";

/**
 * Fields of a record the server keeps, which a set's creator may not give: a job's lifecycle, a
 * material's computed fields, the set's own kind and its default mark.
 */
const SERVER_OWNED_SET_FIELDS = [
  "status",
  "localRun",
  "startTime",
  "formula",
  "unitCellFormula",
  "derivedProperties",
  "isEntitySet",
  "entitySetType",
  "entityCls",
  "inSet",
  "isDefault",
];

/**
 * A new set of `collection`: a record of that collection with `isEntitySet: true` (ESSE's
 * system/set.json), owned by the caller. Members point to it from their `inSet` list.
 */
export function newEntitySet(
  context: CollectionContext,
  collection: Collection,
  caller: Caller,
  fields: Record<string, unknown>,
): StoredRecord {
  const { _id: _ignored, owner, createdAt: _created, ...rest } = fields;
  if (owner !== undefined && (typeof owner !== "object" || owner === null || Array.isArray(owner)))
    throw badRequest(`owner must be an object {"_id": "<your account id>"} or left out.`);
  checkRequestedOwner((owner as { _id?: unknown } | undefined)?._id, caller, "owner._id");
  const kept = Object.keys(rest).filter((key) => SERVER_OWNED_SET_FIELDS.includes(key));
  if (kept.length > 0)
    throw badRequest(
      `${kept.join(", ")} ${kept.length === 1 ? "is" : "are"} refused: the server keeps ${kept.length === 1 ? "it" : "them"}; a new set is made with {"name": "..."} (and "projectId" for a set of jobs).`,
    );
  if (rest.name !== undefined && (typeof rest.name !== "string" || rest.name.length > 1000))
    throw badRequest(`"name" must be a string of at most 1000 characters.`);
  return {
    _id: newRecordId(context),
    name: "New Set",
    tags: [],
    ...rest,
    isEntitySet: true,
    entitySetType: "default",
    entityCls: collection.entityClass ?? collection.noun,
    owner: { _id: caller._id, slug: caller.slug },
    createdAt: new Date().toISOString(),
  };
}

function ownSet(
  context: CollectionContext,
  collection: Collection,
  caller: Caller,
  id: string,
  where: string,
): StoredRecord {
  const set = owned(context, collection, caller, id);
  if (set.isEntitySet !== true)
    throw badRequest(
      `${where} ${quoted(id)} is a ${collection.noun}, not a set; make one with PUT /${collection.name}/create-set.`,
    );
  return set;
}

/**
 * The record moved from one of the caller's sets to another: `inSet` loses the old set (when
 * given) and gains the new one. Both sets and the record must be the caller's own.
 */
export function movedToSet(
  context: CollectionContext,
  collection: Collection,
  caller: Caller,
  id: string,
  oldSetId: string | undefined,
  newSetId: string | undefined,
): StoredRecord {
  const record = owned(context, collection, caller, id);
  if (record.isEntitySet === true) throw badRequest(`${quoted(id)} is itself a set; sets do not nest here.`);
  if (!newSetId)
    throw badRequest(
      `POST /${collection.name}/<id>/move-to-set needs newSetId=<set id> in the query string (and oldSetId=<set id> to leave one).`,
    );
  const target = ownSet(context, collection, caller, newSetId, "newSetId");
  if (oldSetId) ownSet(context, collection, caller, oldSetId, "oldSetId");
  const current = Array.isArray(record.inSet) ? (record.inSet as { _id?: unknown }[]) : [];
  const kept = current.filter((entry) => entry?._id !== oldSetId && entry?._id !== target._id);
  return { ...record, inSet: [...kept, { _id: target._id, cls: target.entityCls }] };
}

/**
 * The caller's records of `collection` whose `isDefault` changes when `id` becomes the default:
 * that one set to true, every other one that was the default set to false.
 */
export function defaultChanges(
  context: CollectionContext,
  collection: Collection,
  caller: Caller,
  id: string,
): StoredRecord[] {
  if (collection.served.get(id)) {
    throw forbidden(
      `The ${collection.noun} ${quoted(id)} is public; copy it into your account (POST /${collection.name}/${encodeURIComponent(id.slice(0, 100))}/copy) and make the copy your default.`,
    );
  }
  const chosen = owned(context, collection, caller, id);
  if (chosen.isEntitySet === true)
    throw badRequest(`${quoted(id)} is a set; only a ${collection.noun} can be the default.`);
  const changes: StoredRecord[] = [];
  const own = context.written.storeOf(caller._id, collection.ownRecords ?? collection.name);
  for (let i = 0; own && i < own.size; i += 1) {
    const record = own.at(i)!;
    if (record._id !== id && record.isDefault === true) changes.push({ ...record, isDefault: false });
  }
  changes.push({ ...chosen, isDefault: true });
  return changes;
}
