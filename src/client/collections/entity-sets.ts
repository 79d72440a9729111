// The platform's sets (ESSE system/set.json): a set is a record of its collection with
// `isEntitySet: true`, and its members name it in their `inSet` list. The requests are those of
// the platform's Python client (`EntitySetEndpointsMixin`: `create_set`, `move_to_set`).
import { ValidationError } from "../../errors";
import type { PlatformRecord } from "../platform-record";
import type { Connection } from "../connection";
import type { WriteOptions } from "../writes";
import { internalsOf } from "../client-internals";

/** `createSet(name, options)`. */
export interface CreateSetOptions extends WriteOptions {
  /**
   * Tags for the new set.
   * @default []
   * @example ["class-2026"]
   */
  tags?: readonly string[];
}

/** `moveToSet(setId, ids, options)`. */
export interface MoveToSetOptions extends WriteOptions {
  /**
   * The set the records leave (they stay in their other sets).
   * @default none: the records only join `setId`
   * @example oldSet._id
   */
  fromSetId?: string;
}

/** A set's name and tags checked, as the body the platform's client sends (`{ name, tags }`). */
export function setBody(name: unknown, options: CreateSetOptions): Record<string, unknown> {
  if (typeof name !== "string" || name.trim() === "" || name.length > 1000)
    throw new ValidationError("name", "name must be a non-empty string of at most 1000 characters: the set's name.");
  const { tags = [], signal: _signal, ...rest } = options;
  const [extra] = Object.keys(rest);
  if (extra !== undefined)
    throw new ValidationError(extra, `createSet has no option "${extra}"; its options are tags and signal.`);
  if (!Array.isArray(tags) || tags.some((tag) => typeof tag !== "string"))
    throw new ValidationError("tags", "tags must be an array of strings.");
  return { name, tags: [...tags] };
}

/**
 * Moves each record of `ids` into the set `setId` (out of `fromSetId` when given): one
 * `POST /{collection}/{id}/move-to-set?newSetId=&oldSetId=` per record, in order. Resolves with
 * what the platform answered for each (the moved record on the local platform).
 */
export async function moveRecordsToSet(
  connection: Connection,
  collection: string,
  setId: string,
  ids: string | readonly string[],
  options: MoveToSetOptions,
): Promise<unknown[]> {
  if (typeof setId !== "string" || setId === "")
    throw new ValidationError("setId", "setId must be a set's _id (what createSet resolved to).");
  const list = typeof ids === "string" ? [ids] : ids;
  if (!Array.isArray(list) || list.length === 0 || list.some((id) => typeof id !== "string" || id === ""))
    throw new ValidationError("ids", "ids must be a record's _id or a non-empty array of them.");
  const { fromSetId, signal, ...rest } = options;
  const [extra] = Object.keys(rest);
  if (extra !== undefined)
    throw new ValidationError(extra, `moveToSet has no option "${extra}"; its options are fromSetId and signal.`);
  if (fromSetId !== undefined && (typeof fromSetId !== "string" || fromSetId === ""))
    throw new ValidationError("fromSetId", "fromSetId must be a set's _id.");
  const search = { newSetId: setId, ...(fromSetId ? { oldSetId: fromSetId } : {}) };
  const moved: unknown[] = [];
  for (const id of list)
    moved.push(
      await internalsOf(connection).writeData("POST", `${collection}/${encodeURIComponent(id)}/move-to-set`, {
        search,
        signal,
      }),
    );
  return moved;
}

/** The records a write answered with (the platform's own may answer none), by the ids asked for. */
export function movedRecords(answers: readonly unknown[]): PlatformRecord[] {
  return answers.filter(
    (answer): answer is PlatformRecord =>
      answer !== null && typeof answer === "object" && typeof (answer as { _id?: unknown })._id === "string",
  );
}
