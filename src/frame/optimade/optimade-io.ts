// Tables and files of OPTIMADE entries: the same readers and writers as a collection's (danfo,
// Arrow, CSV, NDJSON, Parquet, structure files, resumable), fed with the entries as rows. The
// methods registered in optimade-methods.ts load this module on first use.
import type { Progress } from "../../client/config/options";
import { refuseUnusedOptions } from "../../client/config/unused-options";
import { validateIterateOptions, type ResolvedIterateOptions } from "../../client/config/validate-options";
import type { OptimadeEntries } from "../../client/optimade/optimade-client";
import {
  OPTIMADE_OPTION_HINTS,
  resolveOptimadeWalk,
  type OptimadeIterateOptions,
  type ResolvedOptimadeWalk,
} from "../../client/optimade/optimade-options";
import type { PlatformRecord } from "../../client/platform-record";
import { ResumeError, ValidationError } from "../../errors";
import type { Query } from "../../schemas";
import { readFrame } from "../collection-reads";
import type { DataFrame } from "../dataframe/dataframe";
import { readArrow, type ToArrowOptions, type ArrowTable } from "../export/arrow";
import {
  writeRows,
  type ExportCsvOptions,
  type ExportOptions,
  type ExportResult,
  type ExportTarget,
  type PageSource,
} from "../export/export";
import { checkParquetOptions, writeParquet, type ExportParquetOptions } from "../export/parquet";
import { checkResume, continueWalk, type ResumeOptions, type ResumeRequest } from "../export/resume/resume-plan";
import { ResumableFile } from "../export/resume/resumable-file";
import {
  planStructureExport,
  writeStructures,
  type StructureExportOptions,
  type StructureExportResult,
  type StructureSource,
} from "../export/structure-export";
import { writeStructuresResumable } from "../export/structure-resume";
import type { TableOptions } from "../dataframe/to-dataframe";
import { TABLE_EXPORT_METHODS } from "../frame-methods";
import type { FrameWarning } from "../table/row-reader";
import { reportWarnings, type WarningHandler } from "../table/warnings";
import {
  missingWeightsWarning,
  offSpecWarnings,
  planOptimadeColumns,
  rowPages,
  specIntegerColumns,
  type MissingWeights,
  type OptimadePlan,
  type SpecIntegers,
} from "./optimade-rows";

/** How far a table read or export has come; `total` is the provider's `meta.data_returned`. */
export interface OptimadeTableProgress extends Progress {
  readonly total?: number;
}

/** What every OPTIMADE table read takes: the walk (without `fields`: the columns say them) and the columns. */
export interface OptimadeReadOptions extends Omit<OptimadeIterateOptions, "fields" | "onProgress"> {
  /**
   * OPTIMADE property names (`nsites`, `_mp_stability`), paths into them (`lattice_vectors.0.0`),
   * matframe's computed columns (`matframe:spaceGroupSymbol`, `matframe:volumePerAtom`) and
   * `derivedProperties.volume` / `derivedProperties.density` (Å³, g/cm³, from the structure).
   * @default OPTIMADE_COLUMNS (id, chemical_formula_reduced, elements, nelements, nsites)
   */
  columns?: readonly string[];
  /** After each page: pages, rows, bytes written (exports), and the provider's total. */
  onProgress?: (progress: OptimadeTableProgress) => void;
}

/** `op.structures.toDataFrame(options)`. */
export type OptimadeFrameOptions = OptimadeReadOptions & Omit<TableOptions, "columns">;
/** `op.structures.toArrow(options)`. */
export type OptimadeArrowOptions = OptimadeReadOptions & Omit<ToArrowOptions, "columns" | "onProgress">;
/** `op.structures.exportCsv`. */
export type OptimadeCsvOptions = OptimadeReadOptions & Omit<ExportCsvOptions, "columns" | "onProgress"> & ResumeOptions;
/** `op.structures.exportNdjson`: those of every export; NDJSON has no settings of its own. */
export type OptimadeNdjsonOptions = OptimadeReadOptions & Omit<ExportOptions, "columns" | "onProgress"> & ResumeOptions;
/** `op.structures.exportParquet`. */
export type OptimadeParquetOptions = OptimadeReadOptions &
  Omit<ExportParquetOptions, "columns" | "onProgress"> &
  ResumeOptions;
/** `op.structures.exportStructures`. */
export type OptimadeStructureOptions = Omit<OptimadeReadOptions, "columns"> &
  Pick<StructureExportOptions, "format" | "cell" | "singleFile" | "force" | "onWarning"> &
  ResumeOptions;

