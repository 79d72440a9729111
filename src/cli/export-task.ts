import { existsSync } from "node:fs";
import { TABLE_EXPORT_METHODS } from "../frame/frame-methods";
import { isSingleFileTarget, planStructureExport } from "../frame/export/structure-export";
import { isStructureFormat, type StructureFormat } from "../structure/formats";
import type { CellChoice } from "../structure";
import type { Writable } from "node:stream";
import type { Query, Sort } from "../schemas";
import type { ServerHandle } from "../server";
import { type Client, connectClient } from "../client/client";
import type { Progress } from "../client/config/options";
import type { ExportResult } from "../frame/export/export";
import type { ColumnType } from "../frame/table/column-types";
import type { ParquetCompression } from "../frame/export/parquet";
import type { FrameWarning } from "../frame/table/row-reader";
import { planTableExport, type TableFormat } from "../frame/collection-io";
import "../frame/collection-methods";
import "../frame/results/results-view";
import { checkParent, checkTarget } from "../frame/export/atomic/atomic-file";
import { ResumeError, TargetExistsError, ValidationError } from "../errors";
import {
  discardProgress,
  OutputLock,
  resumePaths,
  savedProgress,
  type SavedSummary,
} from "../frame/export/resume/progress-files";
import { announceResume } from "./resume-announcer";
import { describePlatform, resolvePlatform, type ChoiceNames } from "../client/config/platform-source";

/** The local platform's built-in account. */
const DEMO = { username: "demo", password: "demo" } as const;

/** What `matframe export` does, as options (the command only parses them). */
export interface ExportTaskOptions {
  /**
   * The platform's address; without it, the environment's (`MATFRAME_BASE_URL`, `API_HOST`) or a
   * saved login's; when nothing names a platform, the built-in local platform is started.
   */
  baseUrl?: string;
  /** Log in as this user (with `password`) instead of the environment's credentials. */
  username?: string;
  /** Only with `username`; never from the command line. */
  password?: string;
  /**
   * A MongoDB-style query.
   * @default {}
   * @example { "lattice.type": "FCC" }
   */
  query?: Query;
  /**
   * Dotted column paths, as for `toDataFrame`.
   * @default DEFAULT_COLUMNS
   * @example ["formula", "lattice.a"]
   */
  columns?: string[];
  /**
   * Export results instead of materials: the property kinds (slugs) whose records become rows,
   * beside their material, job, unit, application, model and method (see `client.results`);
   * `columns` then adds `material.` and `job.` columns.
   * @example ["band_gaps"]
   */
  results?: string[];
  /**
   * Sort keys in priority order.
   * @default { _id: 1 }
   */
  sort?: Sort;
  /**
   * Records per request, 1 to 500.
   * @default 500
   */
  pageSize?: number;
  /**
   * Stop after this many records.
   * @default no limit
   */
  maxItems?: number;
  /**
   * Paging strategy (see `IterateOptions.paging`).
   * @default "offset"
   */
  paging?: "offset" | "keyset";
  /**
   * Output format.
   * @default "csv"
   */
  format?: TableFormat | StructureFormat;
  /**
   * Structure formats: the cell to write (see `StructureExportOptions.cell`).
   * @default "as-is"
   */
  cell?: CellChoice;
  /** A file path (written atomically) or a stream such as `process.stdout`. */
  output: string | Writable;
  /**
   * Overwrite an existing output file.
   * @default false
   */
  force?: boolean;
  /**
   * CSV only: prefix text cells that a spreadsheet would run as formulas with `'`.
   * @default true
   */
  escapeFormulas?: boolean;
  /** Parquet only: column types by name (see `ExportParquetOptions.types`). */
  types?: Record<string, ColumnType>;
  /**
   * Parquet only: page compression.
   * @default "snappy"
   */
  parquetCompression?: ParquetCompression;
  /**
   * Parquet only: rows per row group (a resumed Parquet export continues after the last complete one).
   * @default 122880
   */
  parquetRowGroupSize?: number;
  /** Parquet only: also close a row group at this many bytes of values (see `ExportParquetOptions.rowGroupBytes`). */
  parquetRowGroupBytes?: number;
  /** Parquet only: write a hive-partitioned dataset folder by this column (see `PartitionByOptions.partitionBy`). */
  partitionBy?: string;
  /**
   * Fail when a column is empty in every row, or a method fails the method schema (see `ReadOptions.strict`).
   * @default false
   */
  strict?: boolean;
  /**
   * Label numeric columns with their units (see `ReadOptions.units`).
   * @default false
   */
  units?: boolean;
  /** Split the walk into this many `_id` ranges and write a directory of part files. */
  partitions?: number;
  /**
   * Keep progress beside the output and continue an interrupted export of the same request
   * (see `ResumeOptions.resume`).
   * @default false
   */
  resume?: boolean;
  /**
   * With `resume`: discard saved progress first.
   * @default false
   */
  restart?: boolean;
  /**
   * Export the structures of this OPTIMADE provider (its unversioned base URL, or an index
   * meta-database's) instead of the platform's materials; `columns` are then OPTIMADE property
   * names, and `filter` picks the entries.
   * @example "https://optimade.materialsproject.org"
   */
  optimade?: string;
  /**
   * With `optimade`: an OPTIMADE filter, sent as it is.
   * @example 'elements HAS "Si" AND nelements=2'
   */
  filter?: string;
  /** Stops the export, and a login in progress (not the logout at the end); the partial file is removed. */
  signal?: AbortSignal;
  /**
   * Read from this saved login (`matframe login --profile NAME`): its platform, unless `baseUrl`
   * is given too (then it must be the same platform).
   * @default MATFRAME_PROFILE
   */
  profile?: string;
  /** Where `MATFRAME_*` and the platform client's variables are read. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** How messages name `baseUrl`, `username`, `password` and `profile` (the CLI's flags). @default the option names */
  names?: ChoiceNames;
}

