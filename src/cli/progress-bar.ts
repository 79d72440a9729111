// The export's progress on a terminal: one line on stderr, redrawn in place.
import type { Progress } from "../client/config/options";

/** A one-line progress display on a terminal's stderr, redrawn at most ten times a second. */
export class ProgressBar {
  private readonly started = performance.now();
  private last = 0;
  private drawn = false;

  constructor(
    private readonly maxItems: number | undefined,
    private readonly noun = "materials",
  ) {}

  /** `total`: what the source says it holds (an OPTIMADE provider's `data_returned`), for a bar without `maxItems`. */
  update(progress: Progress & { readonly total?: number }): void {
    const now = performance.now();
    if (now - this.last < 100) return;
    this.last = now;
    const seconds = ((now - this.started) / 1000).toFixed(1);
    const count = `${progress.items.toLocaleString("en-US")} ${this.noun}, ${progress.pages} ${progress.pages === 1 ? "page" : "pages"}, ${seconds} s`;
    let line = `exporting: ${count}`;
    const end = Math.min(this.maxItems || Infinity, progress.total || Infinity);
    if (end !== Infinity) {
      const width = 24;
      const filled = Math.round(width * Math.min(1, progress.items / end));
      line = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${count}`;
    }
    process.stderr.write(`\r\x1b[K${line}`);
    this.drawn = true;
  }

  clear(): void {
    if (this.drawn) process.stderr.write("\r\x1b[K");
    this.drawn = false;
  }
}
