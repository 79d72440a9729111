// How text becomes one CSV field: the rule the string column type's CSV writer and the CSV export
// share. It lives beside the column types (not in export/) because their registry holds it.

/** Characters that force a CSV field into quotes (RFC 4180, section 2.6). */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * First characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection"):
 * `=HYPERLINK("http://x","y")` as a material's name would run when the file is opened.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * `text` as one CSV field: wrapped in quotes with its quotes doubled when it holds a comma, quote,
 * CR or LF; with `escapeFormulas`, a leading `'` when a spreadsheet would run it as a formula.
 */
export function csvText(text: string, escapeFormulas: boolean): string {
  const shown = escapeFormulas && FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(shown) ? `"${shown.replace(/"/g, '""')}"` : shown;
}
