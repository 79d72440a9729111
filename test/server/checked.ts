// Checked reads for the server and compute tests under noUncheckedIndexedAccess: an element a test
// expects and does not find fails the test with a message naming what was missing, where a `!`
// would let it go on to a TypeError about `undefined` some lines later. (Same signatures as
// test/support/checked.ts on the strict-client branch, so the two can become one after merging.)

/**
 * `array[index]` (a negative index counts from the end, as `Array.prototype.at`), or a failure
 * saying how long the array was.
 * @example at(lines, -1, "the last line of stdout")
 */
export function at<T>(array: ArrayLike<T>, index: number, what = "element"): T {
  const value = array[index < 0 ? array.length + index : index];
  if (value === undefined) throw new Error(`expected ${what} at index ${index}, but the array has ${array.length}`);
  return value;
}

/** `value` narrowed to neither undefined nor null, or a failure naming `what` was missing. */
export function defined<T>(value: T, what: string): NonNullable<T> {
  if (value === undefined || value === null) throw new Error(`expected ${what}, got ${String(value)}`);
  return value;
}
