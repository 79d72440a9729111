import type { z } from "zod";
import type { PlatformRecord } from "../platform-record";

/** The outcome of checking a JSend `data` value. */
export type CheckResult<T> = { ok: true; value: T } | { ok: false; issues: z.core.$ZodIssue[] };

/** Checks (and may narrow) the `data` of a successful response. */
export type ResponseCheck<T> = (data: unknown) => CheckResult<T>;

/**
 * A loose check for a page of records: an array of objects (each with a string `_id` when
 * `requireId`), at most `maxItems` long. Deliberately not a zod array schema: parsing every
 * record with zod costs more than the whole rest of the client at 55k records/s, and a
 * record's fields are whatever the projection asked for anyway.
 */
export function recordArray(o: { requireId: boolean; maxItems?: number }): ResponseCheck<PlatformRecord[]> {
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
    return { ok: true, value: data as PlatformRecord[] };
  };
}

/** One record (`get`): an object with a string `_id`. */
export const recordObject: ResponseCheck<PlatformRecord> = (data) => {
  if (data === null || typeof data !== "object" || Array.isArray(data))
    return fail([], `Expected a record object, got ${describe(data)}`);
  if (typeof (data as { _id?: unknown })._id !== "string")
    return fail(["_id"], `Expected a string _id, got ${describe((data as { _id?: unknown })._id)}`);
  return { ok: true, value: data as PlatformRecord };
};

function fail(path: PropertyKey[], message: string): CheckResult<never> {
  return { ok: false, issues: [{ code: "custom", path, message }] };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : typeof value;
}
