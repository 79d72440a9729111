import { tableCaption } from "./caption";
import { escapeHtml } from "./escape-html";
import { formatCell } from "./format-cell";
import type { TableSlice } from "./table-input";

// Inline styles rather than a <style> block: code hosts that render notebooks strip style blocks.
const CELL = "padding:2px 8px;border-bottom:1px solid #ddd;white-space:nowrap";
const NUMBER_CELL = `${CELL};text-align:right;font-variant-numeric:tabular-nums`;
const TEXT_CELL = `${CELL};text-align:left`;

/** Renders a table slice as an HTML table whose every cell and name is escaped. */
export function renderHtmlTable(slice: TableSlice): string {
  const header = slice.columns.map((c) => `<th style="${TEXT_CELL}">${escapeHtml(c)}</th>`).join("");
  const body = slice.rows
    .map((row) => {
      const cells = slice.columns.map((_, i) => {
        const cell = formatCell(row[i]);
        return `<td style="${cell.numeric ? NUMBER_CELL : TEXT_CELL}">${escapeHtml(cell.text)}</td>`;
      });
      return `<tr>${cells.join("")}</tr>`;
    })
    .join("\n");
  return [
    `<table class="matframe-table" style="border-collapse:collapse;font-size:0.9em">`,
    `<caption style="caption-side:bottom;text-align:left;color:#666">${escapeHtml(tableCaption(slice))}</caption>`,
    `<thead><tr>${header}</tr></thead>`,
    `<tbody>\n${body}\n</tbody>`,
    `</table>`,
  ].join("\n");
}
