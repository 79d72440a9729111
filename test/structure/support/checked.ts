// Checked reads for tests under noUncheckedIndexedAccess: an item a test expects and does not
// find fails the test with a message naming what was missing, where `array[i]!` would let the
// test go on to a TypeError about `undefined` some lines later (or to no failure at all).
// The same `at` and `defined` as the other test folders' checked.ts, so they can become one file.

/**
 * `items[index]` (a negative index counts from the end, as `Array.prototype.at`), or a failure
 * saying how long the list was.
 * @example at(read, i, "the structures pymatgen read")
 */
export function at<T>(items: ArrayLike<T>, index: number, what = "the list"): T {
  const value = items[index < 0 ? items.length + index : index];
  if (value === undefined) throw new Error(`expected an item at index ${index} of ${what}, which has ${items.length}`);
  return value;
}

/** `value` narrowed to neither undefined nor null, or a failure naming `what` was missing. */
export function defined<T>(value: T, what: string): NonNullable<T> {
  if (value === undefined || value === null) throw new Error(`expected ${what}, got ${String(value)}`);
  return value;
}

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
