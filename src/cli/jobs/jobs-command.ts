// `matframe jobs`: its help, its flags, and what it prints. The work is in jobs-task.ts; failures
// are worded and coded in errors.ts, as for every command.
import { environmentPassword, resolveAddress } from "../../client/config/platform-source";
import type { JobState, JobWaitProgress } from "../../client/collections";
import { AbortError, JobWaitTimeoutError } from "../../errors";
import { FINAL_JOB_STATUSES, JobStatus, type JobRecord, type Query } from "../../schemas";
import { nearestName, parseFlagsAndWords, wrapHelp } from "../cli-args";
import { describeError, EXIT, exitCodeFor } from "../errors";
import { NAMES } from "../flag-names";
import {
  jobFiles,
  LISTED_FIELDS,
  listJobs,
  openJobsSession,
  submitJobs,
  terminateJobs,
  waitJobs,
  type JobsSession,
} from "./jobs-task";
import { promptPassword, readPasswordFromStdin } from "../password";
import { UsageError } from "../errors";
import { jsonLine, printable } from "../printable";
import { WaitProgress } from "./wait-progress";

/** The exit code of `wait` (and `submit --wait`) when a job ended without its results. */
export const JOB_FAILED_EXIT = 4;

const HELP = `Usage: matframe jobs list [options]
       matframe jobs submit ID... [options]
       matframe jobs submit --material ID --workflow ID|NAME [options]
       matframe jobs wait ID... [--until STATUS,...] [--timeout SECONDS]
       matframe jobs terminate ID...
       matframe jobs files ID [--download DIR [--force]]

Creates, submits, watches and ends jobs on the platform named by --base-url, MATFRAME_BASE_URL,
API_HOST or a saved login (in that order), with the credentials matframe export uses. Ids and
results go to stdout, progress and messages to stderr.

Commands:
  list        the jobs you can read, newest first: id, status, name, material (tab-separated)
  submit      submit jobs in pre-submission, or create one from --material and --workflow and
              submit it; prints each job's id
  wait        wait until every job has a final status (${FINAL_JOB_STATUSES.join(", ")}),
              with progress on stderr (a line every 5 s when stderr is not a terminal); prints
              each job's id, status and name
  terminate   end jobs that are waiting or running (each in turn: one the platform refuses is
              said, and the others are still ended)
  files       list a job's files (name, size in bytes, key), or download them with --download

Options:
  --base-url URL       platform address (default: $MATFRAME_BASE_URL, else $API_HOST with $API_PORT
                       and $API_SECURE, else the saved login's)
  --material ID        submit: the material of a job to create: its _id, or an external id such
                       as mp-149
  --workflow ID|NAME   submit: its workflow: an _id you can read, or a bank workflow's systemName
                       (e.g. espresso-total-energy, espresso-band-gap) or name; a name several
                       bank workflows share (such as "Total Energy") is refused with their
                       systemNames
  --project ID         submit: its project (default: your default project)
  --name NAME          submit: its name (default: the material's formula and the workflow's name,
                       e.g. "Si Band Gap")
  --wait               submit: then wait for the jobs, as matframe jobs wait does
  --until STATUS,...   wait: the statuses to wait for (default: ${FINAL_JOB_STATUSES.join(", ")})
  --timeout SECONDS    wait: give up after this long (exit code 3); the jobs go on running
  --status STATUS,...  list: only jobs with these statuses
  --query JSON         list: a MongoDB-style query, e.g. '{"name":"Si gap"}'
  --max-items N        list: at most N jobs (default 100)
  --json               list, submit, wait, files: one JSON object per line instead of
                       columns (for a job: _id, name, status, _material, _project, createdAt)
  --download DIR       files: write the job's files into DIR (created when missing)
  --force              files: overwrite files already in DIR
  --quiet              no progress and no messages on stderr
  --username NAME      log in as NAME; the password comes from MATFRAME_PASSWORD, --password-stdin,
                       or a prompt on the terminal
  --password-stdin     read the password from standard input
  --profile NAME       use the login saved by \`matframe login --profile NAME\`
  -h, --help           show this help

Credentials are found as matframe export finds them (see matframe export --help); there is no
built-in platform: a job needs a platform that outlives the command (e.g. matframe serve).
Exit codes: 0 success, 1 usage error, 2 authentication or API error, 3 network error or timeout,
4 a job ended in error, terminated, timeout or deleted (wait, submit --wait).
`;

