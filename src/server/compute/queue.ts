import { availableParallelism } from "node:os";

/** Jobs running at once by default: one core left for the server and the class's requests. */
export function defaultMaxRunningJobs(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** How long one job may run by default before it ends in `error`. */
export const DEFAULT_JOB_TIME_LIMIT_MS = 10 * 60_000;

/** Why a running job's signal was aborted: read from `signal.reason` by the job's own code. */
export type StopReason = { kind: "terminated" } | { kind: "time-limit"; limitMs: number } | { kind: "closing" };

/** One job to run: `run` gets a signal that aborts on terminate, time limit or close, and must settle soon after. */
export interface QueuedJob {
  jobId: string;
  /** The account the job belongs to: accounts take turns. */
  account: string;
  run(signal: AbortSignal): Promise<void>;
}

interface Running {
  controller: AbortController;
  timer: NodeJS.Timeout;
  settled: Promise<void>;
}

/**
 * Runs jobs with at most `maxRunning` at once, accounts taking turns (round robin: a student who
 * submits 50 jobs does not make the next student wait for all 50), each stopped at `timeLimitMs`.
 * A place that frees goes to the waiting account whose last turn is longest ago (one that has had
 * none yet first, then in the order they queued), so an account whose job started at once is behind
 * the accounts that queue after it, not ahead of them because its next job came first.
 * Knows nothing of records or processes: a job's `run` owns both, and this only decides when it
 * starts and tells it, through its signal, when to stop and why.
 */
export class JobQueue {
  private readonly waiting = new Map<string, QueuedJob[]>();
  /**
   * Accounts with waiting jobs, in the order they get their next turn: kept sorted by
   * `lastTurn`, oldest first, so the front is always the account that waited longest since a turn.
   */
  private readonly turns: string[] = [];
  /** When each account last had a job started, as a count of starts (no entry: never). */
  private readonly lastTurn = new Map<string, number>();
  private starts = 0;
  private readonly running = new Map<string, Running>();
  private closed = false;

  constructor(
    readonly maxRunning: number,
    readonly timeLimitMs: number,
  ) {}

  /** Jobs running now. */
  get runningCount(): number {
    return this.running.size;
  }

  /** Whether a job is waiting or running. */
  has(jobId: string): boolean {
    return this.running.has(jobId) || [...this.waiting.values()].some((jobs) => jobs.some((j) => j.jobId === jobId));
  }

  /** Queues a job (once: a job already waiting or running is not queued again). */
  enqueue(job: QueuedJob): void {
    if (this.closed || this.has(job.jobId)) return;
    let jobs = this.waiting.get(job.account);
    if (!jobs) {
      this.waiting.set(job.account, (jobs = []));
      this.takeTurnPlace(job.account);
    }
    jobs.push(job);
    this.startWhatFits();
  }

  /**
   * Stops a job: a waiting one leaves the queue, a running one's signal aborts at once with
   * `{ kind: "terminated" }`. Returns when its `run` has settled (at once for a waiting job).
   */
  async cancel(jobId: string): Promise<void> {
    for (const [account, jobs] of this.waiting) {
      const at = jobs.findIndex((job) => job.jobId === jobId);
      if (at === -1) continue;
      jobs.splice(at, 1);
      if (jobs.length === 0) this.dropAccount(account);
      return;
    }
    const running = this.running.get(jobId);
    if (!running) return;
    running.controller.abort({ kind: "terminated" } satisfies StopReason);
    await running.settled;
  }

  /** Starts nothing more, forgets the waiting jobs, aborts the running ones and waits for them to settle. */
  async close(): Promise<void> {
    this.closed = true;
    this.waiting.clear();
    this.turns.length = 0;
    this.lastTurn.clear();
    const settling = [...this.running.values()].map((running) => {
      running.controller.abort({ kind: "closing" } satisfies StopReason);
      return running.settled;
    });
    await Promise.all(settling);
  }

  private startWhatFits(): void {
    while (!this.closed && this.running.size < this.maxRunning && this.turns.length > 0) {
      const account = this.turns.shift()!;
      const jobs = this.waiting.get(account)!;
      const job = jobs.shift()!;
      this.lastTurn.set(account, (this.starts += 1));
      // Its turn is now the newest of all, so the back of the line keeps `turns` sorted.
      if (jobs.length === 0) this.waiting.delete(account);
      else this.turns.push(account);
      this.start(job);
    }
  }

  private start(job: QueuedJob): void {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort({ kind: "time-limit", limitMs: this.timeLimitMs } satisfies StopReason),
      this.timeLimitMs,
    );
    const settled = Promise.resolve()
      .then(() => job.run(controller.signal))
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(timer);
        this.running.delete(job.jobId);
        this.startWhatFits();
      });
    this.running.set(job.jobId, { controller, timer, settled });
  }

  /**
   * Puts an account that had no waiting job into the line: behind every account whose last turn
   * is as old or older (those that have had none first), ahead of those served since. Pushing it
   * at the back instead would let an account whose previous job started at once, with nobody
   * waiting, submit again and stand ahead of the accounts that queue a moment later.
   */
  private takeTurnPlace(account: string): void {
    const mine = this.lastTurn.get(account) ?? 0;
    const at = this.turns.findIndex((other) => (this.lastTurn.get(other) ?? 0) > mine);
    if (at === -1) this.turns.push(account);
    else this.turns.splice(at, 0, account);
  }

  private dropAccount(account: string): void {
    this.waiting.delete(account);
    const at = this.turns.indexOf(account);
    if (at !== -1) this.turns.splice(at, 1);
  }
}
