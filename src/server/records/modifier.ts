import { update } from "mingo/updater";
import { FORBIDDEN_KEYS } from "../../schemas";
import { badRequest } from "../http/http-errors";
import { describe } from "../query/query-filter";
import { checkValue } from "./record-rules";

/** The update operators PATCH accepts: the platform's everyday ones, none that computes or renames. */
export const MODIFIER_OPERATORS = ["$set", "$unset", "$push", "$pull", "$addToSet"] as const;
type ModifierOperator = (typeof MODIFIER_OPERATORS)[number];

/** Paths the server owns: never changed by a modifier (nor anything below them). */
export const PROTECTED_PATHS = ["_id", "owner", "createdAt"];

/**
 * Fields the platform derives from the structure (`lattice` and `basis`): recomputed on every
 * write that changes the structure, never set by hand, or the record would disagree with itself.
 */
export const DERIVED_PATHS = ["formula", "unitCellFormula", "derivedProperties"];

/** The structure itself: its parts may change, but a material does not lose it. */
const STRUCTURE_PATHS = ["lattice", "basis"];

/**
 * The largest array index a path may name: any larger and MongoDB-style padding would build an
 * array of that many nulls before the record's size could be checked. Arrays of a record are at
 * most as long as its basis can be (a structure's atom limit).
 */
export const MAX_ARRAY_INDEX = 100_000;

/** A checked modifier: operators from the allow-list over checked paths and values. */
export type Modifier = Partial<Record<ModifierOperator, Record<string, unknown>>>;

function checkModifierPath(path: string, operator: string): void {
  const where = `${operator}.${path}`;
  for (const segment of path.split(".")) {
    if (segment === "") throw badRequest(`"${path}" (in ${operator}) is not a valid dotted path.`);
    if (FORBIDDEN_KEYS.has(segment)) throw badRequest(`The key "${segment}" is not allowed (in ${where}).`);
    if (segment.startsWith("$")) {
      throw badRequest(
        `"${segment}" (in ${where}) is not allowed: paths may not hold $ operators (positional updates are not supported).`,
      );
    }
  }
  for (const segment of path.split(".")) {
    if (/^\d+$/.test(segment) && Number(segment) > MAX_ARRAY_INDEX) {
      throw badRequest(
        `${where} names array index ${segment.length > 12 ? `${segment.slice(0, 12)}...` : segment}; an index may be at most ${MAX_ARRAY_INDEX} (use $push to append).`,
      );
    }
  }
  const [top = path] = path.split(".");
  if (DERIVED_PATHS.includes(top)) {
    throw badRequest(
      `${where} is refused: ${top} is computed from the structure (lattice and basis) on every write; change the structure instead.`,
    );
  }
  if (operator === "$unset" && STRUCTURE_PATHS.includes(path)) {
    throw badRequest(`${where} is refused: a material keeps its ${path}; change its parts with $set instead.`);
  }
  if (PROTECTED_PATHS.includes(top)) {
    throw badRequest(
      `${where} is refused: ${top} is set by the server and cannot be changed${top === "owner" ? " (a record keeps its owner; copy it to get your own)" : ""}.`,
    );
  }
}

/**
 * A plain object of fields (`{"name": "new"}`, no key starting with `$`) is `$set` of those
 * fields: the platform's Python client sends updates that way ("a dictionary of key-values to
 * update entity with"). A body that mixes fields and operators is refused: which one was meant?
 */
function asOperators(value: object): object {
  const keys = Object.keys(value);
  const fields = keys.filter((key) => !key.startsWith("$"));
  if (fields.length === 0) return value;
  if (fields.length < keys.length) {
    throw badRequest(
      `The modifier mixes fields (${fields
        .slice(0, 3)
        .map((f) => JSON.stringify(f.slice(0, 40)))
        .join(
          ", ",
        )}) with operators; give either a plain object of fields (set as given) or operators only, such as {"$set": {"name": "..."}}.`,
    );
  }
  return { $set: value };
}

/**
 * Checks a PATCH body: an object of allowed operators, each an object of dotted paths to values,
 * or a plain object of fields, taken as `$set` of them. Values follow the record rules (no `$` or
 * prototype keys, bounded depth), except that `$push` and `$addToSet` take `{ $each: [...] }`.
 * Throws a 400 naming what was refused.
 */
