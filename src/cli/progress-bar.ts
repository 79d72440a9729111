// The export's progress on a terminal: one line on stderr, redrawn in place.
import type { Progress } from "../client/config/options";

/** A one-line progress display on a terminal's stderr, redrawn at most ten times a second. */
export class ProgressBar {
  private readonly started = performance.now();
  private last = 0;
  private drawn = false;

  constructor(private readonly maxItems: number | undefined) {}

  update(progress: Progress): void {
    const now = performance.now();
    if (now - this.last < 100) return;
    this.last = now;
    const seconds = ((now - this.started) / 1000).toFixed(1);
    const count = `${progress.items.toLocaleString("en-US")} materials, ${progress.pages} ${progress.pages === 1 ? "page" : "pages"}, ${seconds} s`;
    let line = `exporting: ${count}`;
    if (this.maxItems) {
      const width = 24;
      const filled = Math.round(width * Math.min(1, progress.items / this.maxItems));
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
