// What `matframe jobs` does, as functions of a client and options: the command only parses its
// flags and prints. Each reports through callbacks and prints nothing.
import { type Client, connectClient } from "../../client/client";
import { describePlatform, resolvePlatform, type ChoiceNames } from "../../client/config/platform-source";
import { type DownloadedFile, type JobWaitProgress, jobsNotFound } from "../../client/collections";
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  UnprocessableEntityError,
  ValidationError,
} from "../../errors";
import { FINAL_JOB_STATUSES, type JobFile, type JobRecord, type JobStatus, type Query } from "../../schemas";

/** Which platform and account `matframe jobs` acts on: resolved as `matframe export` resolves them. */
export interface JobsPlatformOptions {
  /** The platform's address; without it, the environment's or a saved login's. */
  baseUrl?: string;
  /** Log in as this user (with `password`). */
  username?: string;
  /** Only with `username`; never from the command line. */
  password?: string;
  /** A saved login (`matframe login --profile NAME`). @default MATFRAME_PROFILE, else "default" */
  profile?: string;
  /** Where `MATFRAME_*` and the platform client's variables are read. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** How messages name the options (the CLI's flags). @default the option names */
  names?: ChoiceNames;
  /** Stops a login in progress. */
  signal?: AbortSignal;
}

/** A client of the platform the options name, and how to let it go. */
export interface JobsSession {
  readonly client: Client;
  /** The platform and where its address and credentials came from, never a secret. */
  readonly description: string;
  /** Where the credentials came from, to say how to renew refused ones. */
  readonly credentialsFrom: string;
  /** Logs out a login made here; closes a client of saved or environment credentials (they stay valid). */
  close(): Promise<void>;
}

/**
 * A client for `matframe jobs`: the platform and credentials `--base-url`, `--username`,
 * `--profile`, `MATFRAME_*`, the platform client's variables or a saved login name. Unlike
 * `export`, there is no built-in platform to fall back on: a job run on a platform that stops
 * with the command would be lost, so naming none is a ValidationError saying how to name one.
 */
export async function openJobsSession(options: JobsPlatformOptions): Promise<JobsSession> {
  const { baseUrl, username, password, profile, env = process.env, names, signal } = options;
  const resolved = resolvePlatform({ baseUrl, username, password, profile }, env, names);
  if (resolved.kind === "none") {
    throw new ValidationError(
      "baseUrl",
      `${names?.baseUrl ?? "baseUrl"} is needed: name the platform whose jobs to use with --base-url (e.g. http://127.0.0.1:4000 for \`matframe serve\`), MATFRAME_BASE_URL or API_HOST, or run \`matframe login\` once to save one.`,
    );
  }
  const client = await connectClient(resolved, {}, signal);
  const loggedIn = resolved.credentials.kind === "login";
  return {
    client,
    description: describePlatform(resolved),
    credentialsFrom: resolved.credentialsFrom,
    close: () => (loggedIn ? client.logout() : client.close()).catch(() => undefined),
  };
}

/** `matframe jobs list`. */
export interface ListJobsOptions {
  /** A MongoDB-style query over the jobs. @default {} */
  query?: Query;
  /** Only jobs with one of these statuses. @default every status */
  statuses?: readonly JobStatus[];
  /** At most this many jobs, newest first. @default 100 */
  maxItems?: number;
}

/** The fields a job listing shows (a set of jobs, listed with them, has no status: it is marked). */
export const LISTED_FIELDS = { name: 1, status: 1, _material: 1, _project: 1, createdAt: 1, isEntitySet: 1 } as const;

/** What `listJobs` found: the jobs, and whether more matched than `maxItems` let through. */
export interface JobListing {
  readonly jobs: readonly JobRecord[];
  /** More jobs match than were listed. */
  readonly more: boolean;
}

/** The caller's jobs (and the reference jobs they can read), newest first, with the listed fields only. */
export async function listJobs(client: Client, options: ListJobsOptions = {}): Promise<JobListing> {
  const query: Query = { ...(options.query ?? {}) };
  if (options.statuses?.length) query.status = { $in: [...options.statuses] };
  const maxItems = options.maxItems ?? 100;
  const jobs: JobRecord[] = [];
  // One more than asked for, to know whether the list is whole.
  for await (const job of client.jobs.iterate({
    query,
    fields: LISTED_FIELDS,
    sort: { createdAt: -1 },
    maxItems: Math.min(maxItems + 1, Number.MAX_SAFE_INTEGER),
  })) {
    jobs.push(job as JobRecord);
  }
  const more = jobs.length > maxItems;
  return { jobs: more ? jobs.slice(0, maxItems) : jobs, more };
}

