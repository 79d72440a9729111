import { escapeHtml } from "./tables/escape-html";
import { notebookKernel } from "./kernel/kernel";
import type { BundleDisplay } from "./kernel/mime-bundle";

/**
 * What a progress callback receives: a running count, or the `Progress` that `onPage` of
 * `iterate`/`pages` and `onProgress` of `toDataFrame` and the exports pass
 * (`{ pages, items, bytes? }`, `items` being the records so far).
 */
export type ProgressUpdate = number | { readonly items: number; readonly pages?: number; readonly bytes?: number };

/** Options of {@link progress}. */
export interface ProgressOptions {
  /**
   * What is counted, after the number.
   * @default "items"
   * @example "materials"
   */
  label?: string;
  /**
   * How many are expected in all; with it the display shows a bar and a percentage.
   * @default unknown (a running count only)
   */
  expected?: number;
  /**
   * Where the progress line goes outside a notebook; rewritten in place when it is a TTY.
   * @default process.stderr
   */
  output?: {
    /** Receives each line (or, on a terminal, each redraw). */
    write(text: string): unknown;
    /** A terminal: redraw one line in place. */
    isTTY?: boolean;
  };
}

/** A progress callback, with `done()` to show the final state. */
export interface Progress {
  (update: ProgressUpdate): void;
  /** Shows the final count (optionally a new one) and ends the line or display. */
  done(final?: ProgressUpdate): void;
  /** The latest count. */
  readonly count: number;
}

// Redraws are limited so that a per-row callback cannot flood the kernel or a log; the last state
// is always drawn by done(), by reaching `expected`, or by a trailing timer.
const NOTEBOOK_INTERVAL_MS = 100;
const TTY_INTERVAL_MS = 100;
const LOG_INTERVAL_MS = 5_000;

/**
 * An in-place progress display to pass as an `onPage`/`onProgress` callback.
 * In a notebook (tslab or Deno) it is one output that updates in place (HTML with a text fallback);
 * elsewhere it is a line on stderr.
 *
 * @example
 * const onExport = progress({ label: "materials", expected: 20_000 });
 * await client.materials.exportCsv("materials.csv", { onProgress: onExport });
 * onExport.done();
 */
export function progress(options: ProgressOptions = {}): Progress {
  const label = options.label ?? "items";
  const expected = options.expected;
  const notebook = options.output === undefined ? notebookKernel()?.newDisplay() : undefined;
  const render = notebook ? notebookRenderer(notebook) : streamRenderer(options.output ?? process.stderr);
  const interval = notebook ? NOTEBOOK_INTERVAL_MS : render.tty ? TTY_INTERVAL_MS : LOG_INTERVAL_MS;
  let count = 0;
  let lastDraw = -Infinity;
  let trailing: NodeJS.Timeout | undefined;
  let finished = false;

  const draw = (final: boolean) => {
    clearTimeout(trailing);
    trailing = undefined;
    lastDraw = Date.now();
    render.draw({ count, expected, label, final });
  };

  const update = ((u: ProgressUpdate) => {
    if (finished) return;
    count = countOf(u, count);
    if (expected !== undefined && count >= expected) return draw(false);
    if (Date.now() - lastDraw >= interval) return draw(false);
    trailing ??= setTimeout(() => draw(false), interval).unref();
  }) as Progress;
  update.done = (final?: ProgressUpdate) => {
    if (finished) return;
    if (final !== undefined) count = countOf(final, count);
    finished = true;
    draw(true);
  };
  Object.defineProperty(update, "count", { get: () => count });
  return update;
}

function countOf(update: ProgressUpdate, previous: number): number {
  const n = typeof update === "number" ? update : update.items;
  return typeof n === "number" && Number.isFinite(n) ? n : previous;
}

interface ProgressState {
  count: number;
  expected: number | undefined;
  label: string;
  final: boolean;
}

/** "12,000 / 20,000 materials (60%)", or "12,000 materials" without an expected total. */
export function progressText({ count, expected, label }: ProgressState): string {
  const n = (x: number) => x.toLocaleString("en-US");
  if (expected === undefined || expected <= 0) return `${n(count)} ${label}`;
  const percent = Math.min(100, Math.floor((100 * count) / expected));
  return `${n(count)} / ${n(expected)} ${label} (${percent}%)`;
}

function notebookRenderer(display: BundleDisplay) {
  return {
    tty: false,
    draw(state: ProgressState) {
      const bar =
        state.expected === undefined
          ? ""
          : `<progress value="${state.count}" max="${state.expected}" style="width:240px"></progress> `;
      const mark = state.final ? "done: " : "";
      display.show({
        data: {
          "text/html": `<div class="matframe-progress">${bar}${mark}${escapeHtml(progressText(state))}</div>`,
          "text/plain": mark + progressText(state),
        },
        metadata: {},
      });
    },
  };
}

function streamRenderer(output: { write(text: string): unknown; isTTY?: boolean }) {
  const tty = output.isTTY === true;
  return {
    tty,
    draw(state: ProgressState) {
      const text = (state.final ? "done: " : "") + progressText(state);
      // On a terminal the line is redrawn in place; in a log each state is its own line.
      if (tty) output.write(`\r\x1b[2K${text}${state.final ? "\n" : ""}`);
      else output.write(`${text}\n`);
    },
  };
}
