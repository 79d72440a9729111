import { escapeForTerminal } from "../../terminal-text";
import {
  computability,
  type ComputeOutcome,
  computeJob,
  filesLeftIn,
  type UnitReport,
  withUnitStatus,
  withUnitsIdle,
  withUnitsEnded,
} from "../compute";
import { JobQueue, type StopReason } from "../compute/queue";
import { endRunsIn } from "../compute/run-executable";
import type { Caller } from "../records/owners";
import type { StoredRecord } from "../records/store";
import type { RecordChange } from "../records/written-records";
import { newRecordId, owned, type CollectionContext } from "./collection";
import { JobEnds } from "./job-ends";
import { JobFolders, UNFINISHED } from "./job-files";
import { referenceResult } from "./reference/job-reference";
import { findMaterial } from "./jobs";
import { propertyRecord, type ReferenceData } from "./reference/reference-results";

/** How long a job answered from the reference data stays `active` before it finishes, by default. */
export const DEFAULT_RUN_MS = 2000;

/**
 * How long a submitted job stays `submitted` at least, by default. The platform's scheduler takes
 * a while to start a job, and clients count on it: the platform's own client's test reads the job
 * right after `submit` and expects `submitted`.
 */
export const DEFAULT_START_DELAY_MS = 1000;

/** What the engine's results are said to come from, in every property record it made. */
const COMPUTED_HERE =
  "Computed on this machine by matframe serve (Quantum ESPRESSO from the operating system's packages).";

/** The limits of the runner. */
export interface JobRunnerOptions {
  /** Jobs running at once, at most. */
  maxRunning: number;
  /** Milliseconds one job may run before it ends in `error`. */
  timeLimitMs: number;
  /** Milliseconds a job answered from the reference data stays `active`. */
  referenceRunMs: number;
  /** Milliseconds a submitted job stays `submitted` at least. */
  startDelayMs: number;
  /** The `--store` directory, which keeps the jobs' folders too; else a temporary folder. */
  storeDir?: string;
  log?: (line: string) => void;
}

/** How a job ended, before it is written. */
interface Ending {
  status: "finished" | "error";
  reason?: string;
  /** Results written with the end (a published answer's). */
  properties: StoredRecord[];
  /** Results already written as their units finished (a computation's). */
  kept?: number;
  files: ComputeOutcome["files"];
  notes: string[];
  engineVersion?: string;
}

/** What {@link JobRunner.resume} found in the store. */
export interface ResumedJobs {
  /** Jobs that were `active`: now `error`, "interrupted by a restart". */
  readonly interrupted: string[];
  /** Process groups a killed server left computing for them, now ended. */
  readonly stopped: number;
  /** Jobs still `submitted`, to queue again ({@link JobRunner.start}) once the server says it is up. */
  readonly waiting: string[];
}

/**
 * Moves submitted jobs through `submitted` → `active` → `finished` or `error`, as the platform
 * does: a job the engine can compute runs in its own folder through the {@link JobQueue} (a
 * running limit, accounts in turn, a time limit); a job it cannot compute ends in `error` with
 * the engine's reason, unless the reference data holds its published result. Every change of a
 * job's status is one transaction with the records it brings (a published result) or takes
 * (delete), and so is each unit's results as the unit finishes; each checks the job's status as
 * it commits: a terminated or deleted job gets no results after it, and a deleted one never comes
 * back.
 */
