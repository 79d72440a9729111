import { tableCaption } from "./caption";
import { escapeHtml } from "./escape-html";
import { formatRows } from "./format-cell";
import type { TableSlice } from "./table-input";

// Inline alignment rather than a <style> block, which code hosts that render notebooks strip;
// JupyterLab right-aligns every cell by default, so text needs saying too. Spacing and borders
// are left to the notebook's own table style.
const NUMBER_CELL = "text-align:right";
const TEXT_CELL = "text-align:left";

/** Renders a table slice as an HTML table whose every cell and name is escaped. */
export function renderHtmlTable(slice: TableSlice): string {
  const header = slice.columns.map((c) => `<th style="${TEXT_CELL}">${escapeHtml(c)}</th>`).join("");
  const body = formatRows(slice.rows, slice.columns.length)
    .map((row) => {
      const cells = row.map(
        (cell) => `<td style="${cell.numeric ? NUMBER_CELL : TEXT_CELL}">${escapeHtml(cell.text)}</td>`,
      );
      return `<tr>${cells.join("")}</tr>`;
    })
    .join("\n");
  return [
    `<table class="matframe-table">`,
    `<caption style="caption-side:bottom;text-align:left">${escapeHtml(tableCaption(slice))}</caption>`,
    `<thead><tr>${header}</tr></thead>`,
    `<tbody>\n${body}\n</tbody>`,
    `</table>`,
  ].join("\n");
}
