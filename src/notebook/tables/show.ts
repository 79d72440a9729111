import { inspect } from "node:util";
import { setFrameDisplay } from "../../frame/dataframe/frame-display";
import { tableCaption } from "./caption";
import { renderHtmlTable } from "./html-table";
import { RichOutput } from "../kernel/rich-output";
import { idLast, sliceTable, type TableInput, type TableSlice } from "./table-input";

/** What the tables show: the first rows, `_id` last. */
function readingSlice(table: TableInput, maxRows: number): TableSlice {
  return idLast(sliceTable(table, maxRows));
}
import { renderTextTable } from "./text-table";
import { inNotebook, notebookKernel } from "../kernel/kernel";
import type { MimeBundle } from "../kernel/mime-bundle";
import { ValidationError } from "../../errors";

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
  output?: {
    /** Receives the table's text. */
    write(text: string): unknown;
  };
}

/** Default for {@link ShowOptions.maxRows}. */
export const DEFAULT_MAX_ROWS = 20;

/**
 * A table as {@link show} displays it: HTML in a notebook with the aligned text as its fallback.
 * As a cell's last expression it is shown once (tslab) or through `Jupyter.display` (Deno).
 */
export class Table extends RichOutput {
  constructor(
    /** Column names and the rows shown (the first `maxRows`). */
    readonly slice: TableSlice,
  ) {
    super();
  }

  /** The HTML table: cells escaped, numbers right-aligned, a caption with the row count. */
  get html(): string {
    return renderHtmlTable(this.slice);
  }

  /** The aligned plain-text table. */
  get text(): string {
    return renderTextTable(this.slice);
  }

  mimeBundle(): MimeBundle {
    return { data: { "text/html": this.html, "text/plain": this.text }, metadata: {} };
  }

  summary(): string {
    return `[table: ${tableCaption(this.slice)}]`;
  }
}

/**
 * Shows a table: as an HTML table in a notebook (tslab or Deno) (cells escaped, numbers
 * right-aligned, a caption with the row count, the text table as fallback), as aligned text
 * elsewhere. Returns the {@link Table}, which a notebook does not show a second time as the
 * cell's last value.
 *
 * @example
 * const df = await client.materials.toDataFrame({ columns: ["formula", "lattice.a"] });
 * show(df, { maxRows: 10 });
 */
export function show(table: TableInput, options: ShowOptions = {}): Table {
  const shown = new Table(readingSlice(table, maxRowsOf(options)));
  if (inNotebook()) shown.display();
  else (options.output ?? process.stdout).write(`${shown.text}\n`);
  return shown;
}

/**
 * The HTML that {@link show} displays in a notebook, for pages and reports.
 * @example fs.writeFileSync("table.html", toHtmlTable(df, { maxRows: 50 }));
 */
export function toHtmlTable(table: TableInput, options: Pick<ShowOptions, "maxRows"> = {}): string {
  return renderHtmlTable(readingSlice(table, maxRowsOf(options)));
}

/**
 * The plain text that {@link show} prints outside a notebook.
 * @example console.log(toTextTable(rows, { maxRows: 5 }));
 */
export function toTextTable(table: TableInput, options: Pick<ShowOptions, "maxRows"> = {}): string {
  return renderTextTable(readingSlice(table, maxRowsOf(options)));
}

function maxRowsOf(options: Pick<ShowOptions, "maxRows">): number {
  const maxRows = options.maxRows ?? DEFAULT_MAX_ROWS;
  if (maxRows !== Infinity && (!Number.isInteger(maxRows) || maxRows < 0)) {
    throw new ValidationError(
      "maxRows",
      `maxRows must be a whole number of rows (0 or more) or Infinity; got ${String(maxRows)}`,
    );
  }
  return maxRows;
}

// A DataFrame as a cell's last value shows as this table (see src/frame/dataframe/frame-display.ts).
setFrameDisplay({
  inspect: (frame, depth, options) => {
    const table = new Table(readingSlice(frame as TableInput, DEFAULT_MAX_ROWS));
    // In tslab, the HTML table as the cell's output; in a script, the REPL or a `console.log` on
    // Deno (whose kernel shows a cell's value through `Jupyter.display`, below), the text table.
    return notebookKernel()?.name === "tslab"
      ? table[inspect.custom](depth, options as { depth?: number | null })
      : table.text;
  },
  bundle: (frame) => new Table(readingSlice(frame as TableInput, DEFAULT_MAX_ROWS)).mimeBundle().data,
});
