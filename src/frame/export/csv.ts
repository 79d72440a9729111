import { columnTypeRecord, csvWriterOf } from "../table/column-type-registry";

// A CSV export is not typed: each cell is written by the column type its value's kind would be
// inferred as (numbers as doubles, bigints as int64). Resolved once, here, not per cell.
const writeString = csvWriterOf("string");
const writeNumber = csvWriterOf("number");
const writeBoolean = csvWriterOf("boolean");
const writeBigint = csvWriterOf("bigint");
// Objects become text as a text column takes them (JSON; dates ISO 8601).
const textType = columnTypeRecord("string");

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
  switch (typeof value) {
    case "string":
      return writeString(value, escapeFormulas);
    case "number":
      return writeNumber(value, escapeFormulas);
    case "boolean":
      return writeBoolean(value, escapeFormulas);
    case "bigint":
      return writeBigint(value, escapeFormulas);
    case "object":
      // As ever, an object's text (JSON, an ISO date) is not formula-escaped, only quoted.
      return value === null ? "" : writeString(textType.toCell(value) ?? "", false);
    default:
      return "";
  }
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
