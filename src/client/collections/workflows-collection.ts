import { NotFoundError, ValidationError } from "../../errors";
import type { WorkflowRecord } from "../../schemas";
import { Collection } from "../collection";
import type { WriteOptions } from "../writes";
import { internalsOf } from "../client-internals";
import { nearestName } from "../config/unused-options";
import { quotedList } from "../../structure/formats";

/** A workflow named by its `_id`, by a record that has one, or (for the bank's) by `systemName` or `name`. */
export type WorkflowReference = string | { readonly _id: string };

/** What a platform record id looks like (Meteor's: 17 characters of an unambiguous alphabet). */
const RECORD_ID = /^[23456789ABCDEFGHJKLMNPQRSTWXYZabcdefghijkmnopqrstuvwxyz]{17}$/;

/**
 * `client.workflows`: your workflows and the bank's, with the verbs that bring a bank workflow
 * into your account.
 */
export class WorkflowsCollection extends Collection<WorkflowRecord> {
  /**
   * The bank workflow `reference` names: its `_id`; else the one whose `systemName` is it; else
   * the one whose `name` is it. A name several bank workflows share (the bank has a "Band Gap"
   * for Quantum ESPRESSO and one for VASP) is refused with their systemNames (their ids, when one
   * has none) and applications, so that you can choose; so is a name no bank workflow has, with
   * the nearest systemName or name when it looks like a typo.
   * @example const bandGap = await client.workflows.findInBank("Band Gap");
   */
  async findInBank(reference: WorkflowReference, options: WriteOptions = {}): Promise<WorkflowRecord> {
    const bank = new Collection<WorkflowRecord>(this.connection, "bank-workflows");
    const text = checkReference(reference);
    if (typeof reference !== "string" || RECORD_ID.test(text)) {
      try {
        return await bank.get(text, options);
      } catch (error) {
        if (!(error instanceof NotFoundError) || typeof reference !== "string") throw error;
      }
    }
    for (const field of ["systemName", "name"] as const) {
      const found = await bank.list({ query: { [field]: text }, projection: { limit: 20 }, signal: options.signal });
      if (found.length === 1) return found[0]!;
      if (found.length > 1) {
        // Each by its systemName where it has one: what the platform's notebooks name workflows by.
        const byName = found.every((w) => typeof w.systemName === "string" && w.systemName !== "");
        const choices = found
          .map(
            (w) =>
              `${byName ? w.systemName : w._id} (${(w.subworkflows ?? []).map((s) => s.application?.name ?? "?").join(", ")})`,
          )
          .join(", ");
        throw new ValidationError(
          "workflow",
          `${found.length} bank workflows have the ${field} ${JSON.stringify(text)}: ${choices}; name one by its ${byName ? "systemName" : "_id"}.`,
        );
      }
    }
    throw new ValidationError("workflow", await notInBank(bank, text, options.signal));
  }

  /**
   * Copies a bank workflow into your account (`POST /bank-workflows/<id>/copy`), found as
   * `findInBank` finds it: by `_id`, `systemName` or `name`. Resolves to your copy, with its own
   * `_id`, which you may change and use in jobs.
   * @example const mine = await client.workflows.copyFromBank("Total Energy");
   */
  async copyFromBank(reference: WorkflowReference, options: WriteOptions = {}): Promise<WorkflowRecord> {
    const found = await this.findInBank(reference, options);
    return this.checkWritten(
      await internalsOf(this.connection).writeData("POST", `bank-workflows/${encodeURIComponent(found._id)}/copy`, {
        signal: options.signal,
      }),
    ) as WorkflowRecord;
  }
}

/** Bank workflows looked through for a "did you mean" and listed by systemName (the bank has 55). */
const SUGGESTION_POOL = 200;

/** The most systemNames a "no such workflow" message lists: the standard bank's 55 fit. */
const LISTED_NAMES = 60;

/**
 * Why no bank workflow is `text`: the nearest systemName or name when it looks like a typo, and
 * the bank's systemNames (what the platform's notebooks and `matframe jobs submit --workflow`
 * name workflows by), so that a CLI user, who has no call to list them, can pick one.
 */
async function notInBank(
  bank: Collection<WorkflowRecord>,
  text: string,
  signal: AbortSignal | undefined,
): Promise<string> {
  const all = await bank
    .list({ projection: { fields: { systemName: 1, name: 1 }, limit: SUGGESTION_POOL }, signal })
    .catch(() => []);
  const named = (value: unknown): value is string => typeof value === "string" && value !== "";
  const systemNames = [...new Set(all.map((workflow) => (workflow as { systemName?: unknown }).systemName))]
    .filter(named)
    .sort();
  const nearest = nearestName(text, [...systemNames, ...all.map((workflow) => workflow.name).filter(named)]);
  // A name several bank workflows share would be refused as ambiguous: suggest what it stands for.
  const sharing = nearest === undefined || systemNames.includes(nearest) ? [] : all.filter((w) => w.name === nearest);
  const suggested =
    sharing.length > 1
      ? quotedList(
          sharing
            .map((w) => {
              const systemName = (w as { systemName?: unknown }).systemName;
              return named(systemName) ? systemName : w._id;
            })
            .sort(),
        )
      : JSON.stringify(nearest);
  const listed =
    systemNames.length === 0
      ? ""
      : systemNames.length <= LISTED_NAMES && all.length < SUGGESTION_POOL
        ? ` The bank's workflows by systemName: ${systemNames.join(", ")}.`
        : ` The bank's workflows by systemName include ${systemNames.slice(0, LISTED_NAMES).join(", ")}; list them all with client.bankWorkflows.list({ projection: { fields: { systemName: 1, name: 1 } } }).`;
  return `No bank workflow has the _id, systemName or name ${JSON.stringify(text.slice(0, 200))}.${nearest ? ` Did you mean ${suggested}?` : ""}${listed}`;
}

function checkReference(reference: unknown): string {
  const text =
    typeof reference === "string"
      ? reference
      : reference !== null && typeof reference === "object"
        ? (reference as { _id?: unknown })._id
        : undefined;
  if (typeof text !== "string" || text.trim() === "")
    throw new ValidationError(
      "workflow",
      "A workflow is named by its _id, a record with an _id, or (in the bank) its systemName or name, as a non-empty string.",
    );
  return text;
}
