import { describe, expect, it, vi } from "vitest";
import { JobQueue, type QueuedJob } from "../../src/server/compute/queue";

// The queue's order of turns, without a server or pw.x: each job runs until the test ends it, so
// which job starts when a place frees is exactly what the queue decided.

interface Line {
  queue: JobQueue;
  /** Job ids in the order they started. */
  started: string[];
  submit(account: string, jobId: string): void;
  /** Ends a running job and waits until the queue has let it go. */
  finish(jobId: string): Promise<void>;
}

function line(maxRunning: number): Line {
  const queue = new JobQueue(maxRunning, 60_000);
  const started: string[] = [];
  const ends = new Map<string, () => void>();
  return {
    queue,
    started,
    submit(account, jobId) {
      const job: QueuedJob = {
        jobId,
        account,
        // Settles when the test ends it, or when the queue aborts it on close.
        run: (signal) =>
          new Promise<void>((resolve) => {
            started.push(jobId);
            ends.set(jobId, resolve);
            signal.addEventListener("abort", () => resolve(), { once: true });
          }),
      };
      queue.enqueue(job);
    },
    async finish(jobId) {
      await vi.waitFor(() => expect(ends.has(jobId), `${jobId} started`).toBe(true));
      ends.get(jobId)!();
      await vi.waitFor(() => expect(queue.has(jobId)).toBe(false));
    },
  };
}

describe("the job queue's turns", () => {
  it("gives the next place to an account queued after one whose job started at once", async () => {
    // The reported case: --max-running-jobs 1, bob submits four jobs, then carol one.
    const { queue, started, submit, finish } = line(1);
    try {
      for (let i = 1; i <= 4; i += 1) submit("bob", `bob ${i}`);
      submit("carol", "carol 1");
      await vi.waitFor(() => expect(started).toEqual(["bob 1"]));
      for (const id of ["bob 1", "carol 1", "bob 2", "bob 3"]) await finish(id);
      await vi.waitFor(() => expect(started).toEqual(["bob 1", "carol 1", "bob 2", "bob 3", "bob 4"]));
    } finally {
      await queue.close();
    }
  });

  it("puts an account that just had its turn behind those already waiting, round after round", async () => {
    const { queue, started, submit, finish } = line(1);
    try {
      submit("alice", "alice 1");
      submit("bob", "bob 1");
      submit("bob", "bob 2");
      submit("carol", "carol 1");
      submit("carol", "carol 2");
      await vi.waitFor(() => expect(started).toEqual(["alice 1"]));
      // Alice comes back while her first job runs: she had her turn, so Bob and Carol go first.
      submit("alice", "alice 2");
      for (const id of ["alice 1", "bob 1", "carol 1", "alice 2", "bob 2"]) await finish(id);
      await vi.waitFor(() => expect(started).toEqual(["alice 1", "bob 1", "carol 1", "alice 2", "bob 2", "carol 2"]));
    } finally {
      await queue.close();
    }
  });

  it("orders waiting accounts by their last turn, not by when their next job came", async () => {
    // Two places: Dave's first job and then Erin's start at once; Erin's second waits. Dave's
    // second, submitted after it, still goes first when a place frees: his turn was the older.
    const { queue, started, submit, finish } = line(2);
    try {
      submit("dave", "dave 1");
      submit("erin", "erin 1");
      submit("erin", "erin 2");
      submit("dave", "dave 2");
      await vi.waitFor(() => expect(started).toEqual(["dave 1", "erin 1"]));
      await finish("erin 1");
      await vi.waitFor(() => expect(started).toEqual(["dave 1", "erin 1", "dave 2"]));
      await finish("dave 1");
      await vi.waitFor(() => expect(started).toEqual(["dave 1", "erin 1", "dave 2", "erin 2"]));
    } finally {
      await queue.close();
    }
  });
});
