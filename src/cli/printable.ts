// Text a remote platform sent (a job's name, a file's key, a server's message) is shown on the
// user's terminal: its control characters would be run by the terminal (an escape sequence can
// rewrite the screen or the window title), so each is written out as a visible \u escape.

/** C0 and C1 controls, DEL, and the bidirectional overrides that reorder what a line shows. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The line and paragraph separators: shown as they are by `printable` (a terminal does not act on
 * them), but a JSON line escapes them too, since a reader that splits lines at them (JavaScript
 * before ES2019, some editors) would cut the line in two.
 */
const SEPARATORS = /[\u2028\u2029]/g;

const asEscape = (char: string): string => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * `text` with every control character shown as `\uXXXX`, safe to write to a terminal.
 * @example printable("a\u001b[2Jb") // "a\\u001b[2Jb"
 */
export function printable(text: string): string {
  return text.replace(UNSAFE, asEscape);
}

/**
 * `value` as one line of JSON that is safe on a terminal: JSON.stringify escapes C0 controls only,
 * so the other characters {@link printable} escapes (C1 controls and bidirectional overrides in a
 * remote value, a job's name), and the line separators, are written as `\uXXXX` too, which any JSON
 * reader reads back as the same characters. JSON's text holds no C0 control, so `printable` finds
 * only those others in it.
 */
export function jsonLine(value: unknown): string {
  return printable(JSON.stringify(value)).replace(SEPARATORS, asEscape);
}