/** `matframe jobs submit`: jobs to submit by id, or one to create first. */
export interface SubmitJobsOptions {
  /** Jobs in `pre-submission` to submit. */
  ids?: readonly string[];
  /** The material of a job to create: its `_id`, or an `external.id` such as `mp-149`. */
  material?: string;
  /** The workflow of a job to create: an `_id` you can read, or a bank workflow's `systemName` or `name`. */
  workflow?: string;
  /** The project of a job to create. @default your default project */
  project?: string;
  /** The name of a job to create. @default the material's formula and the workflow's name ("Si Band Gap") */
  name?: string;
  signal?: AbortSignal;
}

/** Told what `submitJobs` did. */
export interface SubmitEvents {
  /** A job was created (before it is submitted). */
  onCreated?: (job: JobRecord) => void;
  /**
   * An external id (`mp-149`) named several materials you can read (your copy and the public
   * one): `chosen` is the one the job uses (yours, where you have one, else the first by _id),
   * `others` the rest.
   */
  onMaterialChoice?: (choice: MaterialChoice) => void;
}

/** Which of several materials with one external id a created job uses (see `onMaterialChoice`). */
export interface MaterialChoice {
  readonly reference: string;
  readonly chosen: string;
  readonly yours: boolean;
  readonly others: readonly string[];
}

/** Creates a job when `material`/`workflow` are given, then submits it and every job of `ids`, in order. */
export async function submitJobs(
  client: Client,
  options: SubmitJobsOptions,
  events: SubmitEvents = {},
): Promise<JobRecord[]> {
  const ids = [...(options.ids ?? [])];
  const creating = options.material !== undefined || options.workflow !== undefined;
  if (creating) {
    if (options.material === undefined || options.workflow === undefined)
      throw new ValidationError(
        options.material === undefined ? "material" : "workflow",
        "A job to create needs both material and workflow.",
      );
    if (ids.length > 0)
      throw new ValidationError("ids", "Give job ids to submit, or material and workflow to create one; not both.");
    const material = await findMaterial(client, options.material, options.signal);
    const workflow = await findWorkflow(client, options.workflow, options.signal);
    // Told only once the workflow is found too, so a refused workflow is the only message.
    if (material.choice) events.onMaterialChoice?.(material.choice);
    const job = await client.jobs
      .create(
        {
          material: material.id,
          workflow: workflow.id,
          ...(options.project !== undefined ? { project: options.project } : {}),
          ...(options.name !== undefined ? { name: options.name } : defaultName(material.formula, workflow.name)),
        },
        { signal: options.signal },
      )
      .catch(async (error: unknown) => {
        throw await projectRefused(client, options.project, error, options.signal);
      });
    events.onCreated?.(job);
    ids.push(job._id);
  } else if (options.project !== undefined || options.name !== undefined) {
    throw new ValidationError(
      options.project !== undefined ? "project" : "name",
      "project and name apply to a job created here: give material and workflow too.",
    );
  }
  if (ids.length === 0)
    throw new ValidationError("ids", "Give the ids of jobs to submit, or material and workflow to create one.");
  const submitted: JobRecord[] = [];
  for (const id of ids) submitted.push(await submitJob(client, id, options.signal));
  return submitted;
}

/** Submits one job; a job that is not in pre-submission is refused with the way to run it again. */
async function submitJob(client: Client, id: string, signal: AbortSignal | undefined): Promise<JobRecord> {
  try {
    return await aboutJob(id, () => client.jobs.submit(id, { signal }));
  } catch (error) {
    if (!(error instanceof BadRequestError)) throw error;
    // The platform's refusal names its own copy endpoint; the job's status and what it ran say it here.
    const [job] = await client.jobs
      .list({
        query: { _id: id },
        projection: {
          limit: 1,
          fields: { status: 1, "_material._id": 1, "workflow._id": 1, "workflow.systemName": 1 },
        },
        signal,
      })
      .catch(() => []);
    if (job === undefined || job.status === "pre-submission") throw error;
    const workflow = job.workflow as { _id?: unknown; systemName?: unknown } | undefined;
    const again = [
      typeof job._material?._id === "string" ? `--material ${job._material._id}` : "--material ID",
      `--workflow ${typeof workflow?.systemName === "string" ? workflow.systemName : typeof workflow?._id === "string" ? workflow._id : "ID"}`,
    ].join(" ");
    throw new BadRequestError(
      `Job ${JSON.stringify(id)} is ${String(job.status)}, and only a job in pre-submission can be submitted. To run it again, submit a new one: \`matframe jobs submit ${again}\`.`,
      { status: error.status, endpoint: error.endpoint, serverMessage: error.serverMessage, headers: error.headers },
      { cause: error },
    );
  }
}

