import type { Caller } from "../records/owners";
import { MaterialStore, type StoredRecord } from "../records/store";
import type { Collection } from "./collection";

/**
 * `projects`: the public reference project (its jobs hold the reference results) and each
 * account's own. Every account has a default project, made with the account (account-defaults.ts);
 * its jobs go there unless they name another of its projects.
 */
export function projectCollection(reference: readonly StoredRecord[], scanBudgetMs?: number): Collection {
  return {
    name: "projects",
    noun: "project",
    served: new MaterialStore(reference, { scanBudgetMs }),
    writable: true,
    ownRecords: "projects",
    copyTo: "projects",
    sets: false,
    defaults: true,
    verbs: [],
    entityClass: "Project",
    esseSchema: "project",
    complete: (_context, caller, fields) => completeProject(fields, caller),
    keepsDefault: true,
  };
}

/**
 * A project created with few fields, completed with the platform's defaults. It is never created
 * as the default (`set-default` makes one so, and unmarks the other): an account has one.
 */
export function completeProject(fields: Record<string, unknown>, caller: Caller): Record<string, unknown> {
  return { name: "New Project", slug: `${caller.slug}-project`, tags: [], ...fields, isDefault: false };
}
