// What a collection's table exports do once loaded: plan the columns, the walk and the file once,
// at the public entry, then write pages to a file, a partitioned set or a hive dataset. The
// collection methods registered in collection-methods.ts load this module on first use and read
// through the client's public `RecordWalker`; table reads load collection-reads.ts alone.
import type { Progress } from "../client/config/options";
import { planTableRead, rowsOf, type FrameIterateOptions, type TableRead } from "./collection-reads";
import { writeRows, type ExportCsvOptions, type ExportOptions, type PageSource } from "./export/export";
import { reportWarnings } from "./table/warnings";
import { checkParquetOptions, writeParquet, type ExportParquetOptions, type ResolvedParquet } from "./export/parquet";
import { loadArrow, readArrow } from "./export/arrow";
import { checkPartitions } from "../client/paging/partitions";
import { ValidationError } from "../errors";
import { writePartitioned, type PartitionOptions, type PartWriter } from "./export/partitioned-export";
import type { ExportResult, ExportTarget } from "./export/export";
import type { RecordWalker } from "../client/record-walker";
import {
  checkResume,
  continueWalk,
  idOrder,
  type ResumeOptions,
  type ResumeRequest,
} from "./export/resume/resume-plan";
import { ResumableFile } from "./export/resume/resumable-file";
import { writePartitionedResumable } from "./export/partitioned-resume";
import { writeHive, type PartitionByOptions } from "./export/dataset/hive-export";
import { writeHiveResumable } from "./export/dataset/hive-resumable";
import { planHive, type HivePlan } from "./export/dataset/hive-router";
import { DATASET_ROWS_HELD, RowBudget } from "./export/dataset/row-budget";

/** `collection.exportCsv(target, options)`. */
export type CollectionCsvOptions = FrameIterateOptions & ExportCsvOptions & PartitionOptions & ResumeOptions;

/** `collection.exportNdjson(target, options)`. */
export type CollectionNdjsonOptions = FrameIterateOptions & ExportOptions & PartitionOptions & ResumeOptions;

/** `collection.exportParquet(target, options)`. */
export type CollectionParquetOptions = FrameIterateOptions &
  ExportParquetOptions &
  PartitionOptions &
  PartitionByOptions &
  ResumeOptions;

/** `collection.exportCsv`, `exportNdjson` and `exportParquet`: plan, then run. */
export function exportCollection(
  walker: RecordWalker,
  format: TableFormat,
  target: ExportTarget,
  options: CollectionParquetOptions & CollectionCsvOptions,
): Promise<ExportResult> {
  return runTableExport(walker, target, planTableExport(format, options, walker.name), options);
}

/** Where a resumable export's saved progress says it read from: the walker's, or the platform named by `resumePlatform`. */
export function resumeSource(walker: RecordWalker, options: { resumePlatform?: string }): RecordWalker["source"] {
  const source = walker.source;
  return options.resumePlatform === undefined ? source : { platform: options.resumePlatform, account: source.account };
}

/** The table formats a collection exports. */
export type TableFormat = "csv" | "ndjson" | "parquet";

/** A table export, checked once: the read, the format's own options and the partitions. */
export interface TableExportPlan extends TableRead {
  readonly format: TableFormat;
  readonly parquet?: ResolvedParquet;
  readonly partitions?: number;
  /** Set for a hive-partitioned dataset (`partitionBy`). */
  readonly hive?: HivePlan;
  /** Set when the export keeps its progress for a later run (`resume`). */
  readonly resume?: { readonly restart: boolean };
}

/** Checks every option of a table export before any request (or any server start, in the CLI). */
export function planTableExport(
  format: TableFormat,
  options: CollectionParquetOptions & CollectionCsvOptions,
  collection?: string,
): TableExportPlan {
  const read = planTableRead(options, collection);
  const parquet = format === "parquet" ? checkParquetOptions(read.plan, options) : undefined;
  const partitions = options.partitions === undefined ? undefined : checkPartitions(options.partitions);
  if (partitions !== undefined) {
    if (options.paging === "offset")
      throw new ValidationError("paging", "A partitioned export walks each part with a keyset cursor", {
        remedy: { leaveOut: ["paging"] },
      });
    if (read.walk.maxItems !== Infinity)
      throw new ValidationError("maxItems", "maxItems cannot be split over partitions", {
        remedy: { leaveOut: ["maxItems", "partitions"] },
      });
    if (!idOrder(read.walk))
      throw new ValidationError("sort", "A partitioned export walks in _id order", {
        remedy: { leaveOut: ["sort", "partitions"] },
      });
  }
  const resume = checkResume(options, read.walk);
  if (read.perUnit && (partitions !== undefined || resume)) {
    throw new ValidationError(
      partitions !== undefined ? "partitions" : "resume",
      "A workflow table with subworkflows columns has a row per unit, which a partitioned or resumed export cannot count; leave out partitions and resume.",
    );
  }
  const hive =
    options.partitionBy === undefined ? undefined : planPartitionBy(format, read, options, resume !== undefined);
  return {
    ...read,
    ...(resume ? { walk: { ...read.walk, paging: "keyset" as const, sort: { _id: 1 as const } } } : {}),
    format,
    ...(parquet ? { parquet } : {}),
    ...(partitions !== undefined ? { partitions } : {}),
    ...(hive ? { hive } : {}),
    ...(resume ? { resume } : {}),
  };
}

