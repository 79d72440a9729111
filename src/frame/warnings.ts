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
    else process.emitWarning(warning.message, { type: "MatframeWarning", code: warning.code });
  }
}
