// What a collection's table reads do once loaded: plan the columns and the walk once, at the
// public entry, then read the pages into a DataFrame or an Arrow table. Apart from the exports
// (collection-io.ts), whose modules cost a first table read 30 to 40 ms to load on a busy machine.
import type { IterateOptions, Progress } from "../client/config/options";
import { validateIterateOptions, type ResolvedIterateOptions } from "../client/config/validate-options";
import type { ReadAnswer, ReadKeeping } from "../client/transport/read-answers";
import type { RecordWalker } from "../client/record-walker";
import type { PlatformRecord } from "../client/platform-record";
import { ColumnBuilder } from "./table/column-builder";
import { planColumns, type ColumnPlan } from "./table/column-spec";
import type { ReadOptions } from "./table/row-reader";
import { reportWarnings } from "./table/warnings";
import { refuseUnusedOptions } from "../client/config/unused-options";
import { frameFromColumns, loadDanfo } from "./dataframe/danfo";
import type { DataFrame } from "./dataframe/dataframe";
import type { TableOptions } from "./dataframe/to-dataframe";
import type { PageSource } from "./export/export";
import { loadArrow, readArrow, type ToArrowOptions, type ArrowTable } from "./export/arrow";
import { copyColumns, keptReads } from "./kept-reads";
import { checkQueryPaths } from "./query-paths";
import { defaultColumnsOf, rowsPerUnit, unitRows } from "./unit-rows";

/**
 * Which records to read and how: the iterate options of the client, except `fields` (derived
 * from `columns`) and `onPage` (see `onProgress`).
 */
export type FrameIterateOptions = Omit<IterateOptions, "fields" | "onPage">;

/** `collection.toDataFrame(options)`. */
export interface CollectionFrameOptions extends FrameIterateOptions, TableOptions {
  /** Called after each page is added to the table. */
  onProgress?: (progress: Progress) => void;
}

/** Every option `collection.toDataFrame` takes, one key per member (checked by the compiler). */
const FRAME_OPTIONS = Object.keys({
  query: true,
  sort: true,
  pageSize: true,
  maxItems: true,
  paging: true,
  concurrency: true,
  signal: true,
  onDuplicate: true,
  columns: true,
  onWarning: true,
  strict: true,
  units: true,
  symmetry: true,
  onProgress: true,
} satisfies Record<keyof CollectionFrameOptions, true>);

/** `collection.toArrow(options)`. */
export type CollectionArrowOptions = FrameIterateOptions & ToArrowOptions;

/** A table read, checked once: the columns and the walk that fetches exactly what they need. */
export interface TableRead {
  readonly plan: ColumnPlan;
  readonly walk: ResolvedIterateOptions;
  /** Set for a workflow table with `subworkflows.<field>` columns: one row per subworkflow unit (see `unit-rows.ts`). */
  readonly perUnit?: boolean;
}

/** The rows of a table read from its walk's pages: the records, or a workflow's units. */
export function rowsOf(
  read: Pick<TableRead, "perUnit">,
  pages: AsyncIterable<PlatformRecord[]>,
): AsyncIterable<PlatformRecord[]> {
  return read.perUnit ? unitRows(pages) : pages;
}

/** Checks the columns and the walk options of a table read, once, before any request. */
export function planTableRead(
  options: FrameIterateOptions & {
    columns?: readonly string[];
    units?: boolean;
    strict?: boolean;
    onWarning?: TableOptions["onWarning"];
  },
  collection?: string,
): TableRead {
  const planned = planColumns(options.columns ?? defaultColumnsOf(collection), options);
  const plan = options.columns === undefined ? { ...planned, defaulted: true } : planned;
  // Material queries are checked against the material record's shape before any request.
  if (collection === "materials")
    reportWarnings(checkQueryPaths(options.query, options.strict ?? false), options.onWarning);
  // Only the iterate options, by name, so frame-only options never reach the walk's checks.
  const { query, sort, pageSize, maxItems, paging, concurrency, signal, onDuplicate } = options;
  const walk = validateIterateOptions({
    query,
    fields: plan.fields,
    sort,
    pageSize,
    maxItems,
    paging,
    concurrency,
    signal,
    onDuplicate,
  });
  return rowsPerUnit(collection, plan) ? { plan, walk, perUnit: true } : { plan, walk };
}

