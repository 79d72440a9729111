// The Deno kernel's side of the notebook display (see kernel.ts for the kernel in use).
// Deno 2's `deno jupyter` kernel gives cell code `Deno.jupyter.broadcast(msgType, content)`, which
// sends any IOPub message for the running cell: `display_data` with a whole MIME bundle and its
// metadata, and `update_display_data` for a `display_id` shown before (Deno's `cli/js/40_jupyter.js`).
import type { BundleDisplay, MimeBundle } from "./mime-bundle";

/** The part of `Deno.jupyter` the helpers use. */
interface DenoJupyter {
  broadcast(msgType: string, content: Record<string, unknown>): Promise<void> | void;
}

/** The kernel's internal hook that shows a cell's value (`broadcastResult(executionCount, value)`). */
interface DenoJupyterInternals {
  broadcastResult?: (executionCount: number, value: unknown) => Promise<void>;
}

interface DenoGlobal {
  jupyter?: Partial<DenoJupyter>;
  internal?: symbol;
  [key: symbol]: { jupyter?: DenoJupyterInternals } | undefined;
}

function denoGlobal(): DenoGlobal | undefined {
  return (globalThis as { Deno?: DenoGlobal }).Deno;
}

/** `Deno.jupyter` when this code runs inside Deno's Jupyter kernel, otherwise undefined. */
export function denoJupyter(): DenoJupyter | undefined {
  try {
    const jupyter = denoGlobal()?.jupyter;
    return typeof jupyter?.broadcast === "function" ? (jupyter as DenoJupyter) : undefined;
  } catch {
    // Outside `deno jupyter`, reading `Deno.jupyter` throws ("only available in `deno jupyter`").
    return undefined;
  }
}

function send(jupyter: DenoJupyter, msgType: string, bundle: MimeBundle, transient: Record<string, unknown>): void {
  // broadcast is asynchronous in some Deno versions; a display that cannot be sent must not
  // become an unhandled rejection that ends the kernel.
  Promise.resolve(jupyter.broadcast(msgType, { data: bundle.data, metadata: bundle.metadata, transient })).catch(
    (error: unknown) => {
      console.error(
        `matframe: the Deno kernel did not take a ${msgType} message: ${String((error as Error)?.message ?? error)}`,
      );
    },
  );
}

/** Shows a MIME bundle (with its metadata: a PNG's display size) as one new output. */
export function denoDisplay(jupyter: DenoJupyter, bundle: MimeBundle): void {
  send(jupyter, "display_data", bundle, {});
}

/** An output replaced by each bundle shown (`display_id`, then `update_display_data`). */
export function denoBundleDisplay(jupyter: DenoJupyter): BundleDisplay {
  const id = `matframe-deno-${(nextDisplayId += 1)}-${Math.random().toString(36).slice(2, 10)}`;
  let shown = false;
  return {
    show(bundle) {
      send(jupyter, shown ? "update_display_data" : "display_data", bundle, { display_id: id });
      shown = true;
    },
  };
}

let nextDisplayId = 0;

/**
 * Decides how a cell's value is shown: returns true when it has shown (or deliberately not shown)
 * the value itself, so the kernel shows nothing more for it.
 */
export type CellValueHandler = (value: unknown) => boolean;

let cellValueHandler: CellValueHandler | undefined;
let finishedCells = 0;
let hooked: boolean | undefined;

/**
 * Lets matframe show a cell's last value on Deno. Deno shows it through
 * `[Symbol.for("Jupyter.display")]()`, which returns data without metadata (a 2x PNG would show at
 * twice its size) and cannot tell whether the helper that made the value displayed it in the same
 * cell already. The kernel calls `Deno[Deno.internal].jupyter.broadcastResult` once at the end of
 * every cell that did not throw; wrapping it gives both the value and the cell boundary. Without
 * that internal (another Deno version), values fall back to `Jupyter.display`: nothing is lost,
 * a helper's output may show twice.
 */
export function hookDenoCellValues(handler: CellValueHandler): void {
  cellValueHandler = handler;
  if (hooked !== undefined || !denoJupyter()) return;
  const deno = denoGlobal();
  const internals = deno?.internal === undefined ? undefined : deno[deno.internal]?.jupyter;
  const original = internals?.broadcastResult;
  hooked = typeof original === "function";
  if (!internals || typeof original !== "function") return;
  internals.broadcastResult = async function (this: unknown, executionCount: number, value: unknown) {
    try {
      const shown = cellValueHandler?.(value) === true;
      await original.call(this, executionCount, shown ? undefined : value);
      await settle();
    } finally {
      finishedCells += 1;
    }
  };
}

/**
 * How long a cell's end waits for the kernel to publish what the cell sent. Deno 2.9's kernel
 * publishes displays and console output from a queue on another thread, while the cell's reply
 * and "idle" status go out directly; whatever the queue publishes after "idle" is dropped by
 * nbconvert (about one run in six of notebook 01 lost its last table on a busy machine). The
 * kernel sends the reply when this hook returns, so a short wait here lets the queue drain first.
 */
const SETTLE_MS = 50;

function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
}

/** A token of the running cell (the same for every call in one cell), or undefined without the hook. */
export function denoCellToken(): unknown {
  return hooked ? finishedCells : undefined;
}
