// The export's progress on stderr: on a terminal one line redrawn in place; elsewhere (a CI log, a
// file, a pipe) a plain line every few seconds, so a long export shows it is alive without
// flooding the log. With a known total, both say how far along it is and about how long is left.
import type { Progress } from "../client/config/options";
import { groupDigits } from "../frame/table/digit-groups";

/** How the progress is shown, and where. */
export interface ProgressReportOptions {
  /** The records the export will write, when known (`--max-items`, the local platform's count). */
  total?: number;
  /** Redraw one line in place (a terminal), or write a line every `interval` ms (anything else). */
  terminal: boolean;
  /** What is counted: "materials", "rows". */
  noun: string;
  /**
   * Least time between two lines when not on a terminal, in ms.
   * @default 5000
   */
  interval?: number;
  /** Where lines go. @default process.stderr.write */
  write?: (text: string) => void;
  /** The clock, in ms. @default performance.now */
  now?: () => number;
}

/** Least time between two redraws on a terminal, in ms. */
const REDRAW = 100;
/** Below this many records or this long, a rate says too little for a time left. */
const ESTIMATE_AFTER = { items: 1, ms: 1000 };

/** A progress display of an export: a redrawn line on a terminal, a line every few seconds elsewhere. */
export class ProgressBar {
  private readonly started: number;
  private last = Number.NEGATIVE_INFINITY;
  private drawn = false;
  private readonly write: (text: string) => void;
  private readonly now: () => number;
  private total: number | undefined;

  constructor(private readonly options: ProgressReportOptions) {
    this.write = options.write ?? ((text) => process.stderr.write(text));
    this.now = options.now ?? (() => performance.now());
    this.started = this.now();
    this.total = options.total;
  }

  /** Sets the total once it is known (the local platform's count arrives with the source). */
  setTotal(total: number | undefined): void {
    if (total === undefined) return;
    this.total = this.total === undefined ? total : Math.min(this.total, total);
  }

  /** `total`: what the source says it holds (an OPTIMADE provider's `data_returned`), when it says. */
  update(progress: Progress & { readonly total?: number }): void {
    this.setTotal(progress.total);
    const now = this.now();
    const wait = this.options.terminal ? REDRAW : (this.options.interval ?? 5000);
    // Off a terminal the first line waits a whole interval too: a short export writes none.
    if (!this.options.terminal && this.last === Number.NEGATIVE_INFINITY) this.last = this.started;
    if (now - this.last < wait) return;
    this.last = now;
    const line = this.line(progress, now);
    if (this.options.terminal) {
      this.write(`\r\x1b[K${line}`);
      this.drawn = true;
    } else this.write(`${line}\n`);
  }

  /** The progress as one line of text, e.g. `exporting: 1,200 of 20,029 materials (6%), 3 pages, 2.0 s, about 31 s left`. */
  line(progress: Progress, now: number = this.now()): string {
    const ms = now - this.started;
    const total = this.total;
    const items = groupDigits(progress.items);
    const pages = `${groupDigits(progress.pages)} ${progress.pages === 1 ? "page" : "pages"}`;
    const elapsed = `${(ms / 1000).toFixed(1)} s`;
    if (total === undefined || total <= 0) return `exporting: ${items} ${this.options.noun}, ${pages}, ${elapsed}`;
    const share = Math.min(1, progress.items / total);
    const percent = `${Math.floor(share * 100)}%`;
    const count = `${items} of ${groupDigits(total)} ${this.options.noun} (${percent}), ${pages}, ${elapsed}`;
    const left =
      progress.items >= ESTIMATE_AFTER.items && ms >= ESTIMATE_AFTER.ms && share < 1
        ? `, about ${duration(((total - progress.items) * ms) / progress.items)} left`
        : "";
    if (!this.options.terminal) return `exporting: ${count}${left}`;
    const width = 24;
    const filled = Math.round(width * share);
    return `exporting: [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${count}${left}`;
  }

  clear(): void {
    if (this.drawn) this.write("\r\x1b[K");
    this.drawn = false;
  }
}

/** A time left, rounded as a person would say it: 40 s, 3 min, 1 h 20 min. */
export function duration(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
