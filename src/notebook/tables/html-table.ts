import { tableCaption } from "./caption";
import { escapeHtml } from "./escape-html";
import { formatRows } from "./format-cell";
import type { TableSlice } from "./table-input";

// Inline alignment rather than a <style> block, which code hosts that render notebooks strip;
// JupyterLab right-aligns every cell by default, so text needs saying too. Spacing and borders
// are left to the notebook's own table style.
const NUMBER_CELL = "text-align:right";
const TEXT_CELL = "text-align:left";
// A table wider than the page scrolls on screen instead of running off it; in a printed handout
// (where nothing scrolls) its column names wrap after their dots, which is what made tables of
// dotted names too wide (`material.derivedProperties.density`).
const TABLE = "display:block;overflow-x:auto;max-width:100%";

/** A column name that may break after each dot: `material.<wbr>formula`. */
function breakableName(name: string): string {
  return escapeHtml(name).replaceAll(".", ".<wbr>");
}

/** Renders a table slice as an HTML table whose every cell and name is escaped. */
export function renderHtmlTable(slice: TableSlice): string {
  const header = slice.columns.map((c) => `<th style="${TEXT_CELL}">${breakableName(c)}</th>`).join("");
  const body = formatRows(slice.rows, slice.columns.length)
    .map((row) => {
      const cells = row.map(
        (cell) => `<td style="${cell.numeric ? NUMBER_CELL : TEXT_CELL}">${escapeHtml(cell.text)}</td>`,
      );
      return `<tr>${cells.join("")}</tr>`;
    })
    .join("\n");
  return [
    `<table class="matframe-table" style="${TABLE}">`,
    `<caption style="caption-side:bottom;text-align:left">${escapeHtml(tableCaption(slice))}</caption>`,
    `<thead><tr>${header}</tr></thead>`,
    `<tbody>\n${body}\n</tbody>`,
    `</table>`,
  ].join("\n");
}
