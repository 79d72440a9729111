// Waiting for jobs: a poll of their statuses (one list request for all of them, two fields each),
// with a pause that grows while nothing changes, and the whole records read once at the end.
import { setTimeout as sleep } from "node:timers/promises";
import { AbortError, JobWaitTimeoutError, NotFoundError, ValidationError } from "../../errors";
import { FINAL_JOB_STATUSES, JobStatus, MAX_LIMIT, type JobRecord } from "../../schemas";
import type { Connection } from "../connection";
import { listSearch } from "../record-walker";
import { recordArray } from "../transport/response-checks";

/** `client.jobs.waitFor(ids, options)`. */
export interface WaitForJobsOptions {
  /**
   * The statuses to wait for: the wait ends when every job has one of them, or a final status
   * (which it does not leave: `waitFor(id, { until: "active" })` ends at `finished` too).
   * @default ["finished", "error", "terminated", "timeout", "deleted"] (a status a job does not leave)
   * @example "active"
   */
  until?: JobStatus | readonly JobStatus[];
  /**
   * The longest wait in milliseconds; past it, a `JobWaitTimeoutError` (the jobs go on running).
   * @default no limit
   * @example 120_000
   */
  timeout?: number;
  /** Stops the wait with an `AbortError` (the jobs go on running). */
  signal?: AbortSignal;
  /**
   * Told after every poll: each job's status, how many are done, and whether anything changed
   * since the last poll. It must not throw.
   * @example ({ done, total }) => console.error(`${done}/${total} jobs done`)
   */
  onProgress?: (progress: JobWaitProgress) => void;
  /**
   * The first pause between polls, in milliseconds; each poll that sees no change makes the next
   * pause 1.5 times longer, up to `maxInterval`, and a change starts it over.
   * @default 500
   */
  interval?: number;
  /**
   * The longest pause between polls, in milliseconds.
   * @default 5000
   */
  maxInterval?: number;
}

/** A job as a wait sees it. */
export interface JobState {
  readonly _id: string;
  readonly name?: string;
  readonly status?: string;
}

/** What `onProgress` is told after each poll. */
export interface JobWaitProgress {
  /** Each job as just read, in the order asked for. */
  readonly jobs: readonly JobState[];
  /** How many jobs have each status, e.g. `{ submitted: 2, finished: 1 }`. */
  readonly counts: Readonly<Record<string, number>>;
  /** How many jobs have a status the wait is for, or a final one. */
  readonly done: number;
  /** How many jobs are waited for. */
  readonly total: number;
  /** Milliseconds since the wait began. */
  readonly elapsedMs: number;
  /** Whether a status changed since the previous poll (true on the first). */
  readonly changed: boolean;
}

/** The statuses a job does not leave. */
const FINAL: ReadonlySet<string> = new Set(FINAL_JOB_STATUSES);

/** The most jobs one wait follows: each poll lists them all. */
const MAX_JOBS = 10_000;

/** The options checked, with their defaults; every mistake is a ValidationError before any request. */
function checkWait(ids: readonly unknown[], options: WaitForJobsOptions) {
  if (ids.length === 0) throw new ValidationError("ids", "waitFor needs at least one job id.");
  if (ids.length > MAX_JOBS) throw new ValidationError("ids", `waitFor follows at most ${MAX_JOBS} jobs at once.`);
  for (const id of ids) {
    if (typeof id !== "string" || id === "")
      throw new ValidationError("ids", `Each job id must be a non-empty string (a job's _id); got ${typeof id}.`);
  }
  const known = Object.keys(WaitOptionKeys);
  for (const key of Object.keys(options)) {
    if (!known.includes(key))
      throw new ValidationError(key, `waitFor has no option "${key}"; its options are ${known.join(", ")}.`);
  }
  const until = options.until === undefined ? FINAL_JOB_STATUSES : [options.until].flat();
  for (const status of until) {
    if (!JobStatus.safeParse(status).success)
      throw new ValidationError(
        "until",
        `until must be job statuses (${JobStatus.options.join(", ")}); got ${JSON.stringify(status)}.`,
      );
  }
  const ms = (name: "timeout" | "interval" | "maxInterval", fallback: number, min: number): number => {
    const value = options[name] ?? fallback;
    if (typeof value !== "number" || Number.isNaN(value) || value < min)
      throw new ValidationError(name, `${name} must be a number of milliseconds of at least ${min}; got ${value}.`);
    return value;
  };
  return {
    until: new Set<string>(until),
    timeout: ms("timeout", Number.POSITIVE_INFINITY, 0),
    interval: ms("interval", 500, 10),
    maxInterval: Math.max(ms("maxInterval", 5000, 10), ms("interval", 500, 10)),
  };
}