/** Where the export reads from, reported before the first page. */
export interface ExportSource {
  /** The versioned base URL. */
  readonly baseUrl: string;
  /** Whether this is the built-in local platform, started for this export. */
  readonly local: boolean;
  /** How many materials the local platform serves (local only). */
  readonly materials?: number;
  /** The platform and where its address and credentials came from, never a secret (not local). */
  readonly description?: string;
  /** Where the credentials came from (`"OIDC_ACCESS_TOKEN"`, `the saved login "default"`), never a value (not local). */
  readonly credentialsFrom?: string;
}

/** Callbacks; the task itself prints nothing. */
export interface ExportTaskEvents {
  onSource?: (source: ExportSource) => void;
  onProgress?: (progress: Progress) => void;
  onWarning?: (warning: FrameWarning) => void;
  /**
   * With `resume`: the saved progress this run continues (records already written, and their
   * pages or part files), once the export has taken it up: with its first progress, before the
   * progress is reported, or at the end when nothing was left to add. `items` 0: an earlier run
   * left its partial file but saved nothing (it stopped before its first save), so this one starts over.
   */
  onResume?: (saved: SavedSummary) => void;
}

/** What the export wrote, and how long it took. */
export interface ExportTaskResult extends ExportResult {
  readonly seconds: number;
  readonly source: ExportSource;
}

/** The method that writes each table format (the frame methods' registration names them). */
const TABLE_EXPORTS = TABLE_EXPORT_METHODS;

/**
 * Exports a collection's materials as CSV, NDJSON, Parquet or structure files, from the platform
 * `resolvePlatform` finds (options, `MATFRAME_*`, the platform client's variables, a saved login),
 * or from the built-in local platform (demo account) when nothing names one.
 *
 * @example
 * const result = await exportTask({ output: "materials.csv", columns: ["formula", "lattice.a"] });
 */
