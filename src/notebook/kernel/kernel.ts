// The notebook kernel this code runs in, behind one interface: tslab (Node) or Deno's own
// `deno jupyter`. The display helpers only talk to this; each kernel's details live in its file.
import { denoBundleDisplay, denoCellToken, denoDisplay, denoJupyter } from "./deno-display";
import type { BundleDisplay, MimeBundle } from "./mime-bundle";
import { currentCellToken, displayBundle, newBundleDisplay, tslabModule } from "./tslab-display";

/** What the display helpers need from a Jupyter kernel. */
export interface NotebookKernel {
  /** Which kernel: "tslab" or "deno". */
  readonly name: "tslab" | "deno";
  /** Shows a MIME bundle as one new output of the running cell. */
  display(bundle: MimeBundle): void;
  /** A new output that each `show` replaces in place (Jupyter's `update_display_data`). */
  newDisplay(): BundleDisplay;
  /** The same value for every call in one cell, another in the next; undefined when unknown. */
  cellToken(): unknown;
}

/** The first type of a bundle that is not its text fallback (what tslab's public API sends alone). */
function richestType(bundle: MimeBundle): string {
  return Object.keys(bundle.data).find((type) => type !== "text/plain") ?? "text/plain";
}

const tslabKernel: NotebookKernel = {
  name: "tslab",
  display: (bundle) => void displayBundle(bundle, richestType(bundle)),
  newDisplay: () => newBundleDisplay() as BundleDisplay,
  cellToken: currentCellToken,
};

/**
 * The kernel running this code, or undefined in a script, a test or the REPL (where the helpers
 * print text instead). Checked on every call: cheap, and a module may be loaded before the kernel
 * connects.
 */
export function notebookKernel(): NotebookKernel | undefined {
  if (tslabModule()) return tslabKernel;
  const jupyter = denoJupyter();
  if (jupyter) {
    return {
      name: "deno",
      display: (bundle) => denoDisplay(jupyter, bundle),
      newDisplay: () => denoBundleDisplay(jupyter),
      cellToken: denoCellToken,
    };
  }
  return undefined;
}

/**
 * True inside a notebook kernel (tslab or Deno), where rich output (HTML, pictures, in-place
 * updates) can be shown.
 * @example if (!inNotebook()) console.log(toTextTable(rows));
 */
export function inNotebook(): boolean {
  return notebookKernel() !== undefined;
}
