// Text a remote user chose (a username, a path) on its way to a terminal: the server's log and
// the teacher's console. One function for every such value, so no line prints one raw.

/**
 * Characters a terminal may act on rather than show: C0 controls and DEL (line breaks, ESC, BEL),
 * C1 controls U+0080-U+009F (U+009B is a one-character CSI to terminals that take 8-bit
 * controls), format characters such as bidirectional overrides that reorder what is shown
 * (https://trojansource.codes/), line and paragraph separators, and lone surrogates.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}"\\]/gu;

/**
 * {@link UNSAFE} without the quote: what a page must not show as it is (the backslash too, so a
 * name typed as `\u202e` is not shown as one holding the character).
 */
const CONTROLS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\\]/gu;

/** The bidirectional controls (the format characters that reorder what a line shows). */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/**
 * The first character of `text` that a name may not hold, with its 1-based position (in
 * characters, not UTF-16 units) and what kind it is: the characters {@link escapeForTerminal}
 * writes out (controls, format characters, separators, lone surrogates) but for ZWNJ and ZWJ
 * (U+200C, U+200D), which Persian and Indic scripts spell with. Quotes and `\` are not among them.
 */
export function unsafeCharacter(text: string): { codePoint: string; at: number; kind: string } | undefined {
  let at = 0;
  for (const char of text) {
    at++;
    if (char === "\u200c" || char === "\u200d" || char === '"' || char === "\\") continue;
    if (!/^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]$/u.test(char)) continue;
    const kind = /\p{Cc}/u.test(char)
      ? "a control character"
      : BIDI.test(char)
        ? "a bidirectional control"
        : /\p{Cf}/u.test(char)
          ? "an invisible formatting character"
          : /\p{Cs}/u.test(char)
            ? "a lone surrogate"
            : "a line or paragraph separator";
    const codePoint = `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
    return { codePoint, at, kind };
  }
  return undefined;
}

/** A name that can be typed back as it is shown: no quotes needed on the console. */
const PLAIN = /^[A-Za-z0-9._@+-]+$/;

function escapeOne(c: string): string {
  if (c === '"' || c === "\\") return `\\${c}`;
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * `text` with every character a terminal may act on written as a `\uXXXX` escape (and `"` and
 * `\` escaped), so it prints as one line of visible characters; for values shown unquoted, such
 * as a request's path in the log.
 */
export function escapeForTerminal(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}

/**
 * `text` with the characters a terminal or a page may act on (controls, format characters such as
 * bidirectional overrides, separators, lone surrogates) written as `\uXXXX` (and `\` as `\\`), quotes left as they
 * are: for text shown on a page, which may be copied to a terminal (HTML-escape it too).
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, escapeOne);
}

/**
 * `text` as a double-quoted string safe to print on a terminal: every control, format or
 * separator character written as a `\uXXXX` escape, so the result is also a valid JSON string
 * (the console's `unlock "..."` reads it back with `JSON.parse`). Longer text is cut to
 * `maxLength` characters and marked with `...` after the closing quote.
 * @example quoteForTerminal("z\r\nmatframe serve: stopped") // "\"z\\u000d\\u000amatframe serve: stopped\""
 */
export function quoteForTerminal(text: string, maxLength = 64): string {
  const cut = text.length > maxLength ? text.slice(0, maxLength) : text;
  // A cut through a surrogate pair leaves a lone surrogate, which is escaped like the others.
  return `"${escapeForTerminal(cut)}"${cut.length < text.length ? "..." : ""}`;
}

/**
 * `text` as it should be typed on the console as a command's argument: as it is when it is plain
 * (letters, digits, `._@+-`), else quoted and escaped as {@link quoteForTerminal} writes it, whole.
 */
export function commandArgument(text: string): string {
  return PLAIN.test(text) ? text : quoteForTerminal(text, Number.MAX_SAFE_INTEGER);
}

/** The value of a console command's argument: a quoted one (as {@link commandArgument} writes it) unquoted. */
export function readCommandArgument(typed: string): string | undefined {
  const text = typed.trim();
  if (!text.startsWith('"')) return text;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}
