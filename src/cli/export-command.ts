// `matframe export`: its help, the password a login needs, the run with its progress, and what
// is said at the end. The flags are read in export-flags.ts, failures worded in errors.ts.
import { printable } from "./printable";
import {
  AbortError,
  ApiError,
  ConnectionError,
  OutputError,
  ResponseValidationError,
  TargetExistsError,
  TimeoutError,
} from "../errors";
import { exportTask, type ExportSource, type ExportTaskOptions, type ExportTaskResult } from "./export-task";
import { type SavedSummary, savedRecords } from "../frame/export/resume/progress-files";
import { environmentPassword } from "../client/config/platform-source";
import { promptPassword, readPasswordFromStdin } from "./password";
import { UsageError } from "./errors";
import { wrapHelp } from "./cli-args";
import { EXIT, exitCodeFor, reportError } from "./errors";
import { FLAG_FOR_OPTION, parseExportFlags } from "./export-flags";
import { ProgressBar } from "./progress-bar";
import { listed, STRUCTURE_FILE_FORMATS } from "../structure/formats";
import { groupDigits } from "../frame/table/digit-groups";

export { EXIT } from "./errors";

/** The start of the line said when the built-in platform is used. */
const NO_PLATFORM = "No platform named by --base-url, MATFRAME_BASE_URL, API_HOST or a saved login";

/** The structure formats' part of --format's help, from their registry (wrapHelp lays it out). */
function structureFormatsHelp(): string {
  const names = STRUCTURE_FILE_FORMATS.map((f) => f.name);
  const frames = STRUCTURE_FILE_FORMATS.filter((f) => f.multiFrame).map(
    (f) => `; ${f.name} to an --output ending in .${f.extension} writes one multi-frame file`,
  );
  const described = STRUCTURE_FILE_FORMATS.map((f) => `${f.name} ${f.description}`).join("; ");
  return `structure format: ${listed(names)} (one file per material in the --output directory, with an index.csv${frames.join("")}). ${described}`;
}

const HELP = `Usage: matframe export [options]

Writes materials as CSV, NDJSON or Parquet to a file or stdout (or structure files to a
directory), page by page, from the platform named by --base-url, MATFRAME_BASE_URL, API_HOST or
a saved login (in that order); when nothing names one, it starts the built-in local platform
and exports its materials. It says on stderr which platform it read and where the address and
credentials came from (never a secret).

Options:
  --base-url URL         platform address (default: $MATFRAME_BASE_URL, else $API_HOST with $API_PORT
                         and $API_SECURE, else the saved login's, else the local platform)
  --query JSON           MongoDB-style query, e.g. '{"lattice.type":"FCC"}'; with --results, over
                         the table's columns, e.g. '{"band_gaps.indirect":{"$gt":1}}'
  --optimade URL         export the structures of this OPTIMADE provider instead (its base URL as
                         providers.optimade.org lists it; an index meta-database is followed to its
                         database); --columns are then OPTIMADE property names (default: id,
                         chemical_formula_reduced,elements,nelements,nsites), matframe: computed
                         columns or derivedProperties.volume/density
  --filter FILTER        with --optimade: an OPTIMADE filter, e.g. 'elements HAS "Si" AND nelements=2';
                         one the provider refuses exits 2 with its message and writes nothing
  --results SLUG,...     export results instead of materials: one row per property record of these
                         kinds (e.g. band_gaps) with its material, job, unit, application, model and
                         method; --columns then adds material.*, job.*, model.*, application.* and
                         unit.* columns, e.g. material.derivedProperties.density,job.name
                         (csv, ndjson or parquet; --page-size 1-250)
  --columns a,b,c        dotted column paths (default: _id,name,formula,method.type,method.subtype,
                         lattice.a,lattice.b,lattice.c,derivedProperties.volume,derivedProperties.density)
  --sort JSON            sort keys, e.g. '{"formula":1}'
  --page-size N          records per request, 1-500 (default 500)
  --max-items N          stop after N records
  --paging offset|keyset paging strategy (default offset)
  --format FORMAT        csv, ndjson or parquet (default: ndjson for .ndjson/.jsonl files, parquet
                         for .parquet files, else csv), or a ${structureFormatsHelp()}
  --cell conventional|primitive
                         structure formats: write the standard cell of each material's space
                         group (spglib's and pymatgen's, symprec 0.01 A) instead of its own cell
  --output FILE|DIR|-    output file (or directory for the structure formats), or - for stdout (default -)
  --partitions N         split the _id range into N parts (1-64), walk them concurrently and write
                         a directory of part files (part-0000.parquet, ...) to --output DIR
  --types COL=TYPE,...   parquet: column types (double, int32, int64, boolean, string) for
                         columns the platform's schema does not type, e.g. tags.0=string
  --parquet-compression snappy|gzip|none
                         parquet page compression (default snappy)
  --partition-by COLUMN  parquet: write a hive-partitioned dataset to --output DIR, one folder per
                         value of COLUMN (one of --columns; at most 100 values), e.g.
                         lattice.type=FCC/part-0000.parquet, and _SUCCESS when complete
  --row-group-size N     parquet: rows per row group (default 122880, DuckDB's)
  --row-group-bytes N    parquet: also close a row group at N bytes of values (default: rows only)
  --force                overwrite an existing output file
  --units                label numeric columns with the units their records carry, e.g.
                         "lattice.a [angstrom]", "derivedProperties.density [g/cm^3]"
  --strict               fail (writing nothing) when a column is empty in every row, e.g. a
                         misspelt path, or a method fails the method schema; by default a warning
  --resume               keep progress beside the output (hidden .NAME.matframe-partial and
                         .NAME.matframe-resume.json) and continue an interrupted export of the same
                         request from its last committed record; walks in _id order
  --restart              discard saved progress and start over (implies --resume)
  --no-formula-escape    write CSV text cells exactly as stored (by default a cell starting with
                         = + - @ tab or CR gets a leading ' so spreadsheets do not run it)
  --quiet                no progress bar, resume line or summary line
  --username NAME        log in as NAME; the password comes from MATFRAME_PASSWORD, --password-stdin,
                         or a prompt on the terminal
  --password-stdin       read the password from standard input
  --profile NAME         read with the login saved by \`matframe login --profile NAME\` (its platform
                         unless --base-url is given; default: $MATFRAME_PROFILE)
  -h, --help             show this help

Credentials (first found): --username; MATFRAME_ACCOUNT_ID + MATFRAME_AUTH_TOKEN, or
MATFRAME_USERNAME + MATFRAME_PASSWORD; the platform's Python client's OIDC_ACCESS_TOKEN, or
ACCOUNT_ID + AUTH_TOKEN; the saved login (--profile, $MATFRAME_PROFILE, else "default").
Half a setting (an address without credentials, a token without an address) is an error.
Proxies: HTTPS_PROXY / HTTP_PROXY (or lower-case) are used, except for hosts in NO_PROXY.
Exit codes: 0 success, 1 usage error, 2 authentication or API error, 3 network error or timeout.
`;

