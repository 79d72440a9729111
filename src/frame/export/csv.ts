/** Characters that force a CSV field into quotes (RFC 4180, section 2.6). */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * First characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection"):
 * `=HYPERLINK("http://x","y")` as a material's name would run when the file is opened.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV field per RFC 4180: a field holding a comma, quote, CR or LF is wrapped in quotes
 * with its quotes doubled, so `Fe2O3, hematite` and multi-line text survive a round trip.
 * Missing values are empty; objects and arrays become JSON; dates ISO strings. With
 * `escapeFormulas` (the default) a text cell that a spreadsheet would run as a formula gets a
 * leading `'`, as OWASP recommends; numbers stay numbers.
 *
 * @example csvField('say "hi", then go') // '"say ""hi"", then go"'
 * @example csvField("=1+1") // "'=1+1"
 */
export function csvField(value: unknown, escapeFormulas = true): string {
  let text: string;
  switch (typeof value) {
    case "string":
      text = escapeFormulas && FORMULA_START.test(value) ? `'${value}` : value;
      break;
    case "number":
      return Number.isNaN(value) ? "" : String(value);
    case "boolean":
    case "bigint":
      return String(value);
    case "object":
      if (value === null) return "";
      text = value instanceof Date ? value.toISOString() : JSON.stringify(value);
      break;
    default:
      return "";
  }
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV record, without its line ending. */
export function csvLine(cells: readonly unknown[], escapeFormulas = true): string {
  let line = "";
  for (let i = 0; i < cells.length; i++) {
    if (i > 0) line += ",";
    line += csvField(cells[i], escapeFormulas);
  }
  return line;
}