// Every option each method takes, one key per member (checked by the compiler): a misspelt or
// foreign one (`filtr`, the platform's `query`) is refused, where dropped it would read the whole
// provider unfiltered and look like success.
const READ_KEYS = {
  filter: true,
  pageSize: true,
  maxItems: true,
  signal: true,
  columns: true,
  onProgress: true,
} satisfies Record<keyof OptimadeReadOptions, true>;
const FRAME_KEYS = {
  ...READ_KEYS,
  strict: true,
  units: true,
  symmetry: true,
  onWarning: true,
} satisfies Record<keyof OptimadeFrameOptions, true>;
const NDJSON_KEYS = {
  ...FRAME_KEYS,
  force: true,
  resume: true,
  restart: true,
  resumePlatform: true,
} satisfies Record<keyof OptimadeNdjsonOptions, true>;
const OPTION_NAMES = {
  toDataFrame: Object.keys(FRAME_KEYS),
  toArrow: Object.keys({ ...FRAME_KEYS, types: true, arrow: true } satisfies Record<keyof OptimadeArrowOptions, true>),
  exportCsv: Object.keys({
    ...NDJSON_KEYS,
    header: true,
    escapeFormulas: true,
  } satisfies Record<keyof OptimadeCsvOptions, true>),
  exportNdjson: Object.keys(NDJSON_KEYS),
  exportParquet: Object.keys({
    ...NDJSON_KEYS,
    compression: true,
    rowGroupSize: true,
    rowGroupBytes: true,
    types: true,
  } satisfies Record<keyof OptimadeParquetOptions, true>),
  exportStructures: Object.keys({
    filter: true,
    pageSize: true,
    maxItems: true,
    signal: true,
    onProgress: true,
    format: true,
    cell: true,
    singleFile: true,
    force: true,
    onWarning: true,
    resume: true,
    restart: true,
    resumePlatform: true,
  } satisfies Record<keyof OptimadeStructureOptions, true>),
} as const;

/** What a table method says of `fields`, the walk's option: in a table the columns name the properties. */
const TABLE_HINTS: Readonly<Record<string, string>> = {
  ...OPTIMADE_OPTION_HINTS,
  fields: "a table reads the properties its columns name: list them in columns",
  projection: "a table reads the properties its columns name: list them in columns",
};

/** Refuses an option `method` does not take, before anything is loaded or asked for. */
function checkOptionNames(entries: OptimadeEntries, method: keyof typeof OPTION_NAMES, options: object): void {
  if (options === null || typeof options !== "object")
    throw new ValidationError("options", `Pass ${method}'s options as an object, e.g. { filter: "nelements=2" }.`);
  refuseUnusedOptions(options, OPTION_NAMES[method], `${entries.name}.${method}`, TABLE_HINTS);
}

/** A read checked once: the columns, the walk, and the progress that carries the provider's total. */
interface OptimadeRead {
  readonly columns: OptimadePlan;
  readonly walk: ResolvedOptimadeWalk;
  /** The provider's `data_returned`, as the walk last saw it. */
  total(): number | undefined;
  /** The densities the last walk left empty for want of an atomic weight. */
  missing: MissingWeights;
  /** For a Parquet export: the spec-integer columns, and the values the last walk left empty there. */
  integers?: SpecIntegers;
}

const noneMissing = (): MissingWeights => ({ rows: 0, ids: [], elements: new Set() });

function planRead(options: OptimadeReadOptions, columns: OptimadePlan | undefined): OptimadeRead {
  const planned = columns ?? planOptimadeColumns(options.columns);
  let total: number | undefined;
  const walk = resolveOptimadeWalk({
    filter: options.filter,
    pageSize: options.pageSize,
    maxItems: options.maxItems,
    signal: options.signal,
    fields: planned.fields,
    onProgress: (p) => {
      total = p.total;
    },
  });
  return { columns: planned, walk, total: () => total, missing: noneMissing() };
}

/**
 * `onWarning` for the table's own warnings: a density column empty in every row because atomic
 * weights are missing is said once, by the NO_ATOMIC_WEIGHT warning that names the elements,
 * not also as an EMPTY_COLUMN that would blame the records for not carrying it.
 */
function tableWarnings(read: OptimadeRead, onWarning: WarningHandler | undefined): WarningHandler {
  return (warning) => {
    if (!saidOtherwise(read, warning)) reportWarnings([warning], onWarning);
  };
}

/** Whether a writer's warning is one {@link tableWarnings} leaves out. */
function saidOtherwise(read: OptimadeRead, warning: FrameWarning): boolean {
  return warning.code === "EMPTY_COLUMN" && warning.path === "derivedProperties.density" && read.missing.rows > 0;
}