const FLAGS = {
  "base-url": { type: "string" },
  material: { type: "string" },
  workflow: { type: "string" },
  project: { type: "string" },
  name: { type: "string" },
  wait: { type: "boolean" },
  until: { type: "string" },
  timeout: { type: "string" },
  status: { type: "string" },
  query: { type: "string" },
  "max-items": { type: "string" },
  json: { type: "boolean" },
  download: { type: "string" },
  force: { type: "boolean" },
  quiet: { type: "boolean" },
  username: { type: "string" },
  "password-stdin": { type: "boolean" },
  profile: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = ReturnType<typeof parseFlagsAndWords<typeof FLAGS>>["values"];

const SUBCOMMANDS = ["list", "submit", "wait", "terminate", "files"] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

/** The flags each subcommand takes, beyond the platform's and --quiet, --help. */
const OWN_FLAGS: Record<Subcommand, readonly string[]> = {
  list: ["status", "query", "max-items", "json"],
  submit: ["material", "workflow", "project", "name", "wait", "until", "timeout", "json"],
  wait: ["until", "timeout", "json"],
  terminate: [],
  files: ["download", "force", "json"],
};
const COMMON = ["base-url", "username", "password-stdin", "profile", "quiet", "help"];

/** The flag that sets each option of the library, so a refused option is named as the user typed it. */
const FLAG_FOR_OPTION: Readonly<Record<string, string>> = {
  baseUrl: "--base-url",
  username: "--username",
  profile: "--profile",
  material: "--material",
  workflow: "--workflow",
  project: "--project",
  name: "--name",
  until: "--until",
  timeout: "--timeout",
  query: "--query",
  maxItems: "--max-items",
  directory: "--download",
};

/** `matframe jobs ...`: returns the exit code. */
export async function runJobs(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let credentialsFrom: string | undefined;
  const controller = new AbortController();
  let signalled: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) process.exit(signal === "SIGINT" ? 130 : 143);
    signalled = signal;
    controller.abort(new AbortError(`Interrupted by ${signal}.`));
  };
  let session: JobsSession | undefined;
  try {
    const [first, ...rest] = argv;
    if (first === undefined || first === "--help" || first === "-h" || first === "help") {
      (first === undefined ? process.stderr : process.stdout).write(`${wrapHelp(HELP.trimEnd())}\n`);
      return first === undefined ? EXIT.usage : EXIT.ok;
    }
    const subcommand = checkSubcommand(first);
    if (rest.some((arg) => arg === "--password" || arg.startsWith("--password=")))
      throw new UsageError(
        "--password is not accepted: a password on the command line shows in the process list and shell history. Set MATFRAME_PASSWORD or use --password-stdin.",
      );
    const { values, words } = parseFlagsAndWords("jobs", rest, FLAGS);
    if (values.help) {
      process.stdout.write(`${wrapHelp(HELP.trimEnd())}\n`);
      return EXIT.ok;
    }
    checkFlags(subcommand, values, words);
    const read = readValues(values);
    const quiet = values.quiet ?? false;
    const password = await passwordFor(values, env);
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    session = await openJobsSession({
      baseUrl: values["base-url"],
      ...(values.username !== undefined ? { username: values.username, password } : {}),
      profile: values.profile,
      env,
      names: NAMES,
      signal: controller.signal,
    });
    credentialsFrom = session.credentialsFrom;
    if (!quiet) process.stderr.write(`Jobs on ${printable(session.description)}.\n`);
    return await run(subcommand, values, read, words, session, controller.signal);
  } catch (error) {
    if (signalled && (error instanceof AbortError || controller.signal.aborted)) {
      process.stderr.write(`matframe jobs: interrupted by ${signalled}; the jobs go on running.\n`);
      return signalled === "SIGINT" ? 130 : 143;
    }
    return reportJobsError(error, credentialsFrom);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await session?.close();
  }
}

