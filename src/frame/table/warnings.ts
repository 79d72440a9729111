import type { FrameWarning } from "./row-reader";

/** Receives data warnings (e.g. invalid methods); without one, they go to `process.emitWarning`. */
export type WarningHandler = (warning: FrameWarning) => void;

/**
 * Hands each warning to `onWarning`, or emits it as a Node process warning (printed once to
 * stderr, visible in notebooks) so that nulls from invalid data are never silent.
 */
export function reportWarnings(warnings: readonly FrameWarning[], onWarning?: WarningHandler): void {
  for (const warning of warnings) {
    if (onWarning) onWarning(warning);
    else if (inNotebookKernel()) console.warn(`MatframeWarning [${warning.code}]: ${warning.message}`);
    else process.emitWarning(warning.message, { type: "MatframeWarning", code: warning.code });
  }
}

/**
 * In a notebook kernel a process warning is lost: Deno's kernel sends it to its own stderr, which
 * no notebook shows (checked with Deno 2.9), and tslab shows it only if the cell is still running
 * when Node prints it, a tick later, which it is not when the read is the cell's last await
 * (checked with tslab 1.0.22). `console.warn` is the cell's output at once on both.
 */
function inNotebookKernel(): boolean {
  if (typeof (globalThis as { __tslab__?: unknown }).__tslab__ === "object") return true;
  try {
    return (
      typeof (globalThis as { Deno?: { jupyter?: { broadcast?: unknown } } }).Deno?.jupyter?.broadcast === "function"
    );
  } catch {
    // Outside `deno jupyter`, reading `Deno.jupyter` throws.
    return false;
  }
}