/** What the command line asked for, beyond the task's options. */
interface Parsed {
  task: Omit<ExportTaskOptions, "signal">;
  quiet: boolean;
  help: boolean;
}

/** The flags, and the password when they ask for a login (from stdin, MATFRAME_PASSWORD or a prompt). */
async function parse(argv: string[]): Promise<Parsed> {
  const { login, ...parsed } = parseExportFlags(argv, { stdout: process.stdout, env: process.env });
  if (!login) return parsed;
  // MATFRAME_PASSWORD set beside another platform's MATFRAME_BASE_URL is not that platform's to send here.
  const fromEnv = environmentPassword(login.address);
  const password = login.passwordStdin
    ? await readPasswordFromStdin("export")
    : fromEnv.password ||
      (process.stdin.isTTY && process.stderr.isTTY
        ? await promptPassword(`Password for ${login.username} at ${new URL(login.baseUrl).host}: `)
        : undefined);
  if (!password)
    throw new UsageError(
      fromEnv.withheld ??
        "--username needs a password: type it at the prompt on a terminal, set MATFRAME_PASSWORD, or pass --password-stdin.",
    );
  return { ...parsed, task: { ...parsed.task, username: login.username, password } };
}

/**
 * `--resume` found its target there: an export that finished (or another command) wrote it. Says so rather than only "already exists", and returns the exit code.
 */
function nothingToResume(error: TargetExistsError): number {
  process.stderr.write(
    `matframe export: ${error.path} already exists: the export that wrote it finished (or another command wrote it), so --resume has nothing to continue. Pass --force to export it again, or choose another --output.\n`,
  );
  return exitCodeFor(error);
}

/** Prints one line for `error` (never a stack), in the words of the flags, and returns its exit code. */
function fail(error: unknown, credentialsFrom?: string): number {
  return reportError("export", error, { flags: FLAG_FOR_OPTION, credentialsFrom });
}

/**
 * `matframe export ...`: parses `argv` (the arguments after `export`), runs the export and
 * returns the exit code. Progress goes to stderr (a bar only on a terminal), data to the output.
 */