/** Says `error` on stderr in the CLI's words (one line, escaped); returns its exit code. */
function reportJobsError(error: unknown, credentialsFrom: string | undefined): number {
  const line = describeError(error, {
    flags: FLAG_FOR_OPTION,
    lists: { jobs: "`matframe jobs list`" },
    ends: { jobs: "`matframe jobs terminate ID`" },
    writesTo: "--download folder",
    credentialsFrom,
  });
  process.stderr.write(`matframe jobs: ${printable(line.replace(/\s*\n\s*/g, " "))}\n`);
  return exitCodeFor(error);
}

async function run(
  subcommand: Subcommand,
  values: Values,
  read: ReadValues,
  words: string[],
  session: JobsSession,
  signal: AbortSignal,
): Promise<number> {
  const { client } = session;
  const json = values.json ?? false;
  const quiet = values.quiet ?? false;
  switch (subcommand) {
    case "list": {
      const { jobs, more } = await listJobs(client, {
        ...(read.query !== undefined ? { query: read.query } : {}),
        ...(read.statuses !== undefined ? { statuses: read.statuses } : {}),
        ...(read.maxItems !== undefined ? { maxItems: read.maxItems } : {}),
      });
      for (const job of jobs) printJob(job, json, true);
      const counted = `${jobs.length} ${jobs.length === 1 ? "job" : "jobs"}`;
      if (!quiet)
        process.stderr.write(
          more ? `The newest ${counted}; more match: raise --max-items to list them.\n` : `${counted}.\n`,
        );
      return EXIT.ok;
    }
    case "submit": {
      const submitted = await submitJobs(
        client,
        {
          ids: words,
          material: values.material,
          workflow: values.workflow,
          project: values.project,
          name: values.name,
          signal,
        },
        {
          onCreated: (job) => {
            if (!quiet)
              process.stderr.write(
                `Created job ${printable(job._id)} (${printable(String(job.name))}) on material ${printable(String(job._material?._id ?? "?"))}.\n`,
              );
          },
          onMaterialChoice: ({ reference, chosen, yours, others }) => {
            if (!quiet)
              process.stderr.write(
                `${printable(reference)} names ${others.length + 1} materials you can read; using ${yours ? "yours, " : ""}${printable(chosen)}; to use another, pass its _id (${others.map(printable).join(", ")}).\n`,
              );
          },
        },
      );
      if (!values.wait) {
        for (const job of submitted) process.stdout.write(json ? `${jsonLine(listedOf(job))}\n` : `${job._id}\n`);
        if (!quiet) process.stderr.write(`Submitted ${describeCount(submitted.length)}.\n`);
        return EXIT.ok;
      }
      return wait(
        session,
        submitted.map((job) => job._id),
        values,
        read,
        signal,
      );
    }
    case "wait":
      return wait(session, words, values, read, signal);
    case "terminate": {
      // Each job as it ends; a refused one is said and the next is still terminated.
      let code: number = EXIT.ok;
      await terminateJobs(client, words, {
        signal,
        onEnded: (job) => printJob(job, false, false),
        onRefused: (_id, error) => {
          code = Math.max(code, reportJobsError(error, session.credentialsFrom));
        },
      });
      return code;
    }
    case "files": {
      // checkFlags let files through with exactly one id.
      const { files, written } = await jobFiles(client, words[0]!, {
        ...(values.download !== undefined ? { download: values.download } : {}),
        force: values.force ?? false,
        signal,
      });
      if (values.download !== undefined) {
        for (const w of written)
          process.stdout.write(json ? `${jsonLine({ ...w.file, path: w.path })}\n` : `${printable(w.path)}\n`);
        if (!quiet)
          process.stderr.write(
            `Downloaded ${written.length} ${written.length === 1 ? "file" : "files"} into ${printable(values.download)}.\n`,
          );
        return EXIT.ok;
      }
      for (const file of files) {
        // The URL is a credential for the file: shown only in --json, which a script asked for.
        process.stdout.write(
          json
            ? `${jsonLine(file)}\n`
            : `${printable(file.name ?? file.key.split("/").pop() ?? "")}\t${file.size ?? ""}\t${printable(file.key)}\n`,
        );
      }
      if (!quiet) process.stderr.write(`${files.length} ${files.length === 1 ? "file" : "files"}.\n`);
      return EXIT.ok;
    }
  }
}

