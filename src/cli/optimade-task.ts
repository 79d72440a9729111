// `matframe export --optimade BASE_URL`: a provider's structures, as the collection exports write
// materials. Every option is checked before the first request, and a filter the provider refuses
// leaves no file (the export writes to a temporary file renamed at the end).
import { TABLE_EXPORT_METHODS } from "../frame/frame-methods";
import { existsSync } from "node:fs";
import { OptimadeClient } from "../client/optimade/optimade-client";
import { TargetExistsError, ValidationError } from "../errors";
import { checkTarget } from "../frame/export/atomic/atomic-file";
import { checkParquetOptions } from "../frame/export/parquet";
import { isSingleFileTarget, planStructureExport } from "../frame/export/structure-export";
import { isStructureFormat } from "../structure/formats";
import { planOptimadeColumns } from "../frame/optimade/optimade-rows";
import "../frame/optimade/optimade-methods";
import type { Writable } from "node:stream";
import type { Progress } from "../client/config/options";
import type { ExportResult } from "../frame/export/export";
import type { ParquetCompression } from "../frame/export/parquet";
import type { ColumnType } from "../frame/table/column-types";
import type { FrameWarning } from "../frame/table/row-reader";
import type { CellChoice } from "../structure";
import type { SavedSummary } from "../frame/export/resume/progress-files";
import { announceResume } from "./resume-announcer";

/**
 * The options of `exportTask` an OPTIMADE export reads (see `ExportTaskOptions`, which it is a
 * part of; named here so that the two files do not import each other).
 */
export interface OptimadeTaskOptions {
  optimade: string;
  filter?: string;
  columns?: string[];
  pageSize?: number;
  maxItems?: number;
  format?: string;
  cell?: CellChoice;
  output: string | Writable;
  force?: boolean;
  escapeFormulas?: boolean;
  types?: Record<string, ColumnType>;
  parquetCompression?: ParquetCompression;
  parquetRowGroupSize?: number;
  parquetRowGroupBytes?: number;
  strict?: boolean;
  resume?: boolean;
  restart?: boolean;
  signal?: AbortSignal;
  /** The platform's own options, refused here. */
  baseUrl?: unknown;
  query?: unknown;
  sort?: unknown;
  paging?: unknown;
  partitions?: unknown;
  partitionBy?: unknown;
  results?: unknown;
  units?: unknown;
  username?: unknown;
  profile?: unknown;
}

/** Where an OPTIMADE export reads from, as `ExportSource` says it. */
interface OptimadeSource {
  readonly baseUrl: string;
  readonly local: false;
  readonly description: string;
}

/** The callbacks of `ExportTaskEvents` an OPTIMADE export calls. */
export interface OptimadeTaskEvents {
  onSource?: (source: OptimadeSource) => void;
  onProgress?: (progress: Progress) => void;
  onWarning?: (warning: FrameWarning) => void;
  /** With `resume`: the saved progress this run continues (see `ExportTaskEvents.onResume`). */
  onResume?: (saved: SavedSummary) => void;
}

/** The options of a material export that an OPTIMADE export cannot take (its filter is `filter`). */
const NOT_FOR_OPTIMADE = [
  "baseUrl",
  "query",
  "sort",
  "paging",
  "partitions",
  "partitionBy",
  "results",
  "units",
  "username",
  "profile",
] as const;

/** The method that writes each table format (the frame methods' registration names them). */
const TABLE_EXPORTS = TABLE_EXPORT_METHODS;

/** `exportTask` with `optimade`: the provider's structures matching `filter`, as a table or structure files. */
export async function exportOptimadeTask(
  options: OptimadeTaskOptions,
  events: OptimadeTaskEvents,
  started: number,
): Promise<ExportResult & { readonly seconds: number; readonly source: OptimadeSource }> {
  for (const option of NOT_FOR_OPTIMADE) {
    if (options[option] !== undefined && options[option] !== false)
      throw new ValidationError(option, `${option} applies to the platform's materials, not to an OPTIMADE provider`, {
        remedy: { leaveOut: [option] },
      });
  }
  const format = options.format ?? "csv";
  const structureFormat = isStructureFormat(format) ? format : undefined;
  const singleFile = isSingleFileTarget(format, options.output);
  // Mistakes the user can fix, before any request.
  if (structureFormat) {
    planStructureExport({ format: structureFormat, cell: options.cell, singleFile, resume: options.resume });
    if (typeof options.output !== "string")
      throw new ValidationError("output", `--format ${format} writes one file per structure: give --output DIR.`);
  } else {
    const columns = planOptimadeColumns(options.columns);
    if (format === "parquet")
      checkParquetOptions(columns.plan, {
        types: options.types,
        compression: options.parquetCompression,
        rowGroupSize: options.parquetRowGroupSize,
        rowGroupBytes: options.parquetRowGroupBytes,
      });
  }
  const directory = structureFormat !== undefined && !singleFile;
  if (typeof options.output === "string" && !directory) await checkTarget(options.output, options.force);
  if (directory && !options.force && existsSync(options.output as string))
    throw new TargetExistsError(options.output as string);
  const op = openClient(options.optimade, options.signal);
  try {
    const source: OptimadeSource = {
      baseUrl: op.baseUrl,
      local: false,
      description: `the OPTIMADE provider ${op.baseUrl}`,
    };
    events.onSource?.(source);
    const resuming = await announceResume(options, events);
    const common = {
      ...(options.filter !== undefined ? { filter: options.filter } : {}),
      pageSize: options.pageSize,
      maxItems: options.maxItems,
      signal: options.signal,
      force: options.force,
      resume: options.resume,
      restart: options.restart,
      onProgress: resuming.onProgress,
      onWarning: events.onWarning,
    };
    const result = structureFormat
      ? await op.structures.exportStructures(options.output as string, {
          ...common,
          format: structureFormat,
          cell: options.cell,
          singleFile,
        })
      : await op.structures[TABLE_EXPORTS[format as keyof typeof TABLE_EXPORTS]](options.output, {
          ...common,
          columns: options.columns,
          strict: options.strict,
          // The library refuses an option the format does not use; escapeFormulas always has a value here.
          ...(format === "csv" ? { escapeFormulas: options.escapeFormulas } : {}),
          types: options.types,
          compression: options.parquetCompression,
          rowGroupSize: options.parquetRowGroupSize,
          rowGroupBytes: options.parquetRowGroupBytes,
        });
    resuming.ended(result);
    return { ...result, seconds: (performance.now() - started) / 1000, source };
  } catch (error) {
    // Discovery's refusals name the client's `baseUrl` ("an index meta-database whose /links
    // name no database"); on the command line that address is --optimade's, not --base-url's.
    throw asOptimadeOption(error);
  } finally {
    await op.close();
  }
}

/** The client, with a bad address worded as the `optimade` option it came from. */
function openClient(baseUrl: string, signal: AbortSignal | undefined): OptimadeClient {
  try {
    return new OptimadeClient({ baseUrl, signal });
  } catch (error) {
    throw asOptimadeOption(error);
  }
}

/** A refusal of the client's `baseUrl` as one of the `optimade` option; any other error as it is. */
function asOptimadeOption(error: unknown): unknown {
  if (!(error instanceof ValidationError) || error.option !== "baseUrl") return error;
  return new ValidationError("optimade", error.reason.replace(/^baseUrl/, "optimade"), { cause: error });
}
