import type { Vector3 } from "../../../src";

// Checked reads for tests under noUncheckedIndexedAccess: an item a test expects and does not
// find fails the test with a message naming what was missing, where `array[i]!` would let the
// test go on to a TypeError about `undefined` some lines later (or to no failure at all).
// test/notebook reads it too. `at` and `defined` are test/support's, re-exported.

export { at, defined } from "../../support/checked";
import { at } from "../../support/checked";

/**
 * The pairs `[items[i], others[i]]` of two lists that go item for item (records and a reference's
 * results for them), or a failure when their lengths differ, which `others[i]` in a loop over
 * `items` would pass over.
 * @example for (const [record, ref] of zip(records, refs, "pymatgen's analyses")) …
 */
export function zip<A, B>(items: readonly A[], others: readonly B[], what = "the second list"): [A, B][] {
  if (items.length !== others.length)
    throw new Error(
      `expected ${what} to have ${items.length} items, one per item of the first; it has ${others.length}`,
    );
  return items.map((item, i) => [item, at(others, i, what)]);
}

type Tuple<T, N extends number, R extends T[] = []> = R["length"] extends N ? R : Tuple<T, N, [...R, T]>;

/**
 * The first `n` items of a list as a tuple to destructure, or a failure saying how long the list was.
 * @example const [nc, us, one] = first(heights, 3, "the bar heights");
 */
export function first<T, N extends number>(items: ArrayLike<T>, n: N, what = "the list"): Tuple<T, N> {
  if (items.length < n) throw new Error(`expected at least ${n} items in ${what}, which has ${items.length}`);
  return Array.from({ length: n }, (_, i) => items[i] as T) as Tuple<T, N>;
}

/** The three numbers of a vector read from JSON (a lattice vector, a position), or a failure. */
export function three(values: readonly number[], what: string): Vector3 {
  const [x, y, z] = values;
  if (values.length !== 3 || x === undefined || y === undefined || z === undefined)
    throw new Error(`expected ${what} to be three numbers, got ${JSON.stringify(values)}`);
  return [x, y, z];
}

/** Capture group `n` of a match (a group outside any `?`, `*` or `|` always takes part), or a failure. */
export function group(match: RegExpMatchArray, n: number): string {
  const value = match[n];
  if (value === undefined) throw new Error(`group ${n} took no part in the match ${JSON.stringify(match[0])}`);
  return value;
}

/**
 * Capture group `n` of `pattern`'s first match in `text`, or a failure quoting the start of the text.
 * @example const src = captured(/src="([^"]+)"/, html, "the image's source");
 */
export function captured(pattern: RegExp, text: string, what = String(pattern), n = 1): string {
  const match = pattern.exec(text);
  if (!match) throw new Error(`expected ${what} in ${JSON.stringify(text.slice(0, 200))}`);
  return group(match, n);
}