/** `wait` and `submit --wait`: progress on stderr, each job's final line on stdout, exit 4 when one failed. */
async function wait(
  session: JobsSession,
  ids: string[],
  values: Values,
  read: ReadValues,
  signal: AbortSignal,
): Promise<number> {
  const quiet = values.quiet ?? false;
  const progress = quiet ? undefined : new WaitProgress(process.stderr);
  // A job deleted while waited on ends the wait as `deleted`: said once, as it is seen.
  const deleted = new Set<string>();
  const sayDeleted = (jobs: readonly JobState[]) => {
    for (const job of jobs) {
      if (quiet || job.status !== "deleted" || deleted.has(job._id)) continue;
      deleted.add(job._id);
      progress?.clear();
      process.stderr.write(`matframe jobs: job ${printable(job._id)} was deleted while waited on.\n`);
    }
  };
  const update = (p: JobWaitProgress) => {
    sayDeleted(p.jobs);
    progress?.update(p);
  };
  try {
    const outcome = await waitJobs(session.client, ids, {
      ...(read.until !== undefined ? { until: read.until } : {}),
      ...(read.timeout !== undefined ? { timeout: read.timeout } : {}),
      signal,
      ...(progress ? { onProgress: update } : {}),
    });
    progress?.clear();
    sayDeleted(outcome.jobs);
    for (const job of outcome.jobs) printJob(job, values.json ?? false, false);
    if (outcome.failed.length === 0) return EXIT.ok;
    if (!quiet) {
      const reasons = outcome.failed.map((job) => {
        const reason = (job.localRun as { reason?: unknown } | undefined)?.reason;
        return `${job._id} ${job.status}${typeof reason === "string" ? `: ${reason}` : ""}`;
      });
      process.stderr.write(
        `matframe jobs: ${describeCount(outcome.failed.length)} did not finish: ${printable(reasons.join("; "))}\n`,
      );
    }
    return JOB_FAILED_EXIT;
  } catch (error) {
    progress?.clear();
    // Out of time: each job's line as last seen, so those that ended (and how) are not lost.
    if (error instanceof JobWaitTimeoutError)
      for (const job of error.jobs) printJob(job as JobRecord, values.json ?? false, false);
    throw error;
  }
}

/** One job on stdout: tab-separated id, status, name (and material when listing), or its JSON. */
function printJob(job: JobRecord, json: boolean, withMaterial: boolean): void {
  if (json) {
    process.stdout.write(`${jsonLine(listedOf(job))}\n`);
    return;
  }
  const cells = [job._id, job.isEntitySet === true ? "(set)" : String(job.status ?? ""), String(job.name ?? "")];
  if (withMaterial) cells.push(String(job._material?.slug ?? job._material?._id ?? ""));
  process.stdout.write(`${cells.map((cell) => printable(cell).replace(/\t/g, " ")).join("\t")}\n`);
}

/**
 * What `--json` prints of a job, whichever command read it: its `_id` and the fields `list`
 * shows, not the whole record (a job embeds its workflow, several KB of input templates).
 */
function listedOf(job: JobRecord): Partial<JobRecord> {
  const listed: Record<string, unknown> = { _id: job._id };
  for (const field of Object.keys(LISTED_FIELDS)) if (job[field] !== undefined) listed[field] = job[field];
  return listed as Partial<JobRecord>;
}

function describeCount(n: number): string {
  return n === 1 ? "1 job" : `${n} jobs`;
}

function checkSubcommand(word: string): Subcommand {
  if ((SUBCOMMANDS as readonly string[]).includes(word)) return word as Subcommand;
  const near = nearestName(word.replace(/^-+/, ""), SUBCOMMANDS);
  throw new UsageError(
    `"matframe jobs" takes one of ${SUBCOMMANDS.join(", ")}, not ${JSON.stringify(printable(word.slice(0, 100)))}${near ? `; did you mean "${near}"?` : "."} Run "matframe jobs --help" for the options.`,
  );
}

