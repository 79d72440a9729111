import { inspect } from "node:util";
import { hookDenoCellValues } from "./deno-display";
import { notebookKernel } from "./kernel";
import type { MimeBundle } from "./mime-bundle";
import { printedAsCellValue, swallowNextBlankLine } from "./tslab-display";

/** Deno's Jupyter kernel displays any value that has this method as a cell's last expression. */
export const JUPYTER_DISPLAY = Symbol.for("Jupyter.display");

/**
 * Something a notebook shows richly: a chart, a structure picture, a table. It follows both
 * TypeScript kernels' conventions for a cell's last expression:
 * - tslab prints the value with `console.log`, so `[util.inspect.custom]` displays the MIME bundle
 *   (unless it was displayed in the same cell already) and prints no text line;
 * - Deno shows a cell's value through `[Symbol.for("Jupyter.display")]()`; matframe takes the
 *   value first (see `hookDenoCellValues`) to show the bundle with its metadata, once per cell.
 * Elsewhere (a script, the REPL) it inspects as a one-line summary.
 */
export abstract class RichOutput {
  #shownIn: unknown;

  /** The MIME bundle a notebook shows: always with a `text/plain` fallback. */
  abstract mimeBundle(): MimeBundle;

  /** One line for logs and the REPL, e.g. "[bar chart: 6 bars, 411×287 px]". */
  abstract summary(): string;

  /**
   * Displays this output in a notebook (tslab or Deno) now, again if it was already; does nothing
   * elsewhere.
   * @example chart.display();
   */
  display(): void {
    const kernel = notebookKernel();
    if (!kernel) return;
    kernel.display(this.mimeBundle());
    this.#shownIn = kernel.cellToken() ?? this.#shownIn;
  }

  /** Displays unless already shown in the running cell (by its helper, when it was drawn there). */
  protected displayInCell(): void {
    const token = notebookKernel()?.cellToken();
    if (token !== undefined && token !== this.#shownIn) this.display();
  }

  static {
    // Deno: a matframe output as a cell's value is shown here, with its metadata, unless its helper
    // showed it in that cell already; any other value goes on to Deno's own display.
    hookDenoCellValues((value) => {
      if (!(value instanceof RichOutput)) return false;
      value.displayInCell();
      return true;
    });
  }

  /** Deno's Jupyter kernel: the MIME bundle's data, shown when this is a cell's last expression. */
  [JUPYTER_DISPLAY](): MimeBundle["data"] {
    return this.mimeBundle().data;
  }

  /** How Node prints it (and tslab shows a cell's last value): the picture as a cell's value, its text elsewhere. */
  [inspect.custom](depth: number, options: { depth?: number | null }): string {
    if (printedAsCellValue(depth, options)) {
      this.displayInCell();
      swallowNextBlankLine();
      return "";
    }
    return this.summary();
  }
}