/** The options `waitFor` takes, as a record so that one it does not know is refused, never ignored. */
const WaitOptionKeys: Record<keyof WaitForJobsOptions, true> = {
  until: true,
  timeout: true,
  signal: true,
  onProgress: true,
  interval: true,
  maxInterval: true,
};

/**
 * Polls the jobs `ids` until each has a status of `until`, then resolves with their whole
 * records in the order of `ids`. A job that cannot be read at the first poll (no such job, or not
 * the caller's) is a `NotFoundError`; one deleted while waited on (left out of a poll, and a 404
 * by its own path) ends the wait as `deleted` (`_id` and `name` as last read, status `deleted`);
 * the `timeout` is a `JobWaitTimeoutError`; the `signal` an `AbortError`.
 */
export async function waitForJobs(
  connection: Connection,
  ids: readonly string[],
  options: WaitForJobsOptions = {},
): Promise<JobRecord[]> {
  const { until, timeout, interval, maxInterval } = checkWait(ids, options);
  const { signal } = options;
  const unique = [...new Set(ids)];
  const started = performance.now();
  let pause = interval;
  let previous = new Map<string, string | undefined>();
  // Each job as last read: what a job deleted while waited on ends as.
  const last = new Map<string, JobState & Record<string, unknown>>();
  for (let first = true; ; first = false) {
    // A job found deleted is not asked for again: it will not come back.
    const asked = unique.filter((id) => last.get(id)?.status !== "deleted");
    const states = await readStates(
      connection,
      asked,
      first ? { name: 1, status: 1, isEntitySet: 1 } : { name: 1, status: 1 },
      signal,
    );
    if (first) {
      throwMissing(connection, asked, states);
      throwSets(states);
    }
    for (const id of asked) {
      const read = states.get(id) ?? (await confirmedGone(connection, id, signal));
      last.set(id, read ?? { ...last.get(id)!, status: "deleted" });
    }
    const changed = first || unique.some((id) => last.get(id)?.status !== previous.get(id));
    previous = new Map(unique.map((id) => [id, last.get(id)?.status]));
    const jobs = ids.map((id) => last.get(id)!);
    // A job in a final status will not change again: waiting longer for another one would wait forever.
    const done = jobs.filter((job) => until.has(String(job.status)) || FINAL.has(String(job.status))).length;
    const elapsedMs = performance.now() - started;
    options.onProgress?.({ jobs, counts: countStatuses(jobs), done, total: jobs.length, elapsedMs, changed });
    if (done === jobs.length) {
      const whole = await readStates(
        connection,
        unique.filter((id) => last.get(id)?.status !== "deleted"),
        undefined,
        signal,
      );
      return ids.map((id) => (whole.get(id) ?? { ...last.get(id)!, status: "deleted" }) as JobRecord);
    }
    if (elapsedMs >= timeout) throw timedOut(connection, jobs, until, timeout);
    pause = changed ? interval : Math.min(maxInterval, pause * 1.5);
    try {
      await sleep(Math.min(pause, Math.max(0, timeout - elapsedMs)), undefined, { signal });
    } catch (cause) {
      throw new AbortError(
        `Waiting for ${describeCount(jobs.length)} was aborted; the jobs go on running.`,
        undefined,
        {
          cause,
        },
      );
    }
  }
}

/** The jobs `ids` this account can read, by `_id` (only `fields` of each when given), in lists of at most MAX_LIMIT. */
async function readStates(
  connection: Connection,
  ids: readonly string[],
  fields: Record<string, 1> | undefined,
  signal: AbortSignal | undefined,
): Promise<Map<string, JobState & Record<string, unknown>>> {
  const found = new Map<string, JobState & Record<string, unknown>>();
  for (let at = 0; at < ids.length; at += MAX_LIMIT) {
    const chunk = ids.slice(at, at + MAX_LIMIT);
    const projection = { limit: chunk.length, ...(fields ? { fields } : {}) };
    const page = await connection.getData("jobs", {
      search: listSearch({ _id: { $in: chunk } }, projection),
      signal,
      check: recordArray({ requireId: true, maxItems: chunk.length }),
    });
    for (const job of page) found.set(job._id, job as JobState & Record<string, unknown>);
  }
  return found;
}

