import { isIndexSegment, keyedEntryField } from "./column-path";

/** Reads one column's raw value from a record; `undefined` when any step is missing. */
export type Getter = (record: unknown) => unknown;

/**
 * Compiles a column path into a getter, once per column rather than once per record. Each
 * getter is generated code of its own with the path's names as constant property keys, so V8
 * gives every property read its own monomorphic inline cache; closures sharing one
 * `value[segment]` read made that read megamorphic and the builder ~10x slower (100k records).
 * Per-record generic flattening cost 1.3-2.5 s there. Segments are embedded with
 * `JSON.stringify`, which always yields a plain string literal, and validated by `planColumns`.
 *
 * - An index segment (`tags.0`) indexes an array.
 * - The segment at `namedEntryAt` (see `namedEntryIndex`) picks the array entry whose `name`
 *   equals it: its `value` when the segment is the last one (`derivedProperties.volume`), else
 *   the entry itself, so deeper segments read the entry's other keys
 *   (`derivedProperties.volume.units`). Any other name segment on an array gives undefined.
 * - A keyed entry (`elemental_ratio`, `p-norm`) followed by one last segment picks the entry whose
 *   key equals it and reads its `value`: `derivedProperties.elemental_ratio.Si`, `derivedProperties.p-norm.2`.
 *
 * @example compileGetter(["lattice", "a"])({ lattice: { a: 3.1 } }) // 3.1
 */
export function compileGetter(segments: readonly string[], namedEntryAt?: number): Getter {
  let body = "let v = record;\n";
  let done = false;
  segments.forEach((segment, i) => {
    if (done) return;
    const key = JSON.stringify(segment);
    const last = i === segments.length - 1;
    body += 'if (v === null || typeof v !== "object") return undefined;\n';
    const keyField = i === namedEntryAt && i === segments.length - 2 ? keyedEntryField(segment) : undefined;
    if (keyField) {
      body += `v = Array.isArray(v) ? pickKeyed(v, ${key}, ${JSON.stringify(keyField)}, ${JSON.stringify(segments[i + 1])}) : undefined;\n`;
      done = true;
    } else if (isIndexSegment(segment)) body += `v = Array.isArray(v) ? v[${Number(segment)}] : v[${key}];\n`;
    else if (i === namedEntryAt) body += `v = Array.isArray(v) ? pickNamed(v, ${key}, ${last}) : v[${key}];\n`;
    else body += `v = Array.isArray(v) ? undefined : v[${key}];\n`;
  });
  // Inherited members (`constructor`, `toString`) are functions, never data.
  body += 'return typeof v === "function" ? undefined : v;';
  const make = new Function("pickNamed", "pickKeyed", `"use strict";\nreturn function get(record) {\n${body}\n};`) as (
    pick: typeof pickNamed,
    keyed: typeof pickKeyed,
  ) => Getter;
  return make(pickNamed, pickKeyed);
}

/** The `value` of the entry named `name` whose `field` reads `key` (numbers compared as text: `2` is degree 2). */
function pickKeyed(entries: readonly unknown[], name: string, field: string, key: string): unknown {
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as Record<string, unknown> | null;
    if (entry !== null && typeof entry === "object" && entry.name === name && String(entry[field]) === key)
      return entry.value;
  }
  return undefined;
}

function pickNamed(entries: readonly unknown[], name: string, last: boolean): unknown {
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as { name?: unknown; value?: unknown } | null;
    if (entry !== null && typeof entry === "object" && entry.name === name) return last ? entry.value : entry;
  }
  return undefined;
}
