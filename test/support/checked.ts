// Checked reads for tests under noUncheckedIndexedAccess: an element a test expects and does not
// find fails the test with a message naming what was missing, where a `!` would let the test
// go on to a TypeError about `undefined` some lines later.

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

/**
 * Capture group `group` of `pattern`'s first match in `text`, or a failure quoting the start of
 * the text.
 * @example const port = captured(/port (\d+)/, stdout, "the port line");
 */
export function captured(pattern: RegExp, text: string, what = String(pattern), group = 1): string {
  const match = pattern.exec(text);
  if (!match) throw new Error(`expected ${what} in ${JSON.stringify(text.slice(0, 200))}`);
  const value = match[group];
  if (value === undefined) throw new Error(`group ${group} of ${what} took no part in the match`);
  return value;
}

/** Capture group `group` of every match of the global `pattern` in `text`, in order. */
export function capturedAll(pattern: RegExp, text: string, group = 1): string[] {
  return [...text.matchAll(pattern)].map((match) => {
    const value = match[group];
    if (value === undefined) throw new Error(`group ${group} of ${pattern} took no part in a match`);
    return value;
  });
}
