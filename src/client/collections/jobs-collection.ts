import * as path from "node:path";
import { ValidationError } from "../../errors";
import type { JobFile, JobRecord } from "../../schemas";
import { Collection, type RecordOf } from "../collection";
import { moveRecordsToSet, movedRecords, setBody, type CreateSetOptions, type MoveToSetOptions } from "./entity-sets";
import { checkJobFiles, downloadJobFile, localName, type DownloadedFile, type DownloadOptions } from "./job-files";
import { waitForJobs, type WaitForJobsOptions } from "./job-wait";
import type { WriteOptions } from "../writes";
import { internalsOf } from "../client-internals";

/** A record named by its `_id`, or the record itself (anything with an `_id`). */
export type RecordReference = string | { readonly _id: string };

/**
 * `client.jobs.create(job)`: what a job runs, on what, and where it is filed. A `type` (not an
 * interface) so that it is also a `Record<string, unknown>`, as `Collection.create` takes.
 */
export type CreateJobOptions = {
  /**
   * The material the job computes: its `_id` or the record (yours, the bundled ones or the bank's).
   * @example si._id
   */
  material: RecordReference;
  /**
   * The workflow it runs: an `_id` of one you can read (yours or the bank's) or the record; the
   * job embeds a copy of it. `client.workflows.findInBank(name)` finds a bank workflow by name.
   * @example bandGap._id
   */
  workflow: RecordReference;
  /**
   * The project it is filed in (one of yours).
   * @default your default project
   */
  project?: RecordReference;
  /**
   * The job's name.
   * @default "New Job" (the platform's)
   * @example "Si band gap"
   */
  name?: string;
  /**
   * The compute it asks for (ESSE's `job/compute`: `queue`, `nodes`, `ppn`, `timeLimit`, ...); the
   * platform fills in what is left out.
   * @default the platform's: { queue: "D", nodes: 1, ppn: 1, timeLimit: "01:00:00" }
   */
  compute?: Record<string, unknown>;
  /**
   * Tags for the job.
   * @default []
   */
  tags?: readonly string[];
};

const CREATE_KEYS = ["material", "workflow", "project", "name", "compute", "tags"];

/**
 * `client.jobs`: the jobs you can read (the reference jobs and your own), with the job's life:
 * `create`, `submit`, `waitFor`, `terminate`, and its `files`. A job moves from
 * `pre-submission` through `submitted` (and `active`) to `finished` or `error`, or to
 * `terminated`; its results are property records (`client.properties`, `client.results`).
 */
export class JobsCollection extends Collection<JobRecord> {
  /**
   * Creates a job (in `pre-submission`; `submit` runs it): `PUT /jobs/create` with the body the
   * platform's Python client sends (`{ _material: { _id }, workflow: { _id }, _project: { _id }, name }`).
   * Resolves to the job the platform stored, its workflow embedded.
   * @example const job = await client.jobs.create({ material: si._id, workflow: bandGap._id, name: "Si gap" });
   */
  override async create<T extends object = never>(
    job: CreateJobOptions,
    options: WriteOptions = {},
  ): Promise<RecordOf<T, JobRecord, {}>> {
    const body = jobBody(job);
    return this.checkWritten(
      await internalsOf(this.connection).writeData("PUT", `${this.name}/create`, { body, signal: options.signal }),
    ) as RecordOf<T, JobRecord, {}>;
  }

  /**
   * Submits a job in `pre-submission` (`POST /jobs/<id>/submit`): it becomes `submitted`, and runs.
   * Resolves to the job as the platform answered (read again when it answered no record).
   * @example await client.jobs.submit(job._id);
   */
  async submit(id: string, options: WriteOptions = {}): Promise<JobRecord> {
    return this.#verb(id, "submit", options);
  }

  /**
   * Ends a job that is waiting or running (`POST /jobs/<id>/terminate`): it becomes `terminated`,
   * with no results. A job already finished is refused (`BadRequestError`).
   * @example await client.jobs.terminate(job._id);
   */
  async terminate(id: string, options: WriteOptions = {}): Promise<JobRecord> {
    return this.#verb(id, "terminate", options);
  }

  /**
   * Waits until the job (or every job of a list) has a final status (`finished`, `error`,
   * `terminated`, `timeout`, `deleted`), or one of `until`, polling their statuses with a pause
   * that grows while nothing changes (see `WaitForJobsOptions`). Resolves with the whole records,
   * in the order asked for. A job ending in `error` is not an error of the wait: look at `status`.
   * A job deleted while waited on ends with status `deleted` (`_id` and `name` as last read).
   * @throws JobWaitTimeoutError past `timeout`; AbortError on `signal`; NotFoundError for a job
   *   this account cannot read when the wait starts.
   * @example const done = await client.jobs.waitFor(job._id, { timeout: 120_000 });
   * @example const all = await client.jobs.waitFor(ids, { onProgress: (p) => console.error(`${p.done}/${p.total}`) });
   */
  waitFor(id: string, options?: WaitForJobsOptions): Promise<JobRecord>;
  waitFor(ids: readonly string[], options?: WaitForJobsOptions): Promise<JobRecord[]>;
  async waitFor(ids: string | readonly string[], options: WaitForJobsOptions = {}): Promise<JobRecord | JobRecord[]> {
    // waitForJobs resolves with one record per id asked, so one here.
    if (typeof ids === "string") return (await waitForJobs(this.connection, [ids], options))[0]!;
    if (!Array.isArray(ids)) throw new ValidationError("ids", "waitFor takes a job's _id or an array of them.");
    return waitForJobs(this.connection, ids, options);
  }

