/** The part of tslab's `Display` the helpers use (see tslab's `public.d.ts`). */
export interface NotebookDisplay {
  html(s: string): void;
  svg(s: string): void;
  text(s: string): void;
}

/** tslab's public module, as its kernel hands it to cell code. */
interface TslabModule {
  display: NotebookDisplay;
  newDisplay(): NotebookDisplay;
}

/**
 * tslab's module when this code runs inside a tslab kernel, otherwise undefined.
 *
 * A plain `require("tslab")` would be wrong twice: tslab is only our dev
 * dependency, so users' installs do not have it, and a copy found on disk is
 * not the one running the kernel, whose module state holds the connection
 * (its display calls throw "Not ready"). The kernel instead sets
 * `globalThis.__tslab__.require`, whose `require("tslab")` returns the
 * kernel's own module (tslab `src/executor.ts`, `wrapRequire`).
 */
export function tslabModule(): TslabModule | undefined {
  const bridge = (globalThis as { __tslab__?: { require?: unknown } }).__tslab__;
  if (typeof bridge?.require !== "function") return undefined;
  try {
    const mod = (bridge.require as (id: string) => unknown)("tslab") as Partial<TslabModule> | undefined;
    if (typeof mod?.newDisplay === "function" && typeof mod.display?.html === "function") {
      return mod as TslabModule;
    }
  } catch {
    // An unexpected kernel shape means "not a notebook": fall back to text rather than fail the cell.
  }
  return undefined;
}

/** True when rich output (HTML, SVG, in-place updates) can be shown. */
export function inNotebook(): boolean {
  return tslabModule() !== undefined;
}
