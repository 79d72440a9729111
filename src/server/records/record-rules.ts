import { FORBIDDEN_KEYS } from "../../schemas";
import { badRequest } from "../http/http-errors";

/** Deepest nesting of a written record or value (a material is about 6 levels deep). */
export const MAX_RECORD_DEPTH = 32;

/** Largest written record, serialised: a big supercell, not a dump of a database. */
export const MAX_RECORD_BYTES = 1024 * 1024;

/** Largest request body of a write (create, update, import). */
export const MAX_WRITE_BODY_BYTES = MAX_RECORD_BYTES;

/**
 * Checks a value that will be stored: no key that starts with `$`, holds a `.` or names a
 * prototype (`__proto__`, `constructor`, `prototype`), and no deeper than
 * {@link MAX_RECORD_DEPTH}. The same key rules as queries: stored keys must stay queryable.
 */
export function checkValue(value: unknown, where: string, depth = 0): void {
  if (depth > MAX_RECORD_DEPTH)
    throw badRequest(`${where} is nested more than ${MAX_RECORD_DEPTH} levels deep; flatten it.`);
  if (typeof value === "number" && !Number.isFinite(value)) throw badRequest(`${where} is not a finite number.`);
  if (typeof value !== "object" || value === null) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      checkValue(item, `${where}[${i}]`, depth + 1);
    });
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = `${where}.${key.slice(0, 60)}`;
    if (FORBIDDEN_KEYS.has(key)) throw badRequest(`The key "${key}" is not allowed (at ${at}).`);
    if (key.startsWith("$"))
      throw badRequest(`The key "${key.slice(0, 60)}" is not allowed (at ${at}): stored keys may not start with $.`);
    if (key.includes(".") || key === "")
      throw badRequest(
        `The key "${key.slice(0, 60)}" is not allowed (at ${at}): stored keys may not be empty or hold a dot.`,
      );
    checkValue(item, at, depth + 1);
  }
}

/** Refuses a record whose JSON is larger than {@link MAX_RECORD_BYTES}. */
export function checkRecordSize(record: object, what: string): void {
  const bytes = Buffer.byteLength(JSON.stringify(record));
  if (bytes > MAX_RECORD_BYTES) {
    throw badRequest(`${what} would be ${bytes} bytes; a record may have at most ${MAX_RECORD_BYTES} bytes.`);
  }
}
