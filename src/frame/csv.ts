/** Characters that force a CSV field into quotes (RFC 4180, section 2.6). */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV field per RFC 4180: a field holding a comma, quote, CR or LF is wrapped in quotes
 * with its quotes doubled, so `Fe2O3, hematite` and multi-line text survive a round trip.
 * Missing values are empty; objects and arrays become JSON; dates ISO strings.
 *
 * @example csvField('say "hi", then go') // '"say ""hi"", then go"'
 */
export function csvField(value: unknown): string {
  let text: string;
  switch (typeof value) {
    case "string":
      text = value;
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
export function csvLine(cells: readonly unknown[]): string {
  let line = "";
  for (let i = 0; i < cells.length; i++) {
    if (i > 0) line += ",";
    line += csvField(cells[i]);
  }
  return line;
}
