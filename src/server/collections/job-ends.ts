import { MatframeError, ValidationError } from "../../errors";
import type { WrittenRecords } from "../records/written-records";

/**
 * How a job ended, as the server handle's `jobEnded` resolves it: its final status, or `"deleted"`
 * when it was deleted before it ended.
 */
export type JobEnd = "finished" | "error" | "terminated" | "deleted";

/** Statuses a job never leaves. */
const ENDED: ReadonlySet<string> = new Set(["finished", "error", "terminated"]);

/**
 * Who waits for which job to end. The platform's REST API has no push notice when a job ends (its
 * clients poll), so this is for code that holds the server in-process, a test above all: it waits
 * on the event instead of polling the API on a clock. The job runner calls {@link note} after each
 * transaction that may have ended a job, once that transaction has committed, so a waiter that
 * reads the job through the API right after sees it ended.
 */
export class JobEnds {
  private readonly waiting = new Map<string, { resolve: (end: JobEnd) => void; reject: (error: Error) => void }[]>();

  constructor(private readonly written: WrittenRecords) {}

  /**
   * Resolves once the job is `finished`, `error` or `terminated` (at once when it already is), or
   * deleted. A job that is not submitted yet is waited for too: its end comes after its submit.
   */
  wait(jobId: string): Promise<JobEnd> {
    const job = this.written.get(jobId, "jobs");
    if (!job) {
      return Promise.reject(
        new ValidationError("jobId", `No job has the id ${JSON.stringify(jobId)}: pass the _id the server answered.`),
      );
    }
    const status = String(job.status);
    if (ENDED.has(status)) return Promise.resolve(status as JobEnd);
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(jobId) ?? [];
      waiters.push({ resolve, reject });
      this.waiting.set(jobId, waiters);
    });
  }

  /** Settles the waiters of a job that has ended or is gone since the last note; others keep waiting. */
  note(jobId: string): void {
    const waiters = this.waiting.get(jobId);
    if (!waiters) return;
    const job = this.written.get(jobId, "jobs");
    const end = job ? String(job.status) : "deleted";
    if (job && !ENDED.has(end)) return;
    this.waiting.delete(jobId);
    for (const waiter of waiters) waiter.resolve(end as JobEnd);
  }

  /** Rejects every waiter: the server closes, and a job it leaves running never ends in this process. */
  close(): void {
    for (const [jobId, waiters] of this.waiting) {
      const error = new MatframeError(`The server closed before job ${jobId} ended.`);
      for (const waiter of waiters) waiter.reject(error);
    }
    this.waiting.clear();
  }
}
