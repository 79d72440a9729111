// `matframe jobs wait`'s progress on stderr: on a terminal one line redrawn in place; otherwise
// (a log, a CI job) a line when a status changes and every few seconds, so a long wait shows it
// is alive without flooding the log.
import type { JobWaitProgress } from "../../client/collections";
import { printable } from "../printable";

/** Where progress goes: stderr, or anything with its `isTTY` and `write`. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/** A line of progress every this many milliseconds when the stream is not a terminal. */
export const LOG_EVERY_MS = 5000;

export class WaitProgress {
  private lastLine = Number.NEGATIVE_INFINITY;
  private drawn = false;

  constructor(
    private readonly stream: ProgressStream,
    private readonly everyMs = LOG_EVERY_MS,
  ) {}

  /** Shows a poll's outcome: redrawn on a terminal; else a line on a change, at the end, or after `everyMs`. */
  update(progress: JobWaitProgress): void {
    const line = progressLine(progress);
    if (this.stream.isTTY) {
      this.stream.write(`\r\x1b[K${line}`);
      this.drawn = true;
      return;
    }
    if (progress.changed || progress.done === progress.total || progress.elapsedMs - this.lastLine >= this.everyMs) {
      this.stream.write(`${line}\n`);
      this.lastLine = progress.elapsedMs;
    }
  }

  /** Removes the redrawn line, before the results are printed. */
  clear(): void {
    if (this.drawn) this.stream.write("\r\x1b[K");
    this.drawn = false;
  }
}

/** `2/3 done (submitted 1, finished 2), 12 s` */
export function progressLine(progress: JobWaitProgress): string {
  const counts = Object.entries(progress.counts)
    .map(([status, n]) => `${status} ${n}`)
    .join(", ");
  return `${progress.done}/${progress.total} done (${printable(counts)}), ${Math.round(progress.elapsedMs / 1000)} s`;
}
