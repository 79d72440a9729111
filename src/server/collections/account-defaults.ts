import { HttpError } from "../http/http-errors";
import { deterministicId } from "../records/ids";
import type { Caller } from "../records/owners";
import type { StoredRecord } from "../records/store";
import type { CollectionContext } from "./collection";
import { bankDefaultWorkflow, findDefault } from "./workflows";

/** The collections in which every account has a record marked `isDefault`, as on the platform. */
export const DEFAULT_COLLECTIONS = ["projects", "materials", "workflows"] as const;
export type DefaultCollection = (typeof DEFAULT_COLLECTIONS)[number];

/**
 * The default records of `collections` an account lacks, made at the account's creation (when the
 * server starts, for each configured account, with `--store` for accounts of an existing store
 * too): a project named "Default", a copy of silicon and a copy of the bank's Total Energy
 * workflow (Quantum ESPRESSO, a cheap first job), each `isDefault: true`. The platform gives every
 * new account these three; the notebooks read them with `list({"isDefault": true, "owner._id": ...})`.
 * Their ids derive from the account's, so making them twice writes nothing new. Reads never
 * write: nothing else makes them.
 *
 * @returns the collections whose default could not be written (the account is at its quota).
 */
export async function ensureAccountDefaults(
  context: CollectionContext,
  caller: Caller,
  collections: readonly DefaultCollection[] = DEFAULT_COLLECTIONS,
): Promise<string[]> {
  const missed: string[] = [];
  for (const collection of collections) {
    if (findDefault(context, caller, collection)) continue;
    const _id = deterministicId(`${collection === "projects" ? "project" : collection}:default:${caller._id}`);
    try {
      await context.written.write(() => {
        const existing = context.written.get(_id, collection);
        const record = existing ?? defaultRecord(context, caller, collection, _id);
        return { put: { ...record, isDefault: true }, result: undefined, collection };
      });
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      missed.push(collection);
    }
  }
  return missed;
}

function defaultRecord(
  context: CollectionContext,
  caller: Caller,
  collection: DefaultCollection,
  _id: string,
): StoredRecord {
  const owner = { _id: caller._id, slug: caller.slug };
  const source = collection === "materials" ? defaultMaterialSource(context) : bankDefaultWorkflow(context);
  // Dated as the record they copy (the project as the bank's workflow), not by the clock: a server
  // kept in memory makes them again at every start, and its answers (an export resumed across a
  // restart among them) must not change with that.
  const createdAt = String(source.createdAt ?? new Date(0).toISOString());
  if (collection === "projects")
    return { _id, name: "Default", slug: `${caller.slug}-default`, isDefault: true, tags: [], owner, createdAt };
  // A copy as POST <id>/copy makes one: the source's fields with this account's id and owner.
  const { _id: _source, owner: _owner, createdAt: _created, inSet: _sets, ...fields } = structuredClone(source);
  return { _id, ...fields, isDefault: true, owner, createdAt };
}

/** The bundled material an account's default material copies: silicon, or the first served one with `--data`. */
export const DEFAULT_MATERIAL_EXTERNAL_ID = "mp-149";

/** The served material an account's default copies, and a job gets when it names none and its account has no default. */
export function defaultMaterialSource(context: CollectionContext): StoredRecord {
  const served = context.collections.get("materials")!.served;
  for (let i = 0; i < served.size; i += 1) {
    const record = served.at(i)!;
    if ((record.external as { id?: unknown } | undefined)?.id === DEFAULT_MATERIAL_EXTERNAL_ID) return record;
  }
  return served.at(0)!;
}

/** The caller's default project (made with the account, see {@link ensureAccountDefaults}). */
export async function defaultProject(context: CollectionContext, caller: Caller): Promise<StoredRecord> {
  const found = findDefault(context, caller, "projects");
  if (found) return found;
  // Only an account at its quota when the server started lacks it; a write (never a read) tries again.
  await ensureAccountDefaults(context, caller, ["projects"]);
  const made = findDefault(context, caller, "projects");
  if (!made)
    throw new HttpError(
      403,
      "Your account has no default project and is at its quota, so none can be made; delete some records, then try again.",
    );
  return made;
}
