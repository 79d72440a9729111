import { inspect } from "node:util";
import { currentCellToken, displayBundle, inNotebook, printedAsCellValue, swallowNextBlankLine, type MimeBundle } from "./tslab-display";

/** Deno's Jupyter kernel displays any value that has this method as a cell's last expression. */
export const JUPYTER_DISPLAY = Symbol.for("Jupyter.display");

/**
 * Something a notebook shows richly: a chart, a structure picture, a table. It follows both
 * TypeScript kernels' conventions for a cell's last expression:
 * - tslab prints the value with `console.log`, so `[util.inspect.custom]` displays the MIME bundle
 *   (unless it was displayed in the same cell already) and prints no text line;
 * - Deno calls `[Symbol.for("Jupyter.display")]()` and shows the bundle it returns.
 * Elsewhere (a script, the REPL) it inspects as a one-line summary.
 */
export abstract class RichOutput {
  #shownIn: unknown;

  /** The MIME bundle a notebook shows: always with a `text/plain` fallback. */
  abstract mimeBundle(): MimeBundle;

  /** One line for logs and the REPL, e.g. "[bar chart: 6 bars, 411×287 px]". */
  abstract summary(): string;

  /**
   * Displays this output in a tslab notebook now (again, if it was already); does nothing elsewhere.
   * @example chart.display();
   */
  display(): void {
    if (!inNotebook()) return;
    const bundle = this.mimeBundle();
    const fallback = Object.keys(bundle.data).find((type) => type !== "text/plain") ?? "text/plain";
    this.#shownIn = displayBundle(bundle, fallback) ?? this.#shownIn;
  }

  /** Displays unless already shown in the running cell (by its helper, when it was drawn there). */
  protected displayInCell(): void {
    const token = currentCellToken();
    if (token !== undefined && token !== this.#shownIn) this.display();
  }

  /** Deno's Jupyter kernel: the MIME bundle's data, shown when this is a cell's last expression. */
  [JUPYTER_DISPLAY](): Record<string, string> {
    return this.mimeBundle().data;
  }

  [inspect.custom](depth: number, options: { depth?: number | null }): string {
    if (printedAsCellValue(depth, options)) {
      this.displayInCell();
      swallowNextBlankLine();
      return "";
    }
    return this.summary();
  }
}