export async function exportTask(options: ExportTaskOptions, events: ExportTaskEvents = {}): Promise<ExportTaskResult> {
  const started = performance.now();
  // Mistakes the user can fix are reported before a server is started or a login sent. The
  // export checks the same options again (pure and quick); its warnings are reported then, once.
  const { query, columns, sort, pageSize, maxItems, paging, signal } = options;
  if (options.optimade !== undefined) {
    const { exportOptimadeTask } = await import("./optimade-task.js");
    return exportOptimadeTask({ ...options, optimade: options.optimade }, events, started);
  }
  if (options.filter !== undefined)
    throw new ValidationError(
      "filter",
      "filter is an OPTIMADE filter: it needs the provider's base URL (optimade; --optimade URL on the command line), or use query for the platform's materials.",
    );
  if (options.results !== undefined) return exportResultsTask(options, events, started);
  const structures = isStructureFormat(options.format)
    ? planStructureExport({
        format: options.format,
        cell: options.cell,
        singleFile: isSingleFileTarget(options.format, options.output),
        query,
        sort,
        pageSize,
        maxItems,
        paging,
        signal,
        resume: options.resume,
        restart: options.restart,
      })
    : undefined;
  const table = structures
    ? undefined
    : planTableExport(
        (options.format ?? "csv") as TableFormat,
        {
          query,
          columns,
          sort,
          pageSize,
          maxItems,
          paging,
          signal,
          units: options.units,
          types: options.types,
          compression: options.parquetCompression,
          rowGroupSize: options.parquetRowGroupSize,
          rowGroupBytes: options.parquetRowGroupBytes,
          partitions: options.partitions,
          partitionBy: options.partitionBy,
          resume: options.resume,
          restart: options.restart,
          strict: options.strict,
          onWarning: () => undefined,
        },
        "materials",
      );
  const directory = structures ? !structures.singleFile : table!.partitions !== undefined || table!.hive !== undefined;
  if (typeof options.output === "string")
    await (directory ? checkParent(options.output, "create") : checkTarget(options.output, options.force));
  if (directory && typeof options.output !== "string") {
    throw new ValidationError(
      "output",
      structures
        ? `--format ${options.format} writes one file per material: give --output DIR (a directory to create).`
        : `${table!.hive ? "--partition-by" : "--partitions"} writes a directory of part files: give --output DIR (a directory to create).`,
    );
  }
  // A resumable dataset killed after it took its name keeps its state beside it: the export finishes it.
  const finishing =
    options.resume &&
    !options.restart &&
    typeof options.output === "string" &&
    existsSync(resumePaths(options.output).state);
  if (directory && !options.force && !finishing && existsSync(options.output as string))
    throw new TargetExistsError(options.output as string);
  return withClient(options, events, started, async (client, local) => {
    // Through the public API, as a user's script would export. The built-in platform listens on
    // a new port each run: a resumed export reads "the local platform" again.
    const resumePlatform = local && options.resume ? { resumePlatform: "local (built-in)" } : {};
    const resuming = await announceResume(options, events);
    const onProgress = resuming.onProgress;
    const common = {
      query,
      sort,
      pageSize,
      maxItems,
      paging,
      signal,
      force: options.force,
      resume: options.resume,
      restart: options.restart,
      onProgress,
      onWarning: events.onWarning,
      ...resumePlatform,
    };
    const materials = client.materials;
    const result = structures
      ? await materials.exportStructures(options.output as string, {
          ...common,
          format: structures.format,
          cell: structures.cell,
          singleFile: structures.singleFile,
        })
      : await materials[TABLE_EXPORTS[table!.format]](options.output, {
          ...common,
          columns,
          strict: options.strict,
          units: options.units,
          escapeFormulas: options.escapeFormulas,
          types: options.types,
          compression: options.parquetCompression,
          rowGroupSize: options.parquetRowGroupSize,
          rowGroupBytes: options.parquetRowGroupBytes,
          partitions: options.partitions,
          ...(options.partitionBy !== undefined ? { partitionBy: options.partitionBy } : {}),
        });
    resuming.ended(result);
    if (!options.resume && typeof options.output === "string") await dropSupersededProgress(options.output, events);
    return result;
  });
}

/**
 * After a plain export wrote `output` whole, removes the progress a killed `--resume` run of the
 * same output saved beside it: it can no longer be continued (the output exists), and it lingered
 * unseen, however large. Under the output's lock, so a resumable run still writing keeps its own;
 * said on stderr either way.
 */
async function dropSupersededProgress(output: string, events: ExportTaskEvents): Promise<void> {
  const { partial, state } = resumePaths(output);
  if (!existsSync(state) && !existsSync(partial)) return;
  const saved = await savedProgress(output).catch(() => undefined);
  const records = `${(saved?.items ?? 0).toLocaleString("en-US")} records`;
  const warn = (message: string): void =>
    events.onWarning?.({ code: "STALE_PARTIAL", message, path: partial, rows: 0, ids: [] });
  let lock: OutputLock;
  try {
    lock = OutputLock.take(output, output);
  } catch (error) {
    // ResumeError: a live run holds it; anything else (the folder went read-only) is no reason to fail a finished export.
    if (error instanceof ResumeError)
      warn(
        `${output} also has progress saved by a --resume run that is still running (${partial}); it was left alone.`,
      );
    return;
  }
  try {
    await discardProgress(output, lock);
    warn(
      `removed the progress a killed --resume run had saved for ${output} (${records}): this run wrote ${output} whole.`,
    );
  } finally {
    lock.release();
  }
}