/** What decides a table read's result, as a key for `keptReads`: the account, platform, collection, walk and columns. */
export function readKey(walker: RecordWalker, read: TableRead, options: ReadOptions): string {
  const { query, fields, stripId, sort, pageSize, maxItems, paging } = read.walk;
  const { account, platform } = walker.source;
  return JSON.stringify([
    account,
    platform,
    walker.name,
    query,
    fields,
    stripId,
    sort,
    pageSize,
    maxItems,
    paging,
    read.plan.names,
    options.strict ?? false,
    options.units ?? false,
  ]);
}

/**
 * `collection.toDataFrame(options)`: with the cache in memory, a read is kept and confirmed as
 * a whole (not when repeats are reported to onDuplicate: a read from memory could not report
 * them again).
 */
export function readCollectionFrame(walker: RecordWalker, options: CollectionFrameOptions): Promise<DataFrame> {
  refuseUnusedOptions(options ?? {}, FRAME_OPTIONS, "toDataFrame");
  const read = planTableRead(options, walker.name);
  const keeping: ReadKeeping | undefined =
    walker.keepsReads && !read.walk.onDuplicate
      ? { key: readKey(walker, read, options), confirm: (answers, signal) => walker.confirm(answers, signal) }
      : undefined;
  return readFrame((onAnswer) => rowsOf(read, walker.walk(read.walk, onAnswer)), read.plan, options, keeping);
}

/** `collection.toArrow(options)`. */
export function readCollectionArrow(walker: RecordWalker, options: CollectionArrowOptions): Promise<ArrowTable> {
  const read = planTableRead(options, walker.name);
  if (!options.arrow) loadArrow(); // a missing package fails before any request
  return readArrow(rowsOf(read, walker.walk(read.walk)), read.plan, options);
}

/**
 * Reads the pages `open()` gives into a DataFrame; danfo is loaded before the first request.
 * With `keeping` (the client's cache is in memory), a read whose every answer the server
 * confirms unchanged is given back from memory (its warnings reported again), and a read
 * whose every answer carried a validator is kept.
 */
export async function readFrame(
  open: (onAnswer?: (answer: ReadAnswer | undefined) => void) => PageSource,
  plan: ColumnPlan,
  options: CollectionFrameOptions,
  keeping?: ReadKeeping,
): Promise<DataFrame> {
  loadDanfo(); // fail before downloading anything when danfojs-node is missing
  const kept = keeping && keptReads.get(keeping.key);
  if (kept && (await keeping.confirm(kept.answers, options.signal))) {
    options.onProgress?.({ pages: kept.pages, items: kept.built.rows });
    reportWarnings(kept.built.warnings, options.onWarning);
    return frameFromColumns(copyColumns(kept.built));
  }
  const builder = new ColumnBuilder(plan, options);
  const answers: ReadAnswer[] = [];
  let validated = keeping !== undefined;
  const onAnswer = (answer: ReadAnswer | undefined) => (answer ? answers.push(answer) : (validated = false));
  let pages = 0;
  for await (const page of open(keeping && onAnswer)) {
    builder.addPage(page);
    pages++;
    options.onProgress?.({ pages, items: builder.rows });
  }
  const built = builder.finish();
  reportWarnings(built.warnings, options.onWarning);
  if (!keeping || !validated) return frameFromColumns(built);
  // A copy: pages fetched ahead and dropped by the walk may still report their answers later.
  keptReads.set(keeping.key, { answers: answers.slice(), built, pages });
  return frameFromColumns(copyColumns(built));
}