/** `onProgress` with the provider's total added. */
function withTotal(read: OptimadeRead, onProgress: OptimadeReadOptions["onProgress"]) {
  return (
    onProgress &&
    ((p: Progress) => onProgress({ ...p, ...(read.total() !== undefined ? { total: read.total() } : {}) }))
  );
}

/**
 * The rows of a walk; at its end, the densities it could not compute and the spec integers it
 * left empty are reported to `onWarning`.
 */
async function* pagesOf(
  entries: OptimadeEntries,
  read: OptimadeRead,
  onWarning: WarningHandler | undefined,
): AsyncGenerator<PlatformRecord[], void, undefined> {
  read.missing = noneMissing();
  read.integers?.offSpec.clear();
  yield* rowPages(entries.walk(read.walk), read.columns, read.missing, read.integers) as AsyncIterable<
    PlatformRecord[]
  >;
  const warning = missingWeightsWarning(read.missing);
  if (warning) reportWarnings([warning], onWarning);
  if (read.integers) reportWarnings(offSpecWarnings(read.integers, entries.client.baseUrl), onWarning);
}

/** `op.structures.toDataFrame`. */
export function readOptimadeFrame(entries: OptimadeEntries, options: OptimadeFrameOptions = {}): Promise<DataFrame> {
  checkOptionNames(entries, "toDataFrame", options);
  const read = planRead(options, undefined);
  return readFrame(() => pagesOf(entries, read, options.onWarning), read.columns.plan, {
    ...options,
    onProgress: withTotal(read, options.onProgress),
    onWarning: tableWarnings(read, options.onWarning),
  });
}

/** `op.structures.toArrow`. */
export function readOptimadeArrow(entries: OptimadeEntries, options: OptimadeArrowOptions = {}): Promise<ArrowTable> {
  checkOptionNames(entries, "toArrow", options);
  const read = planRead(options, undefined);
  return readArrow(pagesOf(entries, read, options.onWarning), read.columns.plan, {
    ...options,
    onProgress: withTotal(read, options.onProgress),
    onWarning: tableWarnings(read, options.onWarning),
  });
}

/** The table formats of an OPTIMADE export. */
export type OptimadeTableFormat = "csv" | "ndjson" | "parquet";

/** `op.structures.exportCsv`, `exportNdjson`, `exportParquet`: checked, then walked into the file. */
export async function exportOptimadeTable(
  entries: OptimadeEntries,
  format: OptimadeTableFormat,
  target: ExportTarget,
  options: OptimadeCsvOptions & OptimadeParquetOptions = {},
): Promise<ExportResult> {
  checkOptionNames(entries, TABLE_EXPORT_METHODS[format], options);
  const read = planRead(options, undefined);
  const plan = read.columns.plan;
  const checked = format === "parquet" ? checkParquetOptions(plan, options) : undefined;
  // The spec's integers are int64 in Parquet (as JSON numbers they would be inferred as double);
  // a provider's value that is not one is left empty with a warning, not an export that stops.
  const integers = checked ? specIntegerColumns(plan, checked.types) : [];
  if (integers.length > 0) read.integers = { columns: integers, offSpec: new Map() };
  const parquet = checked && {
    ...checked,
    types: { ...Object.fromEntries(integers.map((def) => [def.name, "int64" as const])), ...checked.types },
  };
  const resume = checkResume(options, resumeWalk(read.walk));
  const onProgress = withTotal(read, options.onProgress);
  const onWarning = tableWarnings(read, options.onWarning);
  // The walk's own warnings (NO_ATOMIC_WEIGHT) are known only once it ends: held until the
  // file is written, then reported and returned with the writer's, as every export returns its warnings.
  const walkWarnings: FrameWarning[] = [];
  const hold: WarningHandler = (warning) => walkWarnings.push(warning);
  const write = async (pages: PageSource, to: ExportTarget | ResumableFile): Promise<ExportResult> => {
    const result = await (parquet
      ? writeParquet(pages, to, plan, { ...options, onProgress, onWarning }, parquet)
      : writeRows(pages, to, format as "csv" | "ndjson", plan, { ...options, onProgress, onWarning }));
    reportWarnings(walkWarnings, options.onWarning);
    const written = result.warnings.filter((warning) => !saidOtherwise(read, warning));
    return { ...result, warnings: [...written, ...walkWarnings] };
  };
  if (!resume) return write(pagesOf(entries, read, hold), target);
  if (typeof target !== "string")
    throw new ValidationError(
      "resume",
      "A resumable export keeps its progress beside a file: give a file path as the target, not a stream.",
    );
  const formatOptions: Record<string, unknown> =
    format === "csv"
      ? { header: options.header ?? true, escapeFormulas: options.escapeFormulas ?? true }
      : parquet
        ? { compression: parquet.compression, rowGroupSize: parquet.rowGroupSize, types: checked?.types }
        : {};
  const request: ResumeRequest = {
    format,
    columns: plan.names,
    query: filterQuery(read.walk),
    maxItems: read.walk.maxItems === Infinity ? null : read.walk.maxItems,
    options: formatOptions,
    ...resumeSource(entries, options),
  };
  const file = await ResumableFile.open(target, request, { force: options.force, restart: resume.restart });
  const source = cursorSource(entries, read, target, { ...options, onWarning: hold });
  return write(continueWalk(source, resumeWalk(read.walk), file.resumed), file);
}