/** Each flag applies to the subcommands that use it, and each subcommand gets the ids it needs. */
function checkFlags(subcommand: Subcommand, values: Values, words: string[]): void {
  for (const [flag, value] of Object.entries(values)) {
    if (value === undefined || COMMON.includes(flag) || OWN_FLAGS[subcommand].includes(flag)) continue;
    const users = SUBCOMMANDS.filter((name) => OWN_FLAGS[name].includes(flag));
    throw new UsageError(`--${flag} applies to matframe jobs ${users.join(" and ")}, not ${subcommand}.`);
  }
  if (subcommand === "submit" && !values.wait && (values.until !== undefined || values.timeout !== undefined))
    throw new UsageError(`--${values.until !== undefined ? "until" : "timeout"} applies to submit with --wait.`);
  if (values.force && values.download === undefined)
    throw new UsageError("--force applies to files with --download DIR.");
  if (subcommand === "list" && words.length > 0)
    throw new UsageError(`matframe jobs list takes no ids; filter with --status or --query.`);
  if ((subcommand === "wait" || subcommand === "terminate") && words.length === 0)
    throw new UsageError(`matframe jobs ${subcommand} needs the ids of the jobs, e.g. matframe jobs ${subcommand} ID.`);
  if (subcommand === "files" && words.length !== 1)
    throw new UsageError("matframe jobs files takes one job id, e.g. matframe jobs files ID --download out/.");
}

/** The flags' values that are read (statuses, numbers, JSON), each mistake a UsageError before anything is sent. */
interface ReadValues {
  readonly query?: Query;
  readonly statuses?: JobStatus[];
  readonly maxItems?: number;
  readonly until?: JobStatus[];
  readonly timeout?: number;
}

function readValues(values: Values): ReadValues {
  return {
    ...(values.query !== undefined ? { query: jsonQuery(values.query) } : {}),
    ...(values.status !== undefined ? { statuses: statuses("--status", values.status) } : {}),
    ...(values["max-items"] !== undefined ? { maxItems: wholeNumber("--max-items", values["max-items"]) } : {}),
    ...(values.until !== undefined ? { until: statuses("--until", values.until) } : {}),
    ...(values.timeout !== undefined ? { timeout: seconds("--timeout", values.timeout) } : {}),
  };
}

/** The password a `--username` login needs: stdin, MATFRAME_PASSWORD for the same platform, or a prompt. */
async function passwordFor(values: Values, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (values["password-stdin"] && values.username === undefined)
    throw new UsageError("--password-stdin needs a user: pass --username.");
  if (values.username === undefined) return undefined;
  const address = resolveAddress({ baseUrl: values["base-url"] }, env, NAMES);
  if (!address)
    throw new UsageError("--username needs a platform to log in to: set --base-url, MATFRAME_BASE_URL or API_HOST.");
  if (values["password-stdin"]) return readPasswordFromStdin("jobs");
  const fromEnv = environmentPassword(address);
  if (fromEnv.password) return fromEnv.password;
  if (process.stdin.isTTY && process.stderr.isTTY)
    return promptPassword(`Password for ${values.username} at ${new URL(address.baseUrl).host}: `);
  throw new UsageError(
    fromEnv.withheld ??
      "--username needs a password: type it at the prompt on a terminal, set MATFRAME_PASSWORD, or pass --password-stdin.",
  );
}

function statuses(flag: string, text: string): JobStatus[] {
  const list = text.split(",").map((word) => word.trim());
  for (const status of list) {
    if (!JobStatus.safeParse(status).success)
      throw new UsageError(
        `${flag} takes job statuses (${JobStatus.options.join(", ")}); got ${JSON.stringify(printable(status.slice(0, 100)))}.`,
      );
  }
  return list as JobStatus[];
}

function jsonQuery(text: string): Query {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`--query must be a JSON object, e.g. '{"status":"finished"}'; it does not parse as JSON.`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new UsageError(`--query must be a JSON object, e.g. '{"status":"finished"}'.`);
  return value as Query;
}

function wholeNumber(flag: string, text: string): number {
  if (!/^[0-9]+$/.test(text) || Number(text) === 0)
    throw new UsageError(`${flag} must be a whole number of at least 1; got ${JSON.stringify(printable(text))}.`);
  return Number(text);
}

/** `--timeout 90` or `--timeout 1.5` as milliseconds. */
function seconds(flag: string, text: string): number {
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text))
    throw new UsageError(`${flag} must be a number of seconds, e.g. 600; got ${JSON.stringify(printable(text))}.`);
  return Math.round(Number(text) * 1000);
}