export function checkModifier(body: unknown): Modifier {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw badRequest(
      `The modifier must be a JSON object such as {"$set": {"name": "..."}} or {"name": "..."}, not ${describe(body)}.`,
    );
  }
  const value = asOperators(body);
  const entries = Object.entries(value);
  if (entries.length === 0)
    throw badRequest(`The modifier is empty; give at least one of ${MODIFIER_OPERATORS.join(", ")}, or fields to set.`);
  for (const [operator, fields] of entries) {
    if (!(MODIFIER_OPERATORS as readonly string[]).includes(operator)) {
      throw badRequest(
        `The update operator "${operator.slice(0, 40)}" is not supported. Allowed: ${MODIFIER_OPERATORS.join(" ")}.`,
      );
    }
    if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
      throw badRequest(`${operator} takes an object of field paths to values, not ${describe(fields)}.`);
    }
    if (Object.keys(fields).length === 0) throw badRequest(`${operator} is empty; give at least one field.`);
    for (const [path, fieldValue] of Object.entries(fields as Record<string, unknown>)) {
      checkModifierPath(path, operator);
      const where = `${operator}.${path}`;
      const eachAllowed = operator === "$push" || operator === "$addToSet";
      if (
        eachAllowed &&
        typeof fieldValue === "object" &&
        fieldValue !== null &&
        !Array.isArray(fieldValue) &&
        "$each" in fieldValue
      ) {
        const keys = Object.keys(fieldValue);
        if (keys.length !== 1) throw badRequest(`${where} may hold only $each (no $slice, $sort or $position).`);
        const each = (fieldValue as { $each: unknown }).$each;
        if (!Array.isArray(each)) throw badRequest(`${where}.$each must be an array, not ${describe(each)}.`);
        checkValue(each, `${where}.$each`);
      } else {
        checkValue(fieldValue, where);
      }
    }
  }
  return value as Modifier;
}

/**
 * The record with the modifier applied, on a deep copy: the original is untouched, so a refused
 * update leaves nothing half-applied. Throws a 400 when MongoDB's rules refuse the update (for
 * instance two operators on the same path, or `$push` on a field that is not an array).
 */
export function applyModifier<T extends Record<string, unknown>>(record: T, modifier: Modifier): T {
  // mingo skips an array operator on a field that is not an array; MongoDB refuses it, and so do we.
  for (const operator of ["$push", "$pull", "$addToSet"] as const) {
    for (const path of Object.keys(modifier[operator] ?? {})) {
      const current = valueAt(record, path);
      if (current !== undefined && !Array.isArray(current)) {
        throw badRequest(
          `The modifier cannot be applied: ${operator}.${path} needs an array, but ${path} is ${describe(current)}.`,
        );
      }
    }
  }
  // An index past an array's end would pad it with nulls: refused, so the padding never exists.
  for (const fields of Object.values(modifier)) {
    for (const path of Object.keys(fields ?? {})) checkIndexes(record, path);
  }
  const copy = structuredClone(record);
  try {
    update(copy, modifier as Parameters<typeof update>[1], undefined, undefined, { cloneMode: "deep" });
  } catch (error) {
    throw badRequest(`The modifier cannot be applied: ${(error as Error).message}.`);
  }
  return copy;
}

function valueAt(record: Record<string, unknown>, path: string): unknown {
  let value: unknown = record;
  for (const segment of path.split(".")) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** Refuses a path whose array index lies past the end of the array it indexes. */
function checkIndexes(record: Record<string, unknown>, path: string): void {
  let value: unknown = record;
  const segments = path.split(".");
  for (const [i, segment] of segments.entries()) {
    if (Array.isArray(value) && /^\d+$/.test(segment) && Number(segment) > value.length) {
      throw badRequest(
        `The modifier cannot be applied: ${segments.slice(0, i).join(".")} has ${value.length} entries, so index ${segment} would leave a gap; use an index up to ${value.length}, or $push to append.`,
      );
    }
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, segment)) return;
    value = (value as Record<string, unknown>)[segment];
  }
}
