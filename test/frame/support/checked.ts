// Reads a test expects to find something at: a miss fails with what was missing, where
// `array[i]!` would go on with undefined and fail further on, or not at all.

/** The item at `index` (negative counts from the end), or a failure naming `what`. */
export function at<T>(items: ArrayLike<T>, index: number, what = "the list"): T {
  const position = index < 0 ? items.length + index : index;
  const item = items[position];
  if (position < 0 || position >= items.length || item === undefined)
    throw new Error(`Expected an item at ${index} of ${what}, which has ${items.length}.`);
  return item;
}

/** A value the test expects to be there (a record's field, a map's entry), or a failure naming it. */
export function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`Expected ${what} to be there.`);
  return value;
}