/** `op.structures.exportStructures`: POSCAR, CIF or XYZ files from each entry's structure. */
export function exportOptimadeStructures(
  entries: OptimadeEntries,
  dir: string,
  options: OptimadeStructureOptions,
): Promise<StructureExportResult> {
  checkOptionNames(entries, "exportStructures", options);
  const read = planRead(options, planOptimadeColumns(["id", "matframe:nsites"]));
  const checked = planStructureExport({
    format: options?.format,
    cell: options.cell,
    singleFile: options.singleFile,
    resume: options.resume,
    restart: options.restart,
    resumePlatform: options.resumePlatform,
  });
  const plan = { ...checked, walk: resumeWalk(read.walk) };
  const writeOptions = {
    force: options.force,
    onWarning: options.onWarning,
    onProgress: withTotal(read, options.onProgress),
  };
  const source = cursorSource(entries, read, dir, options);
  if (plan.resume) return writeStructuresResumable(source, dir, plan, writeOptions, source.source);
  return writeStructures(source, dir, plan, writeOptions);
}

/**
 * The walk a resumable export is planned with: `_id` order (the provider's order, continued by
 * skipping to the cursor), and the filter as the query its saved progress names.
 */
function resumeWalk(walk: ResolvedOptimadeWalk): ResolvedIterateOptions {
  return {
    ...validateIterateOptions({ sort: { _id: 1 }, paging: "keyset" }),
    maxItems: walk.maxItems,
    query: filterQuery(walk),
  };
}

function filterQuery(walk: ResolvedOptimadeWalk): Query {
  return walk.filter === undefined ? {} : { filter: walk.filter };
}

/** Where a resumable export says it read from: the provider's base URL (OPTIMADE has no accounts). */
function resumeSource(entries: OptimadeEntries, options: ResumeOptions): { platform: string; account: string } {
  return { platform: options.resumePlatform ?? `optimade:${entries.client.baseUrl}/${entries.name}`, account: "" };
}

/**
 * The entries as a walk a resumed export continues: asked for the records after a cursor
 * (`{ _id: { $gt: cursor } }`, as `continueWalk` asks), it reads the query's pages from the
 * start again and skips through the entry with that id. A provider's next links cannot be
 * rebuilt, so reading again is the one way back that every provider allows; nothing is written twice.
 */
function cursorSource(
  entries: OptimadeEntries,
  read: OptimadeRead,
  target: string,
  options: ResumeOptions & { onWarning?: WarningHandler },
): StructureSource {
  return {
    walk: (resolved) => {
      const cursor = cursorOf(resolved.query);
      const pages = pagesOf(entries, read, options.onWarning);
      return cursor === undefined ? pages : afterCursor(pages, cursor, target);
    },
    source: resumeSource(entries, options),
  };
}

function cursorOf(query: Query): string | undefined {
  const bound = (q: unknown): string | undefined => {
    const gt = (q as { _id?: { $gt?: unknown } } | undefined)?._id?.$gt;
    return typeof gt === "string" ? gt : undefined;
  };
  const and = (query as { $and?: unknown[] }).$and;
  return Array.isArray(and) ? and.map(bound).find((c) => c !== undefined) : bound(query);
}

async function* afterCursor(
  pages: AsyncIterable<PlatformRecord[]>,
  cursor: string,
  target: string,
): AsyncGenerator<PlatformRecord[], void, undefined> {
  let found = false;
  for await (const page of pages) {
    if (found) {
      yield page;
      continue;
    }
    const at = page.findIndex((row) => row._id === cursor);
    if (at === -1) continue;
    found = true;
    if (at + 1 < page.length) yield page.slice(at + 1);
  }
  if (!found)
    throw new ResumeError(
      `The provider no longer returns entry ${JSON.stringify(cursor)}, where the saved progress of ${target} stopped: its data or its order changed`,
      target,
    );
}