  /**
   * The job's input and output files (`GET /jobs/<id>/files`): `key`, `name`, `size` and a
   * `signedUrl` that downloads the file without credentials, for a while.
   * @example const outputs = (await client.jobs.files(job._id)).filter((f) => f.name?.endsWith(".out"));
   */
  async files(id: string, options: { signal?: AbortSignal } = {}): Promise<JobFile[]> {
    return this.connection.getData(`${this.recordPath(id)}/files`, { signal: options.signal, check: checkJobFiles });
  }

  /**
   * Downloads one file of a job (as `files` lists it) to `target`, by its signed URL; the file
   * is written whole or not at all.
   * @throws TargetExistsError when `target` exists and `force` is not set.
   * @example await client.jobs.downloadFile(outputs[0], "pw_scf.out");
   */
  downloadFile(file: JobFile, target: string, options: DownloadOptions = {}): Promise<DownloadedFile> {
    if (file === null || typeof file !== "object" || typeof file.key !== "string")
      throw new ValidationError("file", "downloadFile takes a file as client.jobs.files(id) lists it.");
    if (typeof target !== "string" || target === "")
      throw new ValidationError("target", "target must be the path to write the file to.");
    return downloadJobFile(file, target, options);
  }

  /**
   * Downloads every file of a job (or those `match` keeps) into `directory`, each under its
   * `name`. Resolves with what was written, in the order listed.
   * @example const written = await client.jobs.download(job._id, "si-gap", { match: (f) => f.key.endsWith(".out") });
   */
  async download(
    id: string,
    directory: string,
    options: DownloadOptions & { match?: (file: JobFile) => boolean } = {},
  ): Promise<DownloadedFile[]> {
    if (typeof directory !== "string" || directory === "")
      throw new ValidationError("directory", "directory must be the folder to write the job's files to.");
    const { match, ...download } = options;
    const files = (await this.files(id, { signal: options.signal })).filter((file) => match?.(file) ?? true);
    const written: DownloadedFile[] = [];
    for (const file of files)
      written.push(await downloadJobFile(file, path.join(directory, localName(file)), download));
    return written;
  }

  /**
   * Creates an empty set of your jobs: `PUT /jobs/create-set` with `{ name, tags }`.
   * @example const set = await client.jobs.createSet("Convergence study");
   */
  async createSet(name: string, options: CreateSetOptions = {}): Promise<JobRecord> {
    const body = setBody(name, options);
    return this.checkWritten(
      await internalsOf(this.connection).writeData("PUT", `${this.name}/create-set`, { body, signal: options.signal }),
    ) as JobRecord;
  }

  /**
   * Moves jobs of yours into one of your job sets (and out of `fromSetId`).
   * @example await client.jobs.moveToSet(set._id, [job._id]);
   */
  async moveToSet(
    setId: string,
    ids: string | readonly string[],
    options: MoveToSetOptions = {},
  ): Promise<JobRecord[]> {
    return movedRecords(await moveRecordsToSet(this.connection, this.name, setId, ids, options)) as JobRecord[];
  }

  async #verb(id: string, verb: "submit" | "terminate", options: WriteOptions): Promise<JobRecord> {
    const answer = await internalsOf(this.connection).writeData("POST", `${this.recordPath(id)}/${verb}`, {
      signal: options.signal,
    });
    // The platform's own answer may carry no record (its Python client reads none): read it then.
    if (answer !== null && typeof answer === "object" && typeof (answer as { _id?: unknown })._id === "string")
      return answer as JobRecord;
    return this.get(id, options) as Promise<JobRecord>;
  }
}

/** The job as the platform's client sends it, every mistake a ValidationError before anything is sent. */
function jobBody(job: unknown): Record<string, unknown> {
  if (job === null || typeof job !== "object" || Array.isArray(job))
    throw new ValidationError(
      "job",
      "jobs.create takes { material, workflow, project?, name?, compute?, tags? }, e.g. { material: si._id, workflow: bandGap._id }.",
    );
  const fields = job as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !CREATE_KEYS.includes(key));
  const [extra] = unknown;
  if (extra !== undefined) {
    const raw = unknown.some((key) => key.startsWith("_"));
    throw new ValidationError(
      extra,
      `jobs.create has no field "${extra}"; it takes ${CREATE_KEYS.join(", ")}${raw ? " (material for _material, project for _project)" : ""}.`,
    );
  }
  const { material, workflow, project, name, compute, tags } = fields;
  if (name !== undefined && (typeof name !== "string" || name.trim() === ""))
    throw new ValidationError("name", "name must be a non-empty string: the job's name.");
  if (compute !== undefined && (compute === null || typeof compute !== "object" || Array.isArray(compute)))
    throw new ValidationError("compute", 'compute must be an object such as { queue: "D", nodes: 1, ppn: 1 }.');
  if (tags !== undefined && (!Array.isArray(tags) || tags.some((tag) => typeof tag !== "string")))
    throw new ValidationError("tags", "tags must be an array of strings.");
  return {
    _material: { _id: referenceId("material", material) },
    workflow: { _id: referenceId("workflow", workflow) },
    ...(project !== undefined ? { _project: { _id: referenceId("project", project) } } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(compute !== undefined ? { compute } : {}),
    ...(tags !== undefined ? { tags: [...(tags as string[])] } : {}),
  };
}

function referenceId(field: string, value: unknown): string {
  const id =
    typeof value === "string"
      ? value
      : value !== null && typeof value === "object"
        ? (value as { _id?: unknown })._id
        : undefined;
  if (typeof id !== "string" || id === "")
    throw new ValidationError(
      field,
      value === undefined
        ? `jobs.create needs ${field}: an _id or a record with one.`
        : `${field} must be an _id or a record with one; got ${value === null ? "null" : typeof value}.`,
    );
  return id;
}
