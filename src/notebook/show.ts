import { renderHtmlTable } from "./html-table";
import { sliceTable, type TableInput } from "./table-input";
import { renderTextTable } from "./text-table";
import { tslabModule } from "./tslab-display";

/** Options of {@link show}. */
export interface ShowOptions {
  /**
   * Rows shown; the caption gives the full count.
   * @default 20
   * @example show(df, { maxRows: 5 })
   */
  maxRows?: number;
  /**
   * Where the plain-text table goes outside a notebook.
   * @default process.stdout
   */
  output?: { write(text: string): unknown };
}

/** Default for {@link ShowOptions.maxRows}. */
export const DEFAULT_MAX_ROWS = 20;

/**
 * Shows a table: as an HTML table in a tslab notebook (cells escaped, numbers
 * right-aligned, a caption with the row count), as aligned text elsewhere.
 * Returns nothing, so that a notebook does not print the table twice.
 *
 * @example
 * const df = await client.materials.toDataFrame({ fields: { formula: 1, "lattice.a": 1 } });
 * show(df, { maxRows: 10 });
 */
export function show(table: TableInput, options: ShowOptions = {}): void {
  const slice = sliceTable(table, maxRowsOf(options));
  const tslab = tslabModule();
  if (tslab) {
    tslab.display.html(renderHtmlTable(slice));
    return;
  }
  (options.output ?? process.stdout).write(renderTextTable(slice) + "\n");
}

/**
 * The HTML that {@link show} displays in a notebook, for pages and reports.
 * @example fs.writeFileSync("table.html", toHtmlTable(df, { maxRows: 50 }));
 */
export function toHtmlTable(table: TableInput, options: Pick<ShowOptions, "maxRows"> = {}): string {
  return renderHtmlTable(sliceTable(table, maxRowsOf(options)));
}

/**
 * The plain text that {@link show} prints outside a notebook.
 * @example console.log(toTextTable(rows, { maxRows: 5 }));
 */
export function toTextTable(table: TableInput, options: Pick<ShowOptions, "maxRows"> = {}): string {
  return renderTextTable(sliceTable(table, maxRowsOf(options)));
}

function maxRowsOf(options: Pick<ShowOptions, "maxRows">): number {
  const maxRows = options.maxRows ?? DEFAULT_MAX_ROWS;
  if (maxRows !== Infinity && (!Number.isInteger(maxRows) || maxRows < 0)) {
    throw new RangeError(`maxRows must be a whole number of rows (0 or more) or Infinity; got ${String(maxRows)}`);
  }
  return maxRows;
}
