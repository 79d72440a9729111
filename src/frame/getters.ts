import { isIndexSegment } from "./column-spec";

/** Reads one column's raw value from a record; `undefined` when any step is missing. */
export type Getter = (record: unknown) => unknown;

type Step = (value: unknown) => unknown;

/**
 * Compiles a column path into a getter, once per column rather than once per record: each
 * segment becomes a small closure and the getter chains them with no per-record parsing.
 * Measured on 100k records (issue 4): generic per-record flattening cost 1.3-2.5 s, this 0.05 s.
 *
 * - An index segment (`tags.0`) indexes an array.
 * - A name segment on an array picks the entry whose `name` equals it: its `value` when the
 *   segment is the last one (`derivedProperties.volume`), else the entry itself, so deeper
 *   segments read the entry's other keys (`derivedProperties.volume.units`).
 *
 * @example compileGetter(["lattice", "a"])({ lattice: { a: 3.1 } }) // 3.1
 */
export function compileGetter(segments: readonly string[]): Getter {
  const steps = segments.map((segment, i) => compileStep(segment, i === segments.length - 1));
  const get = chain(steps);
  return (record) => {
    const value = get(record);
    // Inherited members (`constructor`, `toString`) are functions, never data.
    return typeof value === "function" ? undefined : value;
  };
}

function chain(steps: readonly Step[]): Step {
  // Fixed arities keep the common depths (1-3) free of a loop and its array reads.
  switch (steps.length) {
    case 1:
      return steps[0];
    case 2: {
      const [a, b] = steps;
      return (r) => b(a(r));
    }
    case 3: {
      const [a, b, c] = steps;
      return (r) => c(b(a(r)));
    }
    default:
      return (r) => {
        let value = r;
        for (let i = 0; i < steps.length; i++) value = steps[i](value);
        return value;
      };
  }
}

function compileStep(segment: string, last: boolean): Step {
  if (isIndexSegment(segment)) {
    const index = Number(segment);
    return (value) => {
      if (value === null || typeof value !== "object") return undefined;
      return Array.isArray(value) ? value[index] : (value as Record<string, unknown>)[segment];
    };
  }
  return (value) => {
    if (value === null || typeof value !== "object") return undefined;
    if (Array.isArray(value)) return pickNamed(value, segment, last);
    return (value as Record<string, unknown>)[segment];
  };
}

function pickNamed(entries: readonly unknown[], name: string, last: boolean): unknown {
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as { name?: unknown; value?: unknown } | null;
    if (entry !== null && typeof entry === "object" && entry.name === name) return last ? entry.value : entry;
  }
  return undefined;
}
