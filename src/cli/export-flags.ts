// `matframe export`'s flags as the task's options: a pure function of the arguments, the
// environment and whether stdout is a terminal (no prompt, no I/O), so each rule is testable alone.
import type { Writable } from "node:stream";
import type { ColumnType } from "../frame/table/column-types";
import { isStructureFormat, STRUCTURE_FORMATS } from "../structure/formats";
import { resolveAddress } from "../client/config/platform-source";
import type { ExportTaskOptions } from "./export-task";
import { parseFlags } from "./cli-args";
import { NAMES } from "./flag-names";
import { UsageError } from "./errors";

/** What the flags are read against. */
export interface FlagContext {
  /** Where `--output -` writes; a terminal refuses binary Parquet. */
  readonly stdout: Writable & { readonly isTTY?: boolean };
  /** `MATFRAME_USERNAME` and the platform's address variables. */
  readonly env: NodeJS.ProcessEnv;
}

/** What the command line asked for; the password, when a login needs one, is read by the command. */
export interface ParsedExportFlags {
  readonly task: Omit<ExportTaskOptions, "signal" | "username" | "password">;
  readonly quiet: boolean;
  readonly help: boolean;
  /** Set with --username or --password-stdin: who logs in where, and whether the password comes on stdin. */
  readonly login?: {
    readonly username: string;
    readonly baseUrl: string;
    /** Where the address came from, which decides whether MATFRAME_PASSWORD belongs to it. */
    readonly address: { readonly baseUrl: string; readonly from: string };
    readonly passwordStdin: boolean;
  };
}

const EXPORT_FLAGS = {
  "base-url": { type: "string" },
  optimade: { type: "string" },
  filter: { type: "string" },
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
  "row-group-bytes": { type: "string" },
  "partition-by": { type: "string" },
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

export function parseExportFlags(argv: readonly string[], context: FlagContext): ParsedExportFlags {
  if (argv.some((arg) => arg === "--password" || arg.startsWith("--password="))) {
    throw new UsageError(
      "--password is not accepted: a password on the command line shows in the process list and shell history. " +
        "Set MATFRAME_PASSWORD or use --password-stdin.",
    );
  }
  const values = parseFlags("export", [...argv], EXPORT_FLAGS);
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
  if (format === "parquet" && output === "-" && context.stdout.isTTY) {
    throw new UsageError(
      "--format parquet writes binary data: give --output FILE.parquet, or pipe stdout to a file or program.",
    );
  }
  if (format !== "parquet") {
    if (values.types !== undefined)
      throw new UsageError(`--types applies to --format parquet; --format ${format} writes values as they are.`);
    if (values["parquet-compression"] !== undefined)
      throw new UsageError(`--parquet-compression applies to --format parquet.`);
    for (const flag of ["row-group-size", "row-group-bytes", "partition-by"] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} applies to --format parquet.`);
    }
  }
  const structureFormat = isStructureFormat(format);
  const cell = oneOf("--cell", values.cell, ["conventional", "primitive"] as const);
  if (cell !== undefined && !structureFormat) {
    throw new UsageError(
      `--cell applies to the structure formats (${STRUCTURE_FORMATS.join(", ")}); --format ${format} writes table columns.`,
    );
  }
  if (values.partitions !== undefined && structureFormat) {
    throw new UsageError(
      `--partitions applies to csv, ndjson and parquet; --format ${format} already writes one file per material.`,
    );
  }
  if (structureFormat) {
    if (output === "-")
      throw new UsageError(
        `--format ${format} writes one file per material: give --output DIR (a directory to create).`,
      );
    if (values.columns !== undefined)
      throw new UsageError(`--columns applies to csv and ndjson; --format ${format} writes whole structures.`);
    if (values.units)
      throw new UsageError(
        `--units labels table columns; --format ${format} writes whole structures (their own formats say the units).`,
      );
  }
  const resume = (values.resume ?? false) || (values.restart ?? false);
  if (resume && output === "-") {
    throw new UsageError(
      `--${values.resume ? "resume" : "restart"} keeps the progress beside the output file: give --output FILE (or DIR).`,
    );
  }
  const task: ParsedExportFlags["task"] = {
    baseUrl: values["base-url"],
    ...(values.optimade !== undefined ? { optimade: values.optimade } : {}),
    ...(values.filter !== undefined ? { filter: values.filter } : {}),
    query: jsonObject("--query", values.query, `'{"formula":"Si"}'`),
    columns: values.columns?.split(",").map((column) => column.trim()),
    ...(values.results !== undefined ? { results: values.results.split(",").map((slug) => slug.trim()) } : {}),
    sort: jsonObject("--sort", values.sort, `'{"formula":1}'`) as ExportTaskOptions["sort"],
    pageSize: integer("--page-size", values["page-size"]),
    maxItems: integer("--max-items", values["max-items"]),
    paging,
    format,
    ...(cell !== undefined ? { cell } : {}),
    output: output === "-" ? context.stdout : output,
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
    parquetRowGroupBytes: integer("--row-group-bytes", values["row-group-bytes"]),
    ...(values["partition-by"] !== undefined ? { partitionBy: values["partition-by"] } : {}),
    parquetCompression: oneOf("--parquet-compression", values["parquet-compression"], [
      "snappy",
      "gzip",
      "none",
    ] as const),
  };
  let login: ParsedExportFlags["login"];
  if (values.username !== undefined || values["password-stdin"]) {
    const username = values.username ?? context.env.MATFRAME_USERNAME;
    if (!username) throw new UsageError("--password-stdin needs a user: pass --username or set MATFRAME_USERNAME.");
    const address = resolveAddress({ baseUrl: values["base-url"] }, context.env, NAMES);
    const baseUrl = address?.baseUrl;
    if (!address || !baseUrl) {
      throw new UsageError(
        "--username needs a platform to log in to: set --base-url, MATFRAME_BASE_URL or API_HOST (without one, matframe exports from the built-in local platform, which needs no login).",
      );
    }
    login = { username, baseUrl, address, passwordStdin: values["password-stdin"] ?? false };
  }
  return { task, quiet: values.quiet ?? false, help: values.help ?? false, ...(login ? { login } : {}) };
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
    if (at <= 0)
      throw new UsageError(`--types takes COLUMN=TYPE pairs separated by commas, e.g. tags.0=string; got "${pair}".`);
    types[pair.slice(0, at).trim()] = pair.slice(at + 1).trim() as ColumnType;
  }
  return types;
}

function integer(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]+$/.test(text))
    throw new UsageError(
      `${flag} must be a whole number${/^-[0-9]+$/.test(text) ? ", not negative" : ""}; got "${text}".`,
    );
  return Number(text);
}

/** The flag that sets each library option, so a refused option is named as the user typed it. */
export const FLAG_FOR_OPTION: Readonly<Record<string, string>> = {
  baseUrl: "--base-url",
  optimade: "--optimade",
  filter: "--filter",
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
  rowGroupBytes: "--row-group-bytes",
  partitionBy: "--partition-by",
  resume: "--resume",
  restart: "--restart",
  units: "--units",
  strict: "--strict",
  force: "--force",
};
