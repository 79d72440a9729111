// The tslab kernel's side of the notebook display (see kernel.ts for the kernel in use).
import { dirname as pathDirname } from "node:path";
import type { BundleDisplay, MimeBundle } from "./mime-bundle";
/** The part of tslab's `Display` the helpers use (see tslab's `public.d.ts`). */
export interface NotebookDisplay {
  html(s: string): void;
  svg(s: string): void;
  text(s: string): void;
  raw(contentType: string, b: string | Uint8Array): void;
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

type DisplayWriter = (
  content: { data: Record<string, string | object>; metadata: object; transient: object },
  update: boolean,
) => void;

/**
 * The kernel's writer of `display_data` messages for the running cell, or undefined.
 *
 * tslab's public `display.raw(type, value)` sends one MIME type per message, so a picture could not
 * carry its text fallback. The writer it calls is `lastWriteDisplayData` of tslab's `jupyter.js`,
 * set anew for every executed cell (tslab 1.0.22 `src/jupyter.ts`, `handleExecuteImpl`); it is found
 * beside the kernel's public module in Node's module cache. Any other kernel shape gives undefined,
 * and the callers fall back to the public API.
 */
function kernelWriter(tslab: TslabModule): DisplayWriter | undefined {
  const cache = require.cache;
  for (const [file, mod] of Object.entries(cache)) {
    if (mod?.exports !== tslab) continue;
    const jupyter = cache[file.replace(/public\.js$/, "jupyter.js")]?.exports as
      | { lastWriteDisplayData?: unknown }
      | undefined;
    const writer = jupyter?.lastWriteDisplayData;
    return typeof writer === "function" ? (writer as DisplayWriter) : undefined;
  }
  return undefined;
}

/**
 * Displays a MIME bundle as one output in a tslab notebook. Returns a token of the running cell
 * (the same for every call in one cell, so a picture displayed in it is not displayed twice), or
 * undefined outside a notebook.
 */
export function displayBundle(bundle: MimeBundle, fallbackType: string): unknown {
  const tslab = tslabModule();
  if (!tslab) return undefined;
  const writer = kernelWriter(tslab);
  if (writer) {
    writer({ data: bundle.data, metadata: bundle.metadata, transient: {} }, false);
    return writer;
  }
  tslab.display.raw(fallbackType, textOf(bundle, fallbackType));
  return tslab;
}

/**
 * A display that replaces its own output with each bundle shown, like tslab's `newDisplay()` but
 * with every MIME type in one message (Jupyter's `display_id` and `update_display_data`). Without
 * the kernel's writer it falls back to `newDisplay()` and the bundle's HTML. Undefined outside a
 * notebook.
 */
export function newBundleDisplay(): BundleDisplay | undefined {
  const tslab = tslabModule();
  if (!tslab) return undefined;
  const id = `matframe-${process.pid}-${(nextDisplayId += 1)}`;
  let shown = false;
  let fallback: NotebookDisplay | undefined;
  return {
    show(bundle) {
      // The writer of the cell running now: a display may be updated after its cell has finished.
      const writer = kernelWriter(tslab);
      if (writer) {
        writer({ data: bundle.data, metadata: bundle.metadata, transient: { display_id: id } }, shown);
        shown = true;
        return;
      }
      fallback ??= tslab.newDisplay();
      fallback.html(textOf(bundle, "text/html" in bundle.data ? "text/html" : "text/plain"));
    },
  };
}

let nextDisplayId = 0;

/** A text type of a bundle (tslab's public API takes one string per message). */
function textOf(bundle: MimeBundle, type: string): string {
  const value = bundle.data[type];
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The token {@link displayBundle} returns for the running cell, or undefined outside a notebook. */
export function currentCellToken(): unknown {
  const tslab = tslabModule();
  return tslab && (kernelWriter(tslab) ?? tslab);
}

/**
 * True while tslab prints a cell's last value: tslab 1.0.22 passes it to `console.log` straight from
 * its executor (`src/executor.ts`, `execute`), so the first stack frame outside Node's internals
 * and this package is tslab's `executor.js`. A `console.log(chart)` in the cell's own code has the
 * cell as that frame instead.
 */
export function printedAsCellValue(depth: number, options: { depth?: number | null }): boolean {
  // Nested inside an array or object that is the cell's value: print the summary there.
  if (depth !== options.depth) return false;
  if (!tslabModule()) return false;
  const original = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  let sites: NodeJS.CallSite[] = [];
  try {
    Error.prepareStackTrace = (_error, callSites) => callSites;
    // Node's default of 10 frames can end inside console.log's internals before tslab's executor
    // when a frame's display passes through a few calls of its own (a wrapped danfo frame).
    Error.stackTraceLimit = 40;
    const holder: { stack?: unknown } = {};
    Error.captureStackTrace(holder, printedAsCellValue);
    sites = (holder.stack as NodeJS.CallSite[] | undefined) ?? [];
  } finally {
    Error.prepareStackTrace = original;
    Error.stackTraceLimit = limit;
  }
  // matframe's own frames (this room and the frame room, whose DataFrame hook calls in here).
  const ownDir = pathDirname(pathDirname(__dirname));
  const caller = sites.find((site) => {
    const file = site.getFileName() ?? "";
    return !file.startsWith("node:") && !file.startsWith(ownDir);
  });
  return /[\\/]tslab[\\/]dist[\\/]executor\.js$/.test(caller?.getFileName() ?? "");
}

/**
 * Drops the lone newline that `console.log` writes next when the value it prints inspects as "":
 * the line tslab would otherwise add under a picture that is a cell's last value. Any other
 * write passes, and the first write restores `process.stdout.write`.
 */
export function swallowNextBlankLine(): void {
  const stdout = process.stdout;
  const write = stdout.write;
  stdout.write = function (this: typeof stdout, chunk: unknown, ...rest: unknown[]) {
    stdout.write = write;
    if (chunk === "\n") return true;
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof stdout.write;
}