/** The projects of yours a refused `project` message lists. */
const LISTED_PROJECTS = 10;

/**
 * `error` from creating a job, or, when the platform refused a `project` that is not one of this
 * account's (none it can read, or another account's), a ValidationError saying so and naming the
 * account's own (the platform's refusal as its cause). A project of the account's own leaves the
 * platform's words: the refusal was about something else (a quota, say). Read only on a refusal,
 * so a job that is created costs no request more.
 */
async function projectRefused(
  client: Client,
  project: string | undefined,
  error: unknown,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  if (project === undefined || !(error instanceof BadRequestError || error instanceof PermissionDeniedError))
    return error;
  const projects = client.projects;
  const account = client.accountId;
  const found = await projects
    .list({ query: { _id: project }, projection: { fields: { "owner._id": 1 }, limit: 1 }, signal })
    .catch(() => undefined);
  if (found === undefined) return error;
  const [readable] = found;
  // With a token alone the account's id is unknown: a project it can read is taken as its own.
  if (readable && (account === undefined || readable.owner?._id === account)) return error;
  const own = await projects
    .list({
      query: account === undefined ? {} : { "owner._id": account },
      projection: { fields: { name: 1 }, limit: LISTED_PROJECTS + 1 },
      signal,
    })
    .catch(() => []);
  const listed = own
    .slice(0, LISTED_PROJECTS)
    .map((p) => `${p._id} ${JSON.stringify(String(p.name ?? ""))}`)
    .join(", ");
  const named = `project ${JSON.stringify(project.slice(0, 100))}`;
  return new ValidationError(
    "project",
    `${readable ? `${named} is another account's, and a job goes in a project of its own account` : `${named} names no project this account can read`}${
      listed
        ? ` (${account === undefined ? "projects it can read" : "yours"}: ${listed}${own.length > LISTED_PROJECTS ? ", ..." : ""})`
        : ""
    }`,
    { remedy: { leaveOut: ["project"] }, cause: error },
  );
}

/** Materials looked at for one external id: your copy and the public one, and a few more. */
const EXTERNAL_ID_MATCHES = 20;

/** A material by `_id`, else by `external.id` (`mp-149`): yours first, where you have a copy. */
async function findMaterial(
  client: Client,
  reference: string,
  signal: AbortSignal | undefined,
): Promise<{ id: string; formula?: string; choice?: MaterialChoice }> {
  let notFound: NotFoundError;
  try {
    const material = await client.materials.get(reference, { signal });
    return { id: material._id, ...formulaOf(material) };
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    notFound = error;
  }
  const found = await client.materials.list({
    query: { "external.id": reference },
    projection: { limit: EXTERNAL_ID_MATCHES, fields: { _id: 1, "owner._id": 1, formula: 1 } },
    signal,
  });
  const yours = found.find((m) => m.owner?._id === client.accountId);
  const chosen = yours ?? found[0];
  if (chosen) {
    if (found.length === 1) return { id: chosen._id, ...formulaOf(chosen) };
    const others = found.filter((m) => m !== chosen).map((m) => m._id);
    return {
      id: chosen._id,
      ...formulaOf(chosen),
      choice: { reference, chosen: chosen._id, yours: yours !== undefined, others },
    };
  }
  // The platform's 404, as an unknown job id is (exit code 2): the value is well formed, the record is not there.
  throw new NotFoundError(
    `No material you can read has the _id or external id ${JSON.stringify(reference.slice(0, 200))}; find one with \`matframe export --query '{"formula":"Si"}' --columns _id,formula,external.id\`.`,
    { status: notFound.status, endpoint: notFound.endpoint, headers: notFound.headers },
    { cause: notFound },
  );
}

/** A workflow you can read by `_id`, else a bank workflow by `systemName` or `name`: its id and name. */
async function findWorkflow(
  client: Client,
  reference: string,
  signal?: AbortSignal,
): Promise<{ id: string; name?: string }> {
  let workflow: { _id: string; name?: unknown };
  try {
    workflow = await client.workflows.get(reference, { signal });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    workflow = await client.workflows.findInBank(reference, { signal });
  }
  return { id: workflow._id, ...(typeof workflow.name === "string" ? { name: workflow.name } : {}) };
}

