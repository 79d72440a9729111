import { isIndexSegment } from "./column-spec";

/** Reads one column's raw value from a record; `undefined` when any step is missing. */
export type Getter = (record: unknown) => unknown;

/**
 * Compiles a column path into a getter, once per column rather than once per record. Each
 * getter is generated code of its own with the path's names as constant property keys, so V8
 * gives every property read its own monomorphic inline cache; closures sharing one
 * `value[segment]` read made that read megamorphic and the builder ~10x slower (100k records).
 * Per-record generic flattening cost 1.3-2.5 s there (issue 4). Segments are embedded with
 * `JSON.stringify`, which always yields a plain string literal, and validated by `planColumns`.
 *
 * - An index segment (`tags.0`) indexes an array.
 * - The segment at `namedEntryAt` (see `namedEntryIndex`) picks the array entry whose `name`
 *   equals it: its `value` when the segment is the last one (`derivedProperties.volume`), else
 *   the entry itself, so deeper segments read the entry's other keys
 *   (`derivedProperties.volume.units`). Any other name segment on an array gives undefined.
 *
 * @example compileGetter(["lattice", "a"])({ lattice: { a: 3.1 } }) // 3.1
 */
export function compileGetter(segments: readonly string[], namedEntryAt?: number): Getter {
  let body = "let v = record;\n";
  segments.forEach((segment, i) => {
    const key = JSON.stringify(segment);
    const last = i === segments.length - 1;
    body += 'if (v === null || typeof v !== "object") return undefined;\n';
    if (isIndexSegment(segment)) body += `v = Array.isArray(v) ? v[${Number(segment)}] : v[${key}];\n`;
    else if (i === namedEntryAt) body += `v = Array.isArray(v) ? pickNamed(v, ${key}, ${last}) : v[${key}];\n`;
    else body += `v = Array.isArray(v) ? undefined : v[${key}];\n`;
  });
  // Inherited members (`constructor`, `toString`) are functions, never data.
  body += 'return typeof v === "function" ? undefined : v;';
  const make = new Function("pickNamed", `"use strict";\nreturn function get(record) {\n${body}\n};`) as (
    pick: typeof pickNamed,
  ) => Getter;
  return make(pickNamed);
}

function pickNamed(entries: readonly unknown[], name: string, last: boolean): unknown {
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as { name?: unknown; value?: unknown } | null;
    if (entry !== null && typeof entry === "object" && entry.name === name) return last ? entry.value : entry;
  }
  return undefined;
}
