import { badRequest, HttpError, notFound } from "../http/http-errors";
import { randomId } from "../records/ids";
import type { Caller } from "../records/owners";
import type { MaterialStore, StoredRecord } from "../records/store";
import type { WrittenRecords } from "../records/written-records";

/**
 * One collection of the local platform beyond the served materials (workflows, jobs, projects,
 * properties, ...): the public records every account reads (served from data/, read-only) and,
 * when users may write it, each account's own records. The ownership and visibility rules are
 * the materials' ones: a caller reads the public records and their own, changes only their own,
 * and another account's record is as unknown as a missing one.
 */
export interface Collection {
  /** The path segment, e.g. `workflows`. */
  readonly name: string;
  /** One record, in messages: `workflow`, `job`. */
  readonly noun: string;
  /** The public records, owned by the public owner. */
  readonly served: MaterialStore;
  /** Whether an account may create, update and delete records of its own here. */
  readonly writable: boolean;
  /** The collection of the caller's own records listed with the public ones: its own name, or null for a bank (public records only). */
  readonly ownRecords: string | null;
  /** Paths the server keeps: a modifier may not change them (besides `_id`, `owner`, `createdAt`). */
  readonly serverPaths?: readonly string[];
  /** Where `POST /<name>/<id>/copy` puts the copy: this collection, another (a bank's copies go to the account's own collection), or null (no copy verb). */
  readonly copyTo: string | null;
  /** Its records may be sets: `PUT /<name>/create-set` and `POST /<name>/<id>/move-to-set`. */
  readonly sets: boolean;
  /** Each account marks one of its records the default: `POST /<name>/<id>/set-default`. */
  readonly defaults: boolean;
  /** Verbs after a record's id beyond copy, set-default and move-to-set (the jobs' lifecycle and files). */
  readonly verbs: readonly RecordVerb[];
  /** The class name a set's members carry in `inSet[].cls` (`Material`), as the platform names its entities. @default the noun */
  readonly entityClass?: string;
  /** The ESSE schema its records validate against on create and update (`workflow`). */
  readonly esseSchema?: string;
  /** A record created with few fields, completed with the platform's defaults (writable collections). */
  readonly complete?: (
    context: CollectionContext,
    caller: Caller,
    fields: Record<string, unknown>,
  ) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** A record after an update, in the shape its collection stores (workflows: empty contexts as objects). */
  readonly normalize?: (record: StoredRecord) => StoredRecord;
  /** A create body's `_id` is dropped rather than refused (a bank workflow sent whole gets its own id). */
  readonly dropsSentId?: boolean;
  /** Its deletes go through the job runner (the record's results, process and files go with it). */
  readonly deletedByRunner?: boolean;
  /** The account's default record cannot be deleted until another is made the default (projects). */
  readonly keepsDefault?: boolean;
  /** What to do instead of writing a read-only collection, when copying is not the answer. */
  readonly readOnlyHint?: string;
}

/** Verbs after a record's id that only some collections answer (`POST /jobs/<id>/submit`). */
export type RecordVerb = "submit" | "terminate" | "purge" | "files" | "presigned-urls" | "output-files";

/** What every collection declares the same way unless it says otherwise: no copies, sets, defaults or extra verbs. */
export const PLAIN_COLLECTION = {
  copyTo: null,
  sets: false,
  defaults: false,
  verbs: [],
} as const satisfies Partial<Collection>;

/** What the collection rules need of the server. */
export interface CollectionContext {
  written: WrittenRecords;
  /** Every collection by name, the served materials among them. */
  collections: ReadonlyMap<string, Collection>;
}

export function forbidden(message: string): HttpError {
  return new HttpError(403, message);
}

/** An id, as messages quote it: at most 100 characters. */
export function quoted(id: string): string {
  return JSON.stringify(id.slice(0, 100));
}

export function ownerIdOf(record: Record<string, unknown>): unknown {
  return (record.owner as { _id?: unknown } | undefined)?._id;
}

/** An id no served or written record of any collection has. */
export function newRecordId(context: CollectionContext): string {
  for (;;) {
    const id = randomId();
    if (context.written.has(id)) continue;
    if ([...context.collections.values()].some((collection) => collection.served.get(id))) continue;
    return id;
  }
}

/** The caller's own records of `collection`, as a store to query (undefined when they have none). */
export function ownStore(
  context: CollectionContext,
  collection: Collection,
  caller: Caller,
): MaterialStore | undefined {
  return collection.ownRecords === null ? undefined : context.written.storeOf(caller._id, collection.ownRecords);
}

/** A record the caller may read: a public one, or one of their own; undefined otherwise. */
export function readable(
  context: CollectionContext,
  collection: Collection,
  caller: Caller,
  id: string,
): StoredRecord | undefined {
  const shared = collection.served.get(id);
  if (shared) return shared;
  if (collection.ownRecords === null) return undefined;
  const written = context.written.get(id, collection.ownRecords);
  return written && ownerIdOf(written) === caller._id ? written : undefined;
}

/** A readable record, or a 404 that says where to list ids. */
export function readableOr404(
  context: CollectionContext,
  collection: Collection,
  caller: Caller,
  id: string,
): StoredRecord {
  const record = readable(context, collection, caller, id);
  if (!record) throw notFound(`No ${collection.noun} has the id ${quoted(id)}; list ids with GET /${collection.name}.`);
  return record;
}

/** A record the caller may change: 404 when none has the id, 403 when it is public or another account's. */
export function owned(context: CollectionContext, collection: Collection, caller: Caller, id: string): StoredRecord {
  if (collection.served.get(id)) {
    const copy = collection.writable
      ? ` copy it with POST /${collection.name}/${encodeURIComponent(id.slice(0, 100))}/copy and change the copy`
      : " it cannot be changed";
    throw forbidden(`The ${collection.noun} ${quoted(id)} is public (owner mat3ra-standata) and read-only;${copy}.`);
  }
  const record = collection.ownRecords === null ? undefined : context.written.get(id, collection.ownRecords);
  if (!record) throw notFound(`No ${collection.noun} has the id ${quoted(id)}; list ids with GET /${collection.name}.`);
  if (ownerIdOf(record) !== caller._id)
    throw forbidden(`The ${collection.noun} ${quoted(id)} belongs to another account; you can change only your own.`);
  return record;
}

/** Refuses an `owner._id` (or `accountId`) that names another account than the caller's. */
export function checkRequestedOwner(requested: unknown, caller: Caller, where: string): void {
  if (requested === undefined || requested === null || requested === "") return;
  if (requested !== caller._id) {
    throw forbidden(
      `${where} must be your own account id (${caller._id}) or left out: an account creates records only for itself.`,
    );
  }
}

/** Reads a `{ "_id": "..." }` reference a client sent (e.g. `_project`), or undefined when absent. */
export function referenceId(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  const id = typeof value === "object" && !Array.isArray(value) ? (value as { _id?: unknown })._id : undefined;
  if (typeof id !== "string" || id === "" || id.length > 256) {
    throw badRequest(`${where} must be an object {"_id": "<id>"} naming a record (an id of at most 256 characters).`);
  }
  return id;
}