/** The options a results export cannot take, by their option names. */
const NOT_FOR_RESULTS = ["sort", "paging", "partitions", "partitionBy", "resume", "units", "cell"] as const;

/** `exportTask` with `results`: the results table (properties joined to jobs, units and materials) as CSV, NDJSON or Parquet. */
async function exportResultsTask(
  options: ExportTaskOptions,
  events: ExportTaskEvents,
  started: number,
): Promise<ExportTaskResult> {
  const format = options.format ?? "csv";
  if (isStructureFormat(format))
    throw new ValidationError(
      "format",
      `--results writes a table: use --format csv, ndjson or parquet, not ${format}.`,
    );
  for (const option of NOT_FOR_RESULTS) {
    if (options[option] !== undefined && options[option] !== false) {
      throw new ValidationError(option, `${option} applies to material exports, not to results`, {
        remedy: { leaveOut: [option] },
      });
    }
  }
  const { planResults } = await import("../frame/results/index.js");
  const request = {
    properties: options.results!,
    ...(options.query !== undefined ? { query: options.query } : {}),
    ...(options.columns ? { columns: options.columns } : {}),
    ...(options.pageSize !== undefined ? { pageSize: options.pageSize } : {}),
    ...(options.maxItems !== undefined ? { maxItems: options.maxItems } : {}),
    ...(options.strict ? { strict: true } : {}),
    force: options.force,
    // The library refuses an option the format does not use; escapeFormulas always has a value here.
    ...(format === "csv" ? { escapeFormulas: options.escapeFormulas } : {}),
    types: options.types,
    compression: options.parquetCompression,
    rowGroupSize: options.parquetRowGroupSize,
    onProgress: events.onProgress,
    onWarning: events.onWarning,
    signal: options.signal,
  };
  planResults(request, TABLE_EXPORTS[format]); // mistakes reported before a server is started or a login sent
  if (typeof options.output === "string") await checkTarget(options.output, options.force);
  return withClient(options, events, started, (client) =>
    client.results[TABLE_EXPORTS[format]](options.output, request),
  );
}

/** Runs `work` with a client of the platform the options and environment name, or of the built-in one, and closes both after. */
async function withClient(
  options: ExportTaskOptions,
  events: ExportTaskEvents,
  started: number,
  work: (client: Client, local: boolean) => Promise<ExportResult>,
): Promise<ExportTaskResult> {
  const { signal } = options;
  const env = options.env ?? process.env;
  // Which platform, decided as Client.fromEnv decides it; the built-in one only when nothing names one.
  const resolved = resolvePlatform(
    { baseUrl: options.baseUrl, username: options.username, password: options.password, profile: options.profile },
    env,
    options.names,
  );
  let server: ServerHandle | undefined;
  let client: Client | undefined;
  // A client logged in here is logged out at the end; a token from the environment or a saved
  // login belongs to the user and is only closed, since logging out would revoke it.
  let loggedIn = true;
  try {
    let source: ExportSource;
    if (resolved.kind === "none") {
      // The local platform is loaded only when it is used: an export from a platform never needs it.
      const { startServer } = await import("../server/index.js");
      server = await startServer({ port: 0 });
      const builtIn = {
        kind: "platform",
        baseUrl: server.baseUrl,
        credentials: { kind: "login", ...DEMO },
        addressFrom: "the built-in local platform",
        credentialsFrom: "its demo account",
      } as const;
      client = await connectClient(builtIn, {}, signal);
      source = { baseUrl: server.baseUrl, local: true, materials: server.materialCount };
      events.onSource?.(source);
    } else {
      // Said before the login, so that a refused login names the platform that refused it.
      source = {
        baseUrl: resolved.baseUrl,
        local: false,
        description: describePlatform(resolved),
        credentialsFrom: resolved.credentialsFrom,
      };
      events.onSource?.(source);
      loggedIn = resolved.credentials.kind === "login";
      client = await connectClient(resolved, {}, signal);
    }
    const result = await work(client, source.local);
    return { ...result, seconds: (performance.now() - started) / 1000, source };
  } finally {
    if (client) await (loggedIn ? client.logout() : client.close()).catch(() => undefined);
    await server?.close();
  }
}