export class JobRunner {
  readonly folders: JobFolders;
  /** Who waits for a job to end (the server handle's `jobEnded`). */
  readonly ends: JobEnds;
  private readonly queue: JobQueue;
  /** Jobs that cannot run, ended in `error` after the start delay (see {@link DEFAULT_START_DELAY_MS}). */
  private readonly delayed = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly context: CollectionContext,
    private readonly reference: ReferenceData,
    private readonly options: JobRunnerOptions,
  ) {
    this.queue = new JobQueue(options.maxRunning, options.timeLimitMs);
    this.folders = new JobFolders(options.storeDir);
    this.ends = new JobEnds(context.written);
  }

  /**
   * Picks up the jobs a stopped server left (with `--store`): one that was running ends in
   * `error`, since what it computed is gone with its process; one still waiting is returned, for
   * the server to queue again once it has said it is up (a queued job logs as it starts).
   */
  async resume(): Promise<ResumedJobs> {
    const interrupted: string[] = [];
    let stopped = 0;
    const waiting: string[] = [];
    for (const job of [...this.context.written.recordsOf("jobs")]) {
      if (job.status === "active") {
        // A server killed with SIGKILL left its pw.x computing in the job's folder: ended first,
        // so it neither writes there any more nor runs beside the jobs queued now.
        const folder = this.folders.folderOf(job._id);
        stopped += endRunsIn(folder);
        // What it wrote before the stop stays listed, as a terminated job's does, and the results
        // its finished units stored stay counted.
        const files = filesLeftIn((job.workflow ?? {}) as Record<string, unknown>, folder);
        const kept = this.resultsOf(job._id).length;
        await this.end(job._id, "active", {
          ...nothing(),
          files,
          kept,
          status: "error",
          reason: "interrupted by a restart",
        });
        interrupted.push(job._id);
      } else if (job.status === "submitted") {
        waiting.push(job._id);
      }
    }
    return { interrupted, stopped, waiting };
  }

  /**
   * Queues a job that is now `submitted`. A job the engine computes starts at once when the queue
   * has room; only its status waits: it shows `active` once the start delay has passed since the
   * submit (see {@link DEFAULT_START_DELAY_MS}), so the delay is what a client reads, not time the
   * machine idles. A job that cannot run ends in `error` after the delay, as the platform's would.
   */
  start(jobId: string): void {
    if (this.closed || this.delayed.has(jobId)) return;
    const shownAt = performance.now() + this.options.startDelayMs;
    const job = this.context.written.get(jobId, "jobs");
    if (job?.status !== "submitted") return;
    const material = this.materialOf(job);
    const can = computability((job.workflow ?? {}) as Record<string, unknown>, material);
    if (can.runnable) {
      this.enqueue(job, shownAt, (signal, shown) => this.compute(job, material!, signal, shown), true);
      return;
    }
    const published = referenceResult(this.context, this.reference, job, material);
    if (published) {
      this.enqueue(job, shownAt, (signal) => this.answer(published, signal), false);
      return;
    }
    this.later(jobId, () => void this.end(jobId, "submitted", { ...nothing(), status: "error", reason: can.reason }));
  }

  /** Runs `action` after the start delay, unless the job is terminated or deleted first. */
  private later(jobId: string, action: () => void): void {
    if (this.options.startDelayMs <= 0) {
      action();
      return;
    }
    const timer = setTimeout(() => {
      this.delayed.delete(jobId);
      action();
    }, this.options.startDelayMs);
    this.delayed.set(jobId, timer);
  }

  /**
   * Hands a job to the queue. `overlap`: the run starts at once while the status still reads
   * `submitted` until `shownAt` (a computation); else it starts once the job is `active` (a
   * published answer, whose own wait is how long the local platform has always taken).
   */
  private enqueue(
    job: StoredRecord,
    shownAt: number,
    run: (signal: AbortSignal, shown: Promise<boolean>) => Promise<Ending | undefined>,
    overlap: boolean,
  ): void {
    const jobId = job._id;
    this.queue.enqueue({
      jobId,
      account: String((job.owner as Caller)._id),
      run: async (signal) => {
        const shown = abortableDelay(shownAt - performance.now(), signal).then(() => this.activate(jobId));
        let ending: Ending | undefined;
        const running = (overlap ? Promise.resolve() : shown.then((active) => active || Promise.reject(SKIPPED)))
          .then(() => run(signal, shown))
          .catch((error): Ending | undefined =>
            error === SKIPPED
              ? undefined
              : { ...nothing(), status: "error", reason: `the run failed: ${(error as Error)?.message ?? error}` },
          );
        // Terminated or deleted while it waited: terminate and delete abort the run themselves. A
        // run that had begun (computing starts at the submit) leaves its files to a terminated job.
        if (!(await shown)) {
          const begun = await running;
          if (begun) await this.end(jobId, "active", begun);
          return;
        }
        ending = await running;
        const stop = signal.aborted ? (signal.reason as StopReason) : undefined;
        // A closing server leaves the job for the restart to end.
        if (stop?.kind === "closing") return;
        if (stop?.kind === "time-limit") {
          ending = {
            ...(ending ?? nothing()),
            status: "error",
            properties: [],
            reason: `it ran past its time limit of ${minutes(stop.limitMs)} and was stopped (the server's operator sets the limit: matframe serve --job-time-limit 30m; or make the job smaller, e.g. coarser kgrid or qgrid in its units' context).`,
          };
        }
        if (ending) await this.end(jobId, "active", ending);
      },
    });
  }

  /**
   * Terminates a caller's waiting or running job in one transaction (it gets no results after),
   * then stops its process; resolves once the process is gone.
   */
  async terminate(caller: Caller, jobId: string, refuse: (job: StoredRecord) => Error): Promise<StoredRecord> {
    // Past the quota: an account at its quota can always stop its jobs.
    const terminated = await this.context.written.transact(() => {
      const job = owned(this.context, this.jobs(), caller, jobId);
      if (!UNFINISHED.includes(String(job.status))) throw refuse(job);
      const next = { ...job, status: "terminated" };
      return { changes: [{ put: next, collection: "jobs" }], result: next, pastQuota: true };
    });
    this.ends.note(jobId);
    this.undelay(jobId);
    await this.queue.cancel(jobId);
    return terminated;
  }

  /** Deletes a caller's job and its results in one transaction, then stops it and removes its folder. */
  async delete(caller: Caller, jobId: string): Promise<{ _id: string }> {
    const removed = await this.context.written.transact(() => {
      const job = owned(this.context, this.jobs(), caller, jobId);
      const changes: RecordChange[] = [{ remove: job._id, collection: "jobs" }];
      for (const property of this.resultsOf(job._id)) changes.push({ remove: property._id, collection: "properties" });
      return { changes, result: { _id: job._id } };
    });
    this.ends.note(jobId);
    this.undelay(jobId);
    await this.queue.cancel(jobId);
    this.folders.remove(jobId);
    return removed;
  }

  /** Stops every running job (their processes end), then removes a temporary jobs folder. */
  async close(): Promise<void> {
    this.closed = true;
    for (const jobId of [...this.delayed.keys()]) this.undelay(jobId);
    await this.queue.close();
    this.ends.close();
    this.folders.close();
  }

  private undelay(jobId: string): void {
    clearTimeout(this.delayed.get(jobId));
    this.delayed.delete(jobId);
  }

  /** The property records of a job. */
  private resultsOf(jobId: string): StoredRecord[] {
    return [...this.context.written.recordsOf("properties")].filter(
      (property) => (property.source as { info?: { jobId?: unknown } } | undefined)?.info?.jobId === jobId,
    );
  }

  private jobs() {
    return this.context.collections.get("jobs")!;
  }

  private materialOf(job: StoredRecord): StoredRecord | undefined {
    const id = (job._material as { _id?: unknown } | undefined)?._id;
    return typeof id === "string" ? findMaterial(this.context, job.owner as Caller, id) : undefined;
  }

  /** `submitted` → `active`, unless the job was terminated or deleted while it waited. */
  private activate(jobId: string): Promise<boolean> {
    return this.context.written.transact(() => {
      const job = this.context.written.get(jobId, "jobs");
      if (job?.status !== "submitted") return { changes: [], result: false };
      // A workflow copied from a job that ran carries its units' last statuses: a run starts them idle.
      const workflow =
        job.workflow && typeof job.workflow === "object"
          ? { workflow: withUnitsIdle(job.workflow as Record<string, unknown>) }
          : {};
      return {
        changes: [{ put: { ...job, status: "active", ...workflow }, collection: "jobs" }],
        result: true,
        pastQuota: true,
      };
    });
  }

  /**
   * Computes the job, moving each unit's status as it starts and ends and keeping its results as
   * it finishes (as the platform does), so that a job terminated, timed out or failed later keeps
   * what its finished units computed. The writes wait for the job to show `active` (a unit may
   * finish within the start delay, and a job read `submitted` has no unit running yet); the
   * computation waits only for a finished unit's results, before its next unit.
   */
  private async compute(
    job: StoredRecord,
    material: StoredRecord,
    signal: AbortSignal,
    shown: Promise<boolean>,
  ): Promise<Ending> {
    const workDir = this.folders.prepare(job._id);
    let kept = 0;
    let unstored: string | undefined;
    let reports: Promise<void> = shown.then(() => undefined);
    const onUnit = (report: UnitReport) => {
      reports = reports.then(async () => {
        try {
          // Once a unit's results could not be stored, the job will end in error: later units'
          // results are not written either (its count would say results the job is refused for).
          kept += await this.recordUnit(job, material, report, unstored === undefined);
        } catch (error) {
          unstored ??= (error as Error)?.message ?? String(error);
          // Its status moves all the same: the bookkeeping of a run that goes on.
          await this.recordUnit(job, material, report, false).catch(() => 0);
        }
      });
      // The next unit starts once this one's results are written, so a terminate sent while it
      // runs always finds them; a unit's start, or an error, holds nothing up.
      return report.status === "finished" ? reports : undefined;
    };
    const outcome = await computeJob({
      jobId: job._id,
      workflow: job.workflow as Record<string, unknown>,
      material,
      workDir,
      signal,
      // A line may quote the material's name, which its owner chose: no control character reaches a terminal.
      onLog: (line) => this.options.log?.(`job ${job._id}: ${escapeForTerminal(line)}`),
      onUnit,
    });
    await reports;
    const ending: Ending = { ...outcome, properties: [], kept };
    // Results that did not fit (the account at its quota) end the job in error, saying why, as an
    // end that cannot be written does; the units' results written before stay.
    return unstored === undefined
      ? ending
      : { ...ending, status: "error", reason: `its results could not be stored: ${unstored}` };
  }

  /**
   * Writes a unit's new status in the job's workflow, with its results when it finished (and
   * `withResults`), in one transaction that checks the job is still `active`: a job terminated or
   * deleted before its unit finished gets none of them. Resolves how many results it wrote.
   */
  private recordUnit(
    job: StoredRecord,
    material: StoredRecord,
    report: UnitReport,
    withResults: boolean,
  ): Promise<number> {
    const owner = job.owner as Caller;
    const createdAt = new Date().toISOString();
    return this.context.written.transact(() => {
      const current = this.context.written.get(job._id, "jobs");
      if (current?.status !== "active") return { changes: [], result: 0 };
      const workflow = withUnitStatus(
        (current.workflow ?? {}) as Record<string, unknown>,
        report.unitId,
        report.status,
      );
      const properties = withResults ? report.properties : [];
      const results: RecordChange[] = properties.map((computed) => ({
        put: propertyRecord({
          _id: newRecordId(this.context),
          job,
          unitId: computed.unitId,
          data: computed.data,
          owner: { _id: owner._id, slug: owner.slug },
          createdAt,
          materialId: material._id,
          description: COMPUTED_HERE,
        }),
        collection: "properties",
      }));
      const changes: RecordChange[] = [{ put: { ...current, workflow }, collection: "jobs" }, ...results];
      // A status alone is the server's bookkeeping, written past the quota as the job's own are.
      return { changes, result: results.length, pastQuota: results.length === 0 };
    });
  }

  /** A published result, after the short while the local platform has always taken. */
  private async answer(published: { property: StoredRecord; reason: string }, signal: AbortSignal) {
    await abortableDelay(this.options.referenceRunMs, signal);
    if (signal.aborted) return undefined;
    return { ...nothing(), status: "finished", reason: published.reason, properties: [published.property] } as Ending;
  }

  /**
   * Ends a job that is still `from`, with its results, in one transaction. When the results
   * cannot be stored (the account is at its quota, the disk refuses), the job still ends: in
   * `error`, saying why, with none of them.
   */
  private async end(jobId: string, from: string, ending: Ending): Promise<void> {
    const { written } = this.context;
    const localRunOf = (job: StoredRecord, final: Ending) => {
      const uploads = (job.localRun as { uploads?: unknown } | undefined)?.uploads;
      return {
        ...(uploads === undefined ? {} : { uploads }),
        properties: (final.kept ?? 0) + final.properties.length,
        ...(final.reason === undefined ? {} : { reason: final.reason }),
        files: final.files,
        notes: [...final.notes],
      };
    };
    const endWith = (final: Ending, pastQuota: boolean) =>
      written.transact(() => {
        const job = written.get(jobId, "jobs");
        // Terminated while it computed (or as it finished): it keeps the files its run wrote (the
        // input, the output up to where pw.x was ended) and the results of the units that
        // finished before the terminate, none written after it, and stays terminated; past the
        // quota, as terminate itself is. Terminate waits for the run to settle, so they are listed
        // when it answers.
        if (job?.status === "terminated") {
          const kept = localRunOf(job, { ...final, properties: [] });
          const put = { ...ranWith(unitsEnded(job), final.engineVersion, kept.notes), localRun: kept };
          return { changes: [{ put, collection: "jobs" }], result: undefined, pastQuota: true };
        }
        if (job?.status !== from) return { changes: [], result: undefined };
        const localRun = localRunOf(job, final);
        const put = {
          ...ranWith(unitsEnded(job), final.engineVersion, localRun.notes),
          status: final.status,
          localRun,
        };
        const changes: RecordChange[] = [
          { put, collection: "jobs" },
          ...final.properties.map((property) => ({ put: property, collection: "properties" })),
        ];
        return { changes, result: undefined, pastQuota };
      });
    try {
      await endWith(ending, false);
    } catch (error) {
      const why = (error as Error)?.message ?? String(error);
      try {
        await endWith(
          { ...ending, status: "error", properties: [], reason: `its results could not be stored: ${why}` },
          true,
        );
      } catch (again) {
        this.options.log?.(`job ${jobId}: its end could not be written (${(again as Error)?.message ?? again})`);
      }
    }
    this.ends.note(jobId);
  }
}