/**
 * A job a poll's list left out, read by its own path: the record when it is there after all (a
 * list answered from a replica behind), undefined when the platform has no such job for this
 * account any more (a 404: deleted while waited on).
 */
async function confirmedGone(
  connection: Connection,
  id: string,
  signal: AbortSignal | undefined,
): Promise<(JobState & Record<string, unknown>) | undefined> {
  try {
    return await connection.getData<JobState & Record<string, unknown>>(`jobs/${encodeURIComponent(id)}`, { signal });
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/** The request a wait polls with, as errors name it: `GET /api/2018-10-01/jobs`. */
function jobsEndpoint(connection: Connection): string {
  return `GET ${new URL(connection.baseUrl).pathname.replace(/\/$/, "")}/jobs`;
}

/** A set of jobs has no status of its own: waiting for it would never end. */
function throwSets(found: ReadonlyMap<string, Record<string, unknown>>): void {
  const sets = [...found.values()].filter((job) => job.isEntitySet === true).map((set) => String(set._id));
  if (sets.length === 0) return;
  const [first] = sets;
  throw new ValidationError(
    "ids",
    `${sets.map((id) => JSON.stringify(id)).join(", ")} ${sets.length === 1 ? "is a set" : "are sets"} of jobs, not a job: a set has no status to wait for. ` +
      `Wait for the jobs in it: list those whose inSet._id is its _id (query {"inSet._id": ${JSON.stringify(first)}}), then wait for their ids.`,
  );
}

/** A NotFoundError naming the jobs of `ids` that `found` lacks, if any. */
function throwMissing(connection: Connection, ids: readonly string[], found: ReadonlyMap<string, unknown>): void {
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) throw jobsNotFound(missing, jobsEndpoint(connection));
}

/**
 * The error for jobs this account cannot read (deleted, or another's), whatever request met them
 * (`met`: the request's own 404): one wording for a wait, a terminate or a file list.
 */
export function jobsNotFound(ids: readonly string[], endpoint: string, met?: NotFoundError): NotFoundError {
  const named = ids
    .slice(0, 3)
    .map((id) => JSON.stringify(id))
    .join(", ");
  return new NotFoundError(
    `No job ${named}${ids.length > 3 ? ` (and ${ids.length - 3} more)` : ""} among the jobs this account can read: deleted, or not this account's.`,
    { status: 404, endpoint, serverMessage: met?.serverMessage, headers: met?.headers },
    { remedy: { listWith: "jobs" }, ...(met ? { cause: met } : {}) },
  );
}

function countStatuses(jobs: readonly JobState[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const job of jobs) counts[String(job.status)] = (counts[String(job.status)] ?? 0) + 1;
  return counts;
}

function describeCount(n: number): string {
  return n === 1 ? "1 job" : `${n} jobs`;
}

function timedOut(
  connection: Connection,
  jobs: readonly JobState[],
  until: Readonly<Set<string>>,
  timeout: number,
): JobWaitTimeoutError {
  const waiting = jobs.filter((job) => !until.has(String(job.status)) && !FINAL.has(String(job.status)));
  const listed = waiting
    .slice(0, 3)
    .map((job) => `${job._id} (${String(job.status)})`)
    .join(", ");
  const endpoint = jobsEndpoint(connection);
  return new JobWaitTimeoutError(
    `Waited ${formatMs(timeout)} for ${describeCount(jobs.length)} to reach ${[...until].join(" or ")}; ` +
      `${waiting.length} still ${waiting.length === 1 ? "has" : "have"} not: ${listed}${waiting.length > 3 ? ", ..." : ""}; ` +
      "they go on running.",
    endpoint,
    timeout,
    jobs.map(({ _id, name, status }) => ({ _id, ...(name !== undefined ? { name } : {}), status })),
  );
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}
