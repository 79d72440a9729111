import type { Method } from "../../schemas";

/**
 * Whether `value` satisfies the shared `Method` zod schema (src/schemas/method.ts): a plain
 * object whose `type` and `subtype` are strings and whose optional `precision` and `data` are
 * plain objects. Written by hand because it runs once per row: `Method.safeParse` cost 60 ms
 * per 100k rows here, this about 2 ms. test/frame/method-check.test.ts checks that the two agree
 * on arbitrary JSON values, so a schema change that this misses fails a test.
 */
export function isValidMethod(value: unknown): value is Method {
  if (!isPlainObject(value)) return false;
  const method = value as Record<string, unknown>;
  return (
    typeof method.type === "string" &&
    typeof method.subtype === "string" &&
    (method.precision === undefined || isPlainObject(method.precision)) &&
    (method.data === undefined || isPlainObject(method.data))
  );
}

function isPlainObject(value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
