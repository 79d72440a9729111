import { tableCaption } from "./caption";
import { formatRows } from "./format-cell";
import type { TableSlice } from "./table-input";

/** Renders a table slice as aligned plain text (numbers right-aligned), for terminals and logs. */
export function renderTextTable(slice: TableSlice): string {
  const header = slice.columns.map((c) => ({ text: c, numeric: false }));
  const body = formatRows(slice.rows, slice.columns.length);
  const widths = header.map((h, i) => Math.max(h.text.length, ...body.map((cells) => cells[i]?.text.length ?? 0)));
  const line = (cells: { text: string; numeric: boolean }[]) =>
    cells
      .map((cell, i) => (cell.numeric ? cell.text.padStart(widths[i] ?? 0) : cell.text.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  return [line(header), rule, ...body.map(line), `(${tableCaption(slice)})`].join("\n");
}
