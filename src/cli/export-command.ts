import {
  AbortError,
  ApiError,
  AuthenticationError,
  ColumnTypeError,
  ConnectionError,
  DuplicateRecordError,
  EmptyColumnError,
  OutputError,
  TargetExistsError,
  ResponseValidationError,
  TimeoutError,
  ValidationError,
} from "../errors";
import type { Progress } from "../client/config/options";
import type { ColumnType } from "../frame/table/column-types";
import { exportTask, type ExportSource, type ExportTaskOptions, type ExportTaskResult } from "./export-task";
import { STRUCTURE_FORMATS } from "../frame/export/structure-export";
import { savedRecords } from "../frame/export/resume/progress-files";
import { promptPassword, readPasswordFromStdin, UsageError } from "./password";
import { parseFlags, wrapHelp } from "./cli-args";
import { environmentPassword, resolveAddress } from "../client/config/platform-source";
import { NAMES } from "./flag-names";

/** The start of the line said when the built-in platform is used. */
const NO_PLATFORM = "No platform named by --base-url, MATFRAME_BASE_URL, API_HOST or a saved login";

/** Exit codes of `matframe export`, as docs/cli.md documents them. */
export const EXIT = { ok: 0, usage: 1, api: 2, network: 3 } as const;

const HELP = `Usage: matframe export [options]

Writes materials as CSV, NDJSON or Parquet to a file or stdout (or structure files to a
directory), page by page, from the platform named by --base-url, MATFRAME_BASE_URL, API_HOST or
a saved login (in that order); when nothing names one, it starts the built-in local platform
and exports its materials. It says on stderr which platform it read and where the address and
credentials came from (never a secret).

Options:
  --base-url URL         platform address (default: $MATFRAME_BASE_URL, else $API_HOST with $API_PORT
                         and $API_SECURE, else the saved login's, else the local platform)
  --query JSON           MongoDB-style query, e.g. '{"lattice.type":"FCC"}'
  --results SLUG,...     export results instead of materials: one row per property record of these
                         kinds (e.g. band_gaps) with its material, job, unit, application, model and
                         method; --columns then adds material.*, job.*, model.*, application.* and
                         unit.* columns, e.g. material.derivedProperties.density,model.hubbardType
                         (csv, ndjson or parquet; --page-size 1-250)
  --columns a,b,c        dotted column paths (default: _id,name,formula,method.type,method.subtype,
                         lattice.a,lattice.b,lattice.c,derivedProperties.volume,derivedProperties.density)
  --sort JSON            sort keys, e.g. '{"formula":1}'
  --page-size N          records per request, 1-500 (default 500)
  --max-items N          stop after N records
  --paging offset|keyset paging strategy (default offset)
  --format FORMAT        csv, ndjson or parquet (default: ndjson for .ndjson/.jsonl files, parquet
                         for .parquet files, else csv), or a
                         structure format: poscar, cif, cif-symmetrized or xyz (one file per
                         material in the --output directory, with an index.csv; xyz to an --output
                         ending in .xyz writes one multi-frame file). cif is in space group P1;
                         cif-symmetrized holds the space group, its operations and one atom per
                         orbit, in the conventional standard cell
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
  --row-group-size N     parquet: rows per row group (default 20000)
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
  --quiet                no progress bar and no summary line
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
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // Not when the data itself goes to the terminal: the bar would be drawn into the rows.
  const toTerminal = parsed.task.output === process.stdout && process.stdout.isTTY;
  const bar = !quiet && process.stderr.isTTY && !toTerminal ? new ProgressBar(parsed.task.maxItems) : undefined;
  let exportingFrom: ExportSource | undefined;
  try {
    const result = await exportTask(
      { ...parsed.task, signal: controller.signal },
      {
        onSource: (source) => {
          exportingFrom = source;
          if (quiet) return;
          // Which platform, and where its address and credentials came from: never a secret.
          process.stderr.write(
            source.local
              ? `${NO_PLATFORM}: exporting ${parsed.task.results ? `the ${parsed.task.results.join(", ")} results` : `the ${source.materials} materials`} of the built-in local platform.\n`
              : `Exporting from ${source.description ?? source.baseUrl}.\n`,
          );
        },
        onProgress: (progress) => bar?.update(progress),
        onWarning: (warning) => {
          bar?.clear();
          process.stderr.write(`warning: ${warning.message}\n`);
        },
      },
    );
    bar?.clear();
    if (!quiet) process.stderr.write(`${summary(result, parsed.task.results ? "row" : "material")}\n`);
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
    const code = fail(error, exportingFrom?.credentialsFrom);
    // Only after a failure that another run can get past (the network, the server, the disk).
    const transient = error instanceof ConnectionError || error instanceof TimeoutError || error instanceof ApiError || error instanceof OutputError || error instanceof ResponseValidationError;
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
  return `; ${items.toLocaleString("en-US")} records are saved: run the same command again with --resume to continue, or with --restart to start over`;
}

const EXPORT_FLAGS = {
  "base-url": { type: "string" },
  query: { type: "string" },
  results: { type: "string" },
  columns: { type: "string" },
  sort: { type: "string" },
  "page-size": { type: "string" },
  "max-items": { type: "string" },
  paging: { type: "string" },
  format: { type: "string" },
  cell: { type: "string" },
  output: { type: "string" },
  partitions: { type: "string" },
  types: { type: "string" },
  "parquet-compression": { type: "string" },
  "row-group-size": { type: "string" },
  force: { type: "boolean" },
  resume: { type: "boolean" },
  strict: { type: "boolean" },
  units: { type: "boolean" },
  restart: { type: "boolean" },
  "no-formula-escape": { type: "boolean" },
  quiet: { type: "boolean" },
  username: { type: "string" },
  profile: { type: "string" },
  "password-stdin": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

async function parse(argv: string[]): Promise<Parsed> {
  if (argv.some((arg) => arg === "--password" || arg.startsWith("--password="))) {
    throw new UsageError(
      "--password is not accepted: a password on the command line shows in the process list and shell history. " +
        "Set MATFRAME_PASSWORD or use --password-stdin.",
    );
  }
  const values = parseFlags("export", argv, EXPORT_FLAGS);
  const output = values.output ?? "-";
  if (values["base-url"] !== undefined && /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(values["base-url"])) {
    // Not echoed: the value holds a password, which also shows in the process list.
    throw new UsageError(
      "--base-url must not contain a username or password (user:password@): it would show in the process list and shell history. " +
        "Give the address alone, with --username and --password-stdin or MATFRAME_PASSWORD.",
    );
  }
  const paging = oneOf("--paging", values.paging, ["offset", "keyset"] as const);
  const format =
    oneOf("--format", values.format, ["csv", "ndjson", "parquet", ...STRUCTURE_FORMATS] as const) ??
    (/\.(ndjson|jsonl)$/i.test(output) ? "ndjson" : /\.parquet$/i.test(output) ? "parquet" : "csv");
  if (format === "parquet" && output === "-" && process.stdout.isTTY) {
    throw new UsageError("--format parquet writes binary data: give --output FILE.parquet, or pipe stdout to a file or program.");
  }
  if (format !== "parquet") {
    if (values.types !== undefined) throw new UsageError(`--types applies to --format parquet; --format ${format} writes values as they are.`);
    if (values["parquet-compression"] !== undefined) throw new UsageError(`--parquet-compression applies to --format parquet.`);
    if (values["row-group-size"] !== undefined) throw new UsageError(`--row-group-size applies to --format parquet.`);
  }
  const structureFormat = (STRUCTURE_FORMATS as readonly string[]).includes(format);
  const cell = oneOf("--cell", values.cell, ["conventional", "primitive"] as const);
  if (cell !== undefined && !structureFormat) {
    throw new UsageError(`--cell applies to the structure formats (${STRUCTURE_FORMATS.join(", ")}); --format ${format} writes table columns.`);
  }
  if (values.partitions !== undefined && structureFormat) {
    throw new UsageError(`--partitions applies to csv, ndjson and parquet; --format ${format} already writes one file per material.`);
  }
  if (structureFormat) {
    if (output === "-") throw new UsageError(`--format ${format} writes one file per material: give --output DIR (a directory to create).`);
    if (values.columns !== undefined) throw new UsageError(`--columns applies to csv and ndjson; --format ${format} writes whole structures.`);
    if (values.units) throw new UsageError(`--units labels table columns; --format ${format} writes whole structures (their own formats say the units).`);
  }
  const resume = (values.resume ?? false) || (values.restart ?? false);
  if (resume && output === "-") {
    throw new UsageError(`--${values.resume ? "resume" : "restart"} keeps the progress beside the output file: give --output FILE (or DIR).`);
  }
  const task: Parsed["task"] = {
    baseUrl: values["base-url"],
    query: jsonObject("--query", values.query, `'{"formula":"Si"}'`),
    columns: values.columns?.split(",").map((column) => column.trim()),
    ...(values.results !== undefined ? { results: values.results.split(",").map((slug) => slug.trim()) } : {}),
    sort: jsonObject("--sort", values.sort, `'{"formula":1}'`) as ExportTaskOptions["sort"],
    pageSize: integer("--page-size", values["page-size"]),
    maxItems: integer("--max-items", values["max-items"]),
    paging,
    format,
    ...(cell !== undefined ? { cell } : {}),
    output: output === "-" ? process.stdout : output,
    force: values.force ?? false,
    escapeFormulas: !values["no-formula-escape"],
    partitions: integer("--partitions", values.partitions),
    ...(resume ? { resume: true, restart: values.restart ?? false } : {}),
    ...(values.strict ? { strict: true } : {}),
    ...(values.units ? { units: true } : {}),
    ...(values.profile !== undefined ? { profile: values.profile } : {}),
    names: NAMES,
    types: columnTypes(values.types),
    parquetRowGroupSize: integer("--row-group-size", values["row-group-size"]),
    parquetCompression: oneOf("--parquet-compression", values["parquet-compression"], ["snappy", "gzip", "none"] as const),
  };
  if (values.username !== undefined || values["password-stdin"]) {
    const username = values.username ?? process.env.MATFRAME_USERNAME;
    if (!username) throw new UsageError("--password-stdin needs a user: pass --username or set MATFRAME_USERNAME.");
    const address = resolveAddress({ baseUrl: values["base-url"] }, process.env, NAMES);
    const baseUrl = address?.baseUrl;
    if (!address || !baseUrl) {
      throw new UsageError(
        "--username needs a platform to log in to: set --base-url, MATFRAME_BASE_URL or API_HOST (without one, matframe exports from the built-in local platform, which needs no login).",
      );
    }
    // MATFRAME_PASSWORD set beside another platform's MATFRAME_BASE_URL is not that platform's to send here.
    const fromEnv = environmentPassword(address);
    const password = values["password-stdin"]
      ? await readPasswordFromStdin("export")
      : fromEnv.password || (process.stdin.isTTY && process.stderr.isTTY ? await promptPassword(`Password for ${username} at ${new URL(baseUrl).host}: `) : undefined);
    if (!password) throw new UsageError(fromEnv.withheld ?? "--username needs a password: type it at the prompt on a terminal, set MATFRAME_PASSWORD, or pass --password-stdin.");
    task.username = username;
    task.password = password;
  }
  return { task, quiet: values.quiet ?? false, help: values.help ?? false };
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${flag} must be ${allowed.join(" or ")}; got "${value}".`);
}

