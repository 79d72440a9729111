import { MaterialStore, type StoredRecord } from "../records/store";
import type { Caller } from "../records/owners";
import { PLAIN_COLLECTION, type Collection, type CollectionContext } from "./collection";

/** The bank workflow a job gets when it names none and the account has no default workflow of its own. */
export const DEFAULT_WORKFLOW_PATH = "data/workflows/workflows/espresso/total_energy.json";

/**
 * `workflows`: the bank's workflows (public, read-only) and each account's own, which it may
 * create, change, delete, copy and mark as its default; `bank-workflows`: the bank alone, read
 * and copied into an account.
 */
export function workflowCollections(bank: readonly StoredRecord[], scanBudgetMs?: number): [Collection, Collection] {
  const served = new MaterialStore(bank, { scanBudgetMs });
  return [
    {
      name: "workflows",
      noun: "workflow",
      served,
      writable: true,
      ownRecords: "workflows",
      copyTo: "workflows",
      sets: false,
      defaults: true,
      verbs: [],
      entityClass: "Workflow",
      esseSchema: "workflow",
      complete: (_context, _caller, fields) => completeWorkflow(fields),
      normalize: emptyContextsAsObjects,
      dropsSentId: true,
    },
    {
      ...PLAIN_COLLECTION,
      name: "bank-workflows",
      noun: "bank workflow",
      served,
      writable: false,
      ownRecords: null,
      copyTo: "workflows",
    },
  ];
}

/**
 * A workflow created with few fields, completed with the platform's defaults so that it
 * validates against ESSE's workflow schema (which requires `subworkflows` and `units`).
 */
export function completeWorkflow(fields: Record<string, unknown>): Record<string, unknown> {
  const workflow = { name: "New Workflow", subworkflows: [], units: [], properties: [], tags: [], ...fields };
  return emptyContextsAsObjects({
    ...workflow,
    isDefault: false,
    systemName: fields.systemName ?? systemNameOf(workflow),
  });
}

/**
 * The workflow with every unit's empty `context` written `{}`: newer standata (and the bodies
 * notebooks build from it, e.g. `shell/hello_world`) writes `[]`, which the pinned ESSE refuses;
 * the bank's workflows are built the same way (data/README.md). A non-empty list is left to ESSE.
 */
export function emptyContextsAsObjects<T extends Record<string, unknown>>(workflow: T): T {
  const units = (list: unknown) =>
    Array.isArray(list)
      ? list.map((unit) =>
          typeof unit === "object" && unit !== null && Array.isArray(unit.context) && unit.context.length === 0
            ? { ...unit, context: {} }
            : unit,
        )
      : list;
  const subworkflows = Array.isArray(workflow.subworkflows)
    ? workflow.subworkflows.map((subworkflow) =>
        typeof subworkflow === "object" && subworkflow !== null
          ? { ...subworkflow, units: units(subworkflow.units) }
          : subworkflow,
      )
    : workflow.subworkflows;
  return { ...workflow, units: units(workflow.units), subworkflows };
}

/**
 * The name the platform looks a workflow up by, as Exabyte-io/wode's `Workflow.systemName`
 * computes it: underscore.string's `slugify` of the names of the applications its subworkflows
 * (and nested workflows) use, joined by ":", a "-" and its lowercased name, e.g.
 * `espresso-band-gap` (scripts/build-platform-data.js gives the bank's workflows theirs so).
 */
export function systemNameOf(workflow: Record<string, unknown>): string {
  const name = typeof workflow.name === "string" ? workflow.name : "";
  return `${usedApplicationNames(workflow).join(":")}-${name.toLowerCase()}`
    .replace(/[^\w\s-]/g, "-")
    .toLowerCase()
    .trim()
    .replace(/[-_\s]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

function usedApplicationNames(workflow: Record<string, unknown>): string[] {
  const list = (value: unknown): Record<string, unknown>[] =>
    Array.isArray(value) ? value.filter((item) => typeof item === "object" && item !== null) : [];
  const names = [
    ...list(workflow.subworkflows).map((subworkflow) => (subworkflow.application as { name?: unknown })?.name),
    ...list(workflow.workflows).flatMap(usedApplicationNames),
  ];
  return [...new Set(names.filter((name): name is string => typeof name === "string"))];
}

/** The workflow a job gets when it names none: the account's default workflow, else the bank's Total Energy (Quantum ESPRESSO). */
export function defaultWorkflow(context: CollectionContext, caller: Caller): StoredRecord {
  return findDefault(context, caller, "workflows") ?? bankDefaultWorkflow(context);
}

/** The bank's Total Energy (Quantum ESPRESSO), which an account's default workflow copies. */
export function bankDefaultWorkflow(context: CollectionContext): StoredRecord {
  const bank = context.collections.get("bank-workflows")!.served;
  // The bank is small (tens of workflows): a walk is cheap and needs no index.
  for (let i = 0; i < bank.size; i += 1) {
    if ((bank.at(i)!.external as { path?: string } | undefined)?.path === DEFAULT_WORKFLOW_PATH) return bank.at(i)!;
  }
  return bank.at(0)!;
}

/** The caller's record of `collection` marked `isDefault`, if any. */
export function findDefault(context: CollectionContext, caller: Caller, collection: string): StoredRecord | undefined {
  const own = context.written.storeOf(caller._id, collection);
  if (!own) return undefined;
  for (let i = 0; ; i += 1) {
    const record = own.at(i);
    if (!record) return undefined;
    if (record.isDefault === true && record.isEntitySet !== true) return record;
  }
}