/** Checks `partitionBy` against the format, the other options and the columns. */
function planPartitionBy(
  format: TableFormat,
  read: TableRead,
  options: CollectionParquetOptions,
  resume: boolean,
): HivePlan {
  if (format !== "parquet")
    throw new ValidationError(
      "partitionBy",
      `partitionBy writes a hive-partitioned Parquet dataset, not ${format} (export as parquet to partition)`,
      { remedy: { leaveOut: ["partitionBy"] } },
    );
  if (options.partitions !== undefined)
    throw new ValidationError(
      "partitionBy",
      "partitionBy splits a dataset by a column's values, which is one split too many with partitions",
      {
        remedy: { leaveOut: ["partitionBy", "partitions"] },
      },
    );
  if (resume && read.walk.maxItems !== Infinity)
    throw new ValidationError(
      "maxItems",
      "A resumable partitionBy export cannot continue a maxItems count; leave out one of them.",
    );
  return planHive(read.plan, options.partitionBy);
}

/**
 * Runs a planned table export: one walk into one file, or (with `partitions`) concurrent walks
 * into a dataset directory of part files.
 */
export async function runTableExport(
  source: RecordWalker,
  target: ExportTarget,
  planned: TableExportPlan,
  options: CollectionParquetOptions & CollectionCsvOptions,
): Promise<ExportResult> {
  const { plan, walk, parquet, format, partitions, resume, hive } = planned;
  if (hive) return runHiveExport(source, target, planned, hive, options, resumeSource(source, options));
  const write = (
    pages: PageSource,
    to: ExportTarget | ResumableFile,
    onProgress = options.onProgress,
  ): Promise<ExportResult> =>
    parquet
      ? writeParquet(pages, to, plan, { ...options, onProgress }, parquet)
      : writeRows(pages, to, format as "csv" | "ndjson", plan, { ...options, onProgress });
  if (resume) {
    if (typeof target !== "string") {
      throw new ValidationError(
        "resume",
        "A resumable export keeps its progress beside a file: give a file path as the target, not a stream.",
      );
    }
    const request = resumeRequest(planned, options, resumeSource(source, options));
    if (partitions !== undefined) {
      return writePartitionedResumable(
        source,
        walk,
        partitions,
        target,
        request,
        { force: options.force, restart: resume.restart, onProgress: options.onProgress },
        write,
      );
    }
    const file = await ResumableFile.open(target, request, { force: options.force, restart: resume.restart });
    return write(continueWalk(source, walk, file.resumed), file);
  }
  if (partitions === undefined) return write(rowsOf(planned, source.walk(walk)), target);
  const part: PartWriter = (pages, file, onProgress) => write(pages, file, onProgress);
  return writePartitioned((signal) => source.partitionWalks(walk, partitions, signal), target, format, part, options);
}

/** Runs a planned hive-partitioned export: one walk, one Parquet writer per value of the column. */
async function runHiveExport(
  source: RecordWalker,
  target: ExportTarget,
  planned: TableExportPlan,
  hive: HivePlan,
  options: CollectionParquetOptions & CollectionCsvOptions,
  from: RecordWalker["source"],
): Promise<ExportResult> {
  // Each writer sees one partition: the dataset's warnings and strict checks are the router's.
  const quiet = { ...options, strict: false, onWarning: () => undefined };
  const parquet = {
    ...planned.parquet!,
    budget: new RowBudget(Math.max(DATASET_ROWS_HELD, planned.parquet!.rowGroupSize)),
  };
  const write = (
    pages: AsyncIterable<readonly unknown[]>,
    to: string | ResumableFile,
    onProgress: (p: Progress) => void,
  ): Promise<ExportResult> => writeParquet(pages, to, hive.file, { ...quiet, onProgress }, parquet);
  const common = {
    force: options.force,
    onProgress: options.onProgress,
    onWarning: options.onWarning,
    ...(options.strict ? { strict: { plan: planned.plan, options: { units: options.units } } } : {}),
  };
  let result: ExportResult;
  if (planned.resume) {
    if (typeof target !== "string") {
      throw new ValidationError(
        "resume",
        "A resumable export keeps its progress beside a folder: give a directory path as the target, not a stream.",
      );
    }
    const request = resumeRequest(planned, options, from);
    result = await writeHiveResumable(
      source,
      planned.walk,
      target,
      hive,
      request,
      { ...common, restart: planned.resume.restart },
      write,
    );
  } else {
    result = await writeHive(source.walk(planned.walk), target, hive, write, common);
  }
  reportWarnings(result.warnings, options.onWarning);
  return result;
}

/** What a resumed run must share with the saved one: everything that changes the bytes written. */
function resumeRequest(
  planned: TableExportPlan,
  options: CollectionParquetOptions & CollectionCsvOptions,
  source: RecordWalker["source"],
): ResumeRequest {
  const formatOptions: Record<string, unknown> =
    planned.format === "csv"
      ? { header: options.header ?? true, escapeFormulas: options.escapeFormulas ?? true }
      : planned.parquet
        ? {
            compression: planned.parquet.compression,
            rowGroupSize: planned.parquet.rowGroupSize,
            types: planned.parquet.types,
          }
        : {};
  if (planned.parquet?.rowGroupBytes !== undefined) formatOptions.rowGroupBytes = planned.parquet.rowGroupBytes;
  if (planned.partitions !== undefined) formatOptions.partitions = planned.partitions;
  if (planned.hive) formatOptions.partitionBy = planned.hive.column;
  if (options.units) formatOptions.units = true;
  return {
    format: planned.format,
    columns: planned.plan.names,
    query: planned.walk.query,
    maxItems: planned.walk.maxItems === Infinity ? null : planned.walk.maxItems,
    options: formatOptions,
    platform: source.platform,
    account: source.account,
  };
}

export { writeRows, writeParquet, checkParquetOptions, readArrow, loadArrow };