function jsonObject(flag: string, text: string | undefined, example: string): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${flag} must be a JSON object, e.g. ${example}; it does not parse as JSON.`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new UsageError(`${flag} must be a JSON object, e.g. ${example}.`);
  }
  return value as Record<string, unknown>;
}

/** `--types lattice.a=double,tags.0=string` as a map; the types themselves are checked with the columns. */
function columnTypes(text: string | undefined): Record<string, ColumnType> | undefined {
  if (text === undefined) return undefined;
  const types: Record<string, ColumnType> = {};
  for (const pair of text.split(",")) {
    const at = pair.lastIndexOf("=");
    if (at <= 0) throw new UsageError(`--types takes COLUMN=TYPE pairs separated by commas, e.g. tags.0=string; got "${pair}".`);
    types[pair.slice(0, at).trim()] = pair.slice(at + 1).trim() as ColumnType;
  }
  return types;
}

function integer(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]+$/.test(text)) throw new UsageError(`${flag} must be a whole number${/^-[0-9]+$/.test(text) ? ", not negative" : ""}; got "${text}".`);
  return Number(text);
}

/** The flag that sets each library option, so a refused option is named as the user typed it. */
const FLAG_FOR_OPTION: Record<string, string> = {
  baseUrl: "--base-url",
  format: "--format",
  cell: "--cell",
  output: "--output",
  pageSize: "--page-size",
  maxItems: "--max-items",
  query: "--query",
  sort: "--sort",
  columns: "--columns",
  results: "--results",
  properties: "--results",
  paging: "--paging",
  username: "--username",
  partitions: "--partitions",
  profile: "--profile",
  types: "--types",
  compression: "--parquet-compression",
  rowGroupSize: "--row-group-size",
  resume: "--resume",
  restart: "--restart",
};

/** Prints one line for `error` (never a stack) and returns its exit code; `credentialsFrom` names where the refused credentials came from. */
function fail(error: unknown, credentialsFrom?: string): number {
  let message = error instanceof Error ? error.message : String(error);
  const flag = error instanceof ValidationError ? FLAG_FOR_OPTION[error.option] : undefined;
  if (flag) {
    // "maxItems must be ..." becomes "--max-items must be ...": the words of the flag the user typed.
    const option = (error as ValidationError).option;
    if (message.startsWith(`${option} `)) message = `${flag}${message.slice(option.length)}`;
    // Not when the message names the variable the value came from (MATFRAME_PROFILE, API_HOST).
    else if (!message.startsWith("--") && !/^[A-Z][A-Z0-9_]+ /.test(message)) message = `${flag}: ${message}`;
  }
  // "leave out sort, or leave out resume": in the words of the flags.
  message = message.replace(/\bleave out (\w+)\b/g, (whole, option: string) => (FLAG_FOR_OPTION[option] ? `leave out ${FLAG_FOR_OPTION[option]}` : whole));
  // A saved or exported token that stopped working: the CLI's way to get a new one.
  if (error instanceof AuthenticationError && /: log in again\.$/.test(message)) {
    const how = credentialsFrom === undefined
      ? "`matframe login`, or new MATFRAME_* credentials"
      : credentialsFrom.startsWith("the saved login")
        ? `\`matframe login\` to replace ${credentialsFrom}`
        : `new values for ${credentialsFrom}, or \`matframe login\``;
    message = message.replace(/: log in again\.$/, `: log in again (${how}).`);
  }
  if (error instanceof TargetExistsError) message = `${error.path} already exists; pass --force to overwrite it, or choose another --output.`;
  message = message.replace(/ \((?:restart|force|resume): true\)/g, "");
  if (error instanceof EmptyColumnError) message = message.replace("(strict)", "(--strict)");
  if (error instanceof ColumnTypeError) {
    message =
      `column "${error.column}" is typed ${error.type}, but record ${error.id ?? "(no _id)"} has ${error.value} there; ` +
      `give it a type that holds every value with --types ${error.column}=string, or leave it out of --columns. Nothing was written.`;
  }
  process.stderr.write(`matframe export: ${message.replace(/\s*\n\s*/g, " ")}\n`);
  return exitCode(error);
}