/** A material record's formula, when it has one. */
function formulaOf(material: { formula?: unknown }): { formula?: string } {
  return typeof material.formula === "string" ? { formula: material.formula } : {};
}

/**
 * A created job's name when none is given: the material's formula and the workflow's name
 * ("Si Band Gap"), so that `matframe jobs list` tells jobs apart; the platform's own default
 * ("New Job") when neither is known.
 */
function defaultName(formula: string | undefined, workflow: string | undefined): { name?: string } {
  const name = [formula, workflow]
    .filter((part) => part && !/[\p{Cc}\p{Cf}]/u.test(part))
    .join(" ")
    .slice(0, 200);
  return name ? { name } : {};
}

/** What `waitJobs` found at the end. */
export interface WaitOutcome {
  /** Every job, in the order asked for. */
  readonly jobs: readonly JobRecord[];
  /** The jobs that ended without their results: `error`, `terminated`, `timeout` or `deleted`. */
  readonly failed: readonly JobRecord[];
}

/** The final statuses that mean a job did not finish. */
export const FAILED_STATUSES: readonly string[] = FINAL_JOB_STATUSES.filter((status) => status !== "finished");

/**
 * Waits for the jobs (see `client.jobs.waitFor`: a job deleted while waited on ends as
 * `deleted`), and says which ended without their results.
 */
export async function waitJobs(
  client: Client,
  ids: readonly string[],
  options: {
    until?: readonly JobStatus[];
    timeout?: number;
    signal?: AbortSignal;
    onProgress?: (progress: JobWaitProgress) => void;
  },
): Promise<WaitOutcome> {
  const jobs = await client.jobs.waitFor(ids, {
    ...(options.until ? { until: options.until } : {}),
    ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  return { jobs, failed: jobs.filter((job) => FAILED_STATUSES.includes(String(job.status))) };
}

/**
 * Terminates each job, in order, and goes on past one the platform refuses for itself (unknown,
 * finished, another account's): `onEnded` hears each job as the platform answered, `onRefused`
 * each refusal. A refusal that is not about the job (the login, the platform unreachable) stops
 * there. Resolves with how many were refused.
 */
export async function terminateJobs(
  client: Client,
  ids: readonly string[],
  {
    signal,
    onEnded,
    onRefused,
  }: {
    signal?: AbortSignal;
    onEnded: (job: JobRecord) => void;
    onRefused: (id: string, error: unknown) => void;
  },
): Promise<number> {
  let refused = 0;
  for (const id of ids) {
    try {
      onEnded(await aboutJob(id, () => client.jobs.terminate(id, { signal })));
    } catch (error) {
      if (!isAboutOneJob(error)) throw error;
      refused++;
      onRefused(id, error);
    }
  }
  return refused;
}

/** A refusal of one job's request that says nothing of the next job's. */
function isAboutOneJob(error: unknown): boolean {
  return (
    error instanceof NotFoundError ||
    error instanceof BadRequestError ||
    error instanceof PermissionDeniedError ||
    error instanceof ConflictError ||
    error instanceof UnprocessableEntityError
  );
}

/** A job's files, and with `download` each written into that folder. */
export async function jobFiles(
  client: Client,
  id: string,
  options: { download?: string; force?: boolean; signal?: AbortSignal } = {},
): Promise<{ files: JobFile[]; written: DownloadedFile[] }> {
  if (options.download === undefined)
    return { files: await aboutJob(id, () => client.jobs.files(id, { signal: options.signal })), written: [] };
  // `match` is asked once the files are listed: a 404 before is the job's, one after a file's.
  let listed = false;
  const written = await aboutJob(
    id,
    () =>
      client.jobs.download(id, options.download!, {
        force: options.force,
        signal: options.signal,
        match: () => (listed = true),
      }),
    () => !listed,
  );
  return { files: written.map((w) => w.file), written };
}

/**
 * `act` on the job `id`; its NotFoundError said as `wait` says one (no such job among those this
 * account can read), rather than as the request that met it. `ofJob` says whether a 404 now is
 * the job's own.
 */
async function aboutJob<T>(id: string, act: () => Promise<T>, ofJob: () => boolean = () => true): Promise<T> {
  try {
    return await act();
  } catch (error) {
    if (!(error instanceof NotFoundError) || !ofJob()) throw error;
    throw jobsNotFound([id], error.endpoint, error);
  }
}
