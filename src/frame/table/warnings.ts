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
    else if (inDenoNotebook()) console.warn(`MatframeWarning [${warning.code}]: ${warning.message}`);
    else process.emitWarning(warning.message, { type: "MatframeWarning", code: warning.code });
  }
}

/**
 * Deno's Jupyter kernel turns `console` calls into the cell's output, but a process warning goes
 * to the kernel's own stderr, which no notebook shows (checked with Deno 2.9).
 */
function inDenoNotebook(): boolean {
  try {
    return typeof (globalThis as { Deno?: { jupyter?: { broadcast?: unknown } } }).Deno?.jupyter?.broadcast === "function";
  } catch {
    // Outside `deno jupyter`, reading `Deno.jupyter` throws.
    return false;
  }
}
