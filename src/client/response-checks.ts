import type { z } from "zod";
import type { Material } from "../schemas";

/** The outcome of checking a JSend `data` value. */
export type CheckResult<T> = { ok: true; value: T } | { ok: false; issues: z.core.$ZodIssue[] };

/** Checks (and may narrow) the `data` of a successful response. */
export type ResponseCheck<T> = (data: unknown) => CheckResult<T>;

/** A check from a zod schema; fine for single records, too slow for pages (see `recordArray`). */
export function fromSchema<T>(schema: z.ZodType<T>): ResponseCheck<T> {
  return (data) => {
    const parsed = schema.safeParse(data);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: parsed.error.issues };
  };
}

/**
 * A loose check for a page of records: an array of objects (each with a string `_id` when
 * `requireId`), at most `maxItems` long. Deliberately not `z.array(Material)`: parsing every
 * record with zod costs more than the whole rest of the client at 55k records/s, and a
 * record's fields are whatever the projection asked for anyway.
 */
export function recordArray(o: { requireId: boolean; maxItems?: number }): ResponseCheck<Material[]> {
  return (data) => {
    if (!Array.isArray(data)) return fail([], `Expected an array of records, got ${describe(data)}`);
    if (o.maxItems !== undefined && data.length > o.maxItems) {
      return fail([], `Expected at most ${o.maxItems} records (the limit asked for), got ${data.length}`);
    }
    for (let i = 0; i < data.length; i++) {
      const record = data[i] as { _id?: unknown } | null;
      if (record === null || typeof record !== "object" || Array.isArray(record)) {
        return fail([i], `Expected a record object, got ${describe(record)}`);
      }
      if (o.requireId && typeof record._id !== "string") {
        return fail([i, "_id"], `Expected a string _id (paging needs it), got ${describe(record._id)}`);
      }
    }
    return { ok: true, value: data as Material[] };
  };
}

function fail(path: PropertyKey[], message: string): CheckResult<never> {
  return { ok: false, issues: [{ code: "custom", path, message }] };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : typeof value;
}
