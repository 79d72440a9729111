/** A cell as the tables print it, and whether it reads as a number (right-aligned). */
export interface FormattedCell {
  text: string;
  numeric: boolean;
}

/** Longest cell text before it is cut with an ellipsis, so one long field cannot swamp a table. */
export const MAX_CELL_CHARS = 80;

/**
 * Formats one cell. Numbers keep up to four decimals (enough for lattice
 * lengths in Å) and small ones three significant digits; missing values are
 * empty; objects and arrays are shown as compact JSON.
 */
export function formatCell(value: unknown): FormattedCell {
  if (value === null || value === undefined) return { text: "", numeric: false };
  if (typeof value === "number") return { text: formatNumber(value), numeric: true };
  if (typeof value === "bigint") return { text: value.toString(), numeric: true };
  if (value instanceof Date) return { text: value.toISOString(), numeric: false };
  const text = typeof value === "string" ? value : stringify(value);
  return { text: truncate(text), numeric: false };
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? "" : String(value);
  if (Number.isInteger(value)) return String(value);
  const abs = Math.abs(value);
  if (abs < 0.01) return value.toPrecision(3);
  return String(Number(value.toFixed(4)));
}

function stringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // Circular structures cannot be JSON; their tag is still better than throwing inside a display call.
    return Object.prototype.toString.call(value);
  }
}

function truncate(text: string): string {
  const oneLine = text.replace(/\s*\n\s*/g, " ");
  return oneLine.length <= MAX_CELL_CHARS ? oneLine : `${oneLine.slice(0, MAX_CELL_CHARS - 1)}…`;
}

/** Most decimals a column is lined up to (enough for lattice lengths in Å). */
const MAX_DECIMALS = 4;

/**
 * Formats a table's cells column by column, lining up decimal points: in a column holding
 * numbers with fractions, every number gets the same count of decimals (the most any of them
 * needs, up to four), so `5.017` prints `5.0170` under `5.3068`, as pandas prints a float column.
 * Very small numbers (below 0.01) keep their three significant digits.
 * @returns cells by row, then column.
 */
export function formatRows(rows: readonly (readonly unknown[])[], columns: number): FormattedCell[][] {
  const out = rows.map((row) => Array.from({ length: columns }, (_, c) => formatCell(row[c])));
  for (let c = 0; c < columns; c++) {
    let decimals = 0;
    let small = false;
    for (const row of rows) {
      const value = row[c];
      if (typeof value !== "number" || !Number.isFinite(value) || Number.isInteger(value)) continue;
      if (Math.abs(value) < 0.01) small = true;
      const text = String(Number(value.toFixed(MAX_DECIMALS)));
      const dot = text.indexOf(".");
      if (dot !== -1 && !text.includes("e")) decimals = Math.max(decimals, text.length - dot - 1);
    }
    if (decimals === 0 || small) continue;
    rows.forEach((row, r) => {
      const [value, cells] = [row[c], out[r]];
      if (cells && typeof value === "number" && Number.isFinite(value))
        cells[c] = { text: value.toFixed(decimals), numeric: true };
    });
  }
  return out;
}