export async function runExport(argv: string[]): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = await parse(argv);
  } catch (error) {
    return fail(error);
  }
  if (parsed.help) {
    process.stdout.write(`${wrapHelp(HELP.trimEnd())}\n`);
    return EXIT.ok;
  }
  const { quiet } = parsed;
  const controller = new AbortController();
  let signalled: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) process.exit(signalExitCode(signal)); // a second signal: stop now
    signalled = signal;
    controller.abort(new AbortError(`Interrupted by ${signal}.`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // Not when the data itself goes to the terminal: the bar would be drawn into the rows.
  const toTerminal = parsed.task.output === process.stdout && process.stdout.isTTY;
  // On a terminal a bar redrawn in place; in a log or a pipe a line every few seconds.
  const bar =
    !quiet && !toTerminal
      ? new ProgressBar({
          terminal: process.stderr.isTTY === true,
          noun: parsed.task.results ? "rows" : parsed.task.optimade ? "structures" : "materials",
          ...(parsed.task.maxItems !== undefined ? { total: parsed.task.maxItems } : {}),
        })
      : undefined;
  let exportingFrom: ExportSource | undefined;
  try {
    const result = await exportTask(
      { ...parsed.task, signal: controller.signal },
      {
        onSource: (source) => {
          exportingFrom = source;
          // The built-in platform's count is the total of a materials export over all of them.
          if (source.local && !parsed.task.results && parsed.task.query === undefined) bar?.setTotal(source.materials);
          if (quiet) return;
          // Which platform, and where its address and credentials came from: never a secret.
          process.stderr.write(
            source.local
              ? `${NO_PLATFORM}: exporting ${parsed.task.results ? `the ${parsed.task.results.join(", ")} results` : `the ${source.materials} materials`} of the built-in local platform.\n`
              : `Exporting from ${source.description ?? source.baseUrl}.\n`,
          );
        },
        onResume: (saved) => {
          if (quiet) return;
          bar?.clear();
          process.stderr.write(`${resumingLine(saved, noun(parsed.task), parsed.task.optimade !== undefined)}\n`);
        },
        onProgress: (progress) => bar?.update(progress),
        onWarning: (warning) => {
          bar?.clear();
          // A warning may name what the records hold (ids, paths from a provider): written out.
          process.stderr.write(`warning: ${printable(warning.message)}\n`);
        },
      },
    );
    bar?.clear();
    if (!quiet) process.stderr.write(`${summary(result, noun(parsed.task))}\n`);
    return EXIT.ok;
  } catch (error) {
    bar?.clear();
    if (signalled && (error instanceof AbortError || controller.signal.aborted)) {
      const output = typeof parsed.task.output === "string" ? `; ${parsed.task.output} was not written` : "";
      process.stderr.write(`matframe export: interrupted by ${signalled}${output}${await savedNote(parsed.task)}.\n`);
      return signalExitCode(signalled);
    }
    // The reader of our stdout went away (e.g. `| head`): what it wanted, it got.
    if (error instanceof OutputError && (error.cause as NodeJS.ErrnoException)?.code === "EPIPE") return EXIT.ok;
    const code =
      error instanceof TargetExistsError && parsed.task.resume
        ? nothingToResume(error)
        : fail(error, exportingFrom?.credentialsFrom);
    // Only after a failure that another run can get past (the network, the server, the disk).
    const transient =
      error instanceof ConnectionError ||
      error instanceof TimeoutError ||
      error instanceof ApiError ||
      error instanceof OutputError ||
      error instanceof ResponseValidationError;
    const note = transient ? await savedNote(parsed.task) : "";
    if (note) process.stderr.write(`matframe export: ${note.slice(2)}.\n`);
    return code;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/** Where a resumable export stands after a failure, for the closing message; "" when nothing is saved. */
async function savedNote(task: Parsed["task"]): Promise<string> {
  if (!task.resume || typeof task.output !== "string") return "";
  const items = await savedRecords(task.output).catch(() => undefined);
  if (items === undefined) return "";
  return `; ${counted(items, noun(task))} ${items === 1 ? "is" : "are"} saved: run the same command again with --resume to continue, or with --restart to start over`;
}

function signalExitCode(signal: NodeJS.Signals): number {
  return signal === "SIGINT" ? 130 : 143;
}

/** What one exported record is called in messages. */
function noun(task: Parsed["task"]): "material" | "row" | "structure" {
  return task.results ? "row" : task.optimade ? "structure" : "material";
}

/** `count` and `word`, plural when it is not 1: "12,000 materials", "1 page". */
function counted(count: number, word: string): string {
  return `${groupDigits(count)} ${word}${count === 1 ? "" : "s"}`;
}

/**
 * The line a resumed export starts with: what earlier runs wrote, and where this one goes on. An
 * OPTIMADE provider's next links cannot be rebuilt, so that export reads its pages from the start
 * again (docs/optimade.md, "Resuming").
 */
function resumingLine(saved: SavedSummary, noun: string, fromStart: boolean): string {
  if (saved.items === 0)
    return `Resuming: the earlier run stopped before it saved any ${noun}s (a Parquet file saves at each complete row group of --row-group-size rows, other files about once a second); exporting from the start.`;
  const written = `Resuming: ${counted(saved.items, noun)} already written`;
  if (fromStart)
    return `${written}; reading the provider's pages from the start again, writing only what follows them.`;
  if (saved.pages !== undefined)
    return `${written} in ${counted(saved.pages, "page")}; continuing from page ${groupDigits(saved.pages + 1)}.`;
  if (saved.parts !== undefined && saved.parts > 1)
    return `${written} in ${counted(saved.parts, "part file")}; each part continues where it stopped.`;
  return `${written}; continuing after them.`;
}

function summary(result: ExportTaskResult, noun: "material" | "row" | "structure"): string {
  const items = counted(result.items, noun);
  const pages = counted(result.pages, "page");
  const resumed = result.resumedFrom
    ? `: ${groupDigits(result.resumedFrom)} saved by an earlier run, ${groupDigits(result.items - result.resumedFrom)} added by this one`
    : "";
  return `Exported ${items} (${pages}) in ${result.seconds.toFixed(1)} s to ${result.path ?? "stdout"}${resumed}.`;
}
