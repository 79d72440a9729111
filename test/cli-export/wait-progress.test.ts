import { describe, expect, it } from "vitest";
import type { JobWaitProgress } from "../../src";
import { WaitProgress } from "../../src/cli/jobs/wait-progress";

// `matframe jobs wait`'s progress: redrawn in place on a terminal; in a log, a line for each
// change, one at the end, and one every few seconds while nothing changes, never one per poll.

function sink(isTTY: boolean) {
  const writes: string[] = [];
  return { isTTY, write: (text: string) => writes.push(text), writes };
}

function poll(elapsedMs: number, changed: boolean, done = 0): JobWaitProgress {
  const counts = done === 2 ? { finished: 2 } : { submitted: 2 - done, ...(done ? { finished: done } : {}) };
  return { jobs: [], counts, done, total: 2, elapsedMs, changed };
}

describe("wait progress", () => {
  it("writes a line to a log on each change, every few seconds otherwise, and at the end", () => {
    const log = sink(false);
    const progress = new WaitProgress(log, 5000);
    for (const [ms, changed] of [
      [0, true],
      [600, false],
      [1500, false],
      [4900, false],
      [5100, false],
      [7000, false],
      [10_200, false],
    ] as const)
      progress.update(poll(ms, changed));
    progress.update(poll(11_000, true, 1));
    progress.update(poll(12_000, true, 2));
    progress.clear();
    expect(log.writes).toEqual([
      "0/2 done (submitted 2), 0 s\n",
      "0/2 done (submitted 2), 5 s\n",
      "0/2 done (submitted 2), 10 s\n",
      "1/2 done (submitted 1, finished 1), 11 s\n",
      "2/2 done (finished 2), 12 s\n",
    ]);
  });

  it("redraws one line on a terminal and clears it before the results", () => {
    const terminal = sink(true);
    const progress = new WaitProgress(terminal);
    progress.update(poll(0, true));
    progress.update(poll(700, false));
    progress.clear();
    progress.clear();
    expect(terminal.writes).toEqual([
      "\r\x1b[K0/2 done (submitted 2), 0 s",
      "\r\x1b[K0/2 done (submitted 2), 1 s",
      "\r\x1b[K",
    ]);
  });
});