function exitCode(error: unknown): number {
  if (error instanceof ConnectionError || error instanceof TimeoutError) return EXIT.network;
  if (error instanceof ApiError || error instanceof ResponseValidationError || error instanceof DuplicateRecordError) return EXIT.api;
  return EXIT.usage;
}

function signalExitCode(signal: NodeJS.Signals): number {
  return signal === "SIGINT" ? 130 : 143;
}

function summary(result: ExportTaskResult, noun: "material" | "row"): string {
  const items = `${result.items.toLocaleString("en-US")} ${noun}${result.items === 1 ? "" : "s"}`;
  const pages = `${result.pages} ${result.pages === 1 ? "page" : "pages"}`;
  const resumed = result.resumedFrom ? `, continuing the ${result.resumedFrom.toLocaleString("en-US")} saved by an earlier run` : "";
  return `Exported ${items} (${pages}) in ${result.seconds.toFixed(1)} s to ${result.path ?? "stdout"}${resumed}.`;
}

/** A one-line progress display on a terminal's stderr, redrawn at most ten times a second. */
class ProgressBar {
  private readonly started = performance.now();
  private last = 0;
  private drawn = false;

  constructor(private readonly maxItems: number | undefined) {}

  update(progress: Progress): void {
    const now = performance.now();
    if (now - this.last < 100) return;
    this.last = now;
    const seconds = ((now - this.started) / 1000).toFixed(1);
    const count = `${progress.items.toLocaleString("en-US")} materials, ${progress.pages} ${progress.pages === 1 ? "page" : "pages"}, ${seconds} s`;
    let line = `exporting: ${count}`;
    if (this.maxItems) {
      const width = 24;
      const filled = Math.round(width * Math.min(1, progress.items / this.maxItems));
      line = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${count}`;
    }
    process.stderr.write(`\r\x1b[K${line}`);
    this.drawn = true;
  }

  clear(): void {
    if (this.drawn) process.stderr.write("\r\x1b[K");
    this.drawn = false;
  }
}