/**
 * The job with its espresso subworkflows' `application.version` set to the version of pw.x that
 * ran (Debian's 6.7 where the bank's workflows name 6.3), so that a results table says what
 * computed its values; a note (added to `notes`) keeps the version the workflow named.
 */
function ranWith(job: StoredRecord, version: string | undefined, notes: string[]): StoredRecord {
  const workflow = job.workflow as { subworkflows?: unknown } | undefined;
  if (version === undefined || !Array.isArray(workflow?.subworkflows)) return job;
  const named = new Set<string>();
  const subworkflows = workflow.subworkflows.map((subworkflow: unknown) => {
    const application = (subworkflow as { application?: Record<string, unknown> } | null)?.application;
    if (application?.name !== "espresso" || application.version === version) return subworkflow;
    named.add(String(application.version));
    return { ...(subworkflow as object), application: { ...application, version } };
  });
  if (named.size === 0) return job;
  notes.push(
    `Quantum ESPRESSO ${version} ran (pw.x on this machine); the workflow named ${[...named].join(", ")}, and the job's application now says ${version}.`,
  );
  return { ...job, workflow: { ...workflow, subworkflows } };
}

/** The job with no unit left `active`: the one its end cut off is in `error`. */
function unitsEnded(job: StoredRecord): StoredRecord {
  const workflow = job.workflow as Record<string, unknown> | undefined;
  return workflow === undefined ? job : { ...job, workflow: withUnitsEnded(workflow) };
}

/** A run that never started: its job was terminated or deleted while it waited to be `active`. */
const SKIPPED = Symbol("skipped");

function nothing(): Omit<Ending, "status"> {
  return { properties: [], files: [], notes: [] };
}

function minutes(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}

/** Resolves after `ms`, or at once when the signal aborts. */
function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
