import { deterministicId } from "../records/ids";
import type { Caller } from "../records/owners";
import { MaterialStore, type StoredRecord } from "../records/store";
import type { Collection, CollectionContext } from "./collection";
import { findDefault } from "./workflows";

/**
 * `projects`: the public reference project (its jobs hold the reference results) and each
 * account's own. Every account has a default project, made on its first use of projects or jobs
 * and kept like any record it writes; its jobs go there unless they name another of its projects.
 */
export function projectCollection(reference: readonly StoredRecord[], scanBudgetMs?: number): Collection {
  return {
    name: "projects",
    noun: "project",
    served: new MaterialStore(reference, { scanBudgetMs }),
    writable: true,
    ownRecords: "projects",
  };
}

/** A project created with few fields, completed with the platform's defaults. */
export function completeProject(fields: Record<string, unknown>, caller: Caller): Record<string, unknown> {
  return { name: "New Project", slug: `${caller.slug}-project`, isDefault: false, tags: [], ...fields };
}

/**
 * The caller's default project, written first if the account has none yet. Its id is derived
 * from the account's, so two requests racing to make it write the same record, not two.
 */
export async function defaultProject(context: CollectionContext, caller: Caller): Promise<StoredRecord> {
  const found = findDefault(context, caller, "projects");
  if (found) return found;
  const _id = deterministicId(`project:default:${caller._id}`);
  return context.written.write(() => {
    const existing = context.written.get(_id, "projects");
    if (existing) return { put: existing, result: existing, collection: "projects" };
    const project: StoredRecord = {
      _id,
      name: "Default",
      slug: `${caller.slug}-default`,
      isDefault: true,
      tags: [],
      owner: { _id: caller._id, slug: caller.slug },
      createdAt: new Date().toISOString(),
    };
    return { put: project, result: project, collection: "projects" };
  });
}
