// The heart of a hive-partitioned export: one walk, read once, its records routed by the value of
// the partition column to one writer per value (opened on the value's first record, each reading
// its own page channel), so the collection is never held: memory is one row group per value.
import type { Progress } from "../../../client/config/options";
import { RowReader, type FrameWarning } from "../../table/row-reader";
import { recordShapeError } from "../../table/record-shape";
import type { ColumnPlan } from "../../table/column-spec";
import { ValidationError } from "../../../errors";
import type { ExportResult, PageSource } from "../export";
import { PageChannel } from "./page-channel";
import { MAX_PARTITION_VALUES, partitionFolder, tooManyValues } from "./hive-path";
import { groupDigits } from "../../table/digit-groups";

/** A `partitionBy` column, checked against the planned columns: how to read it, and the files' columns. */
export interface HivePlan {
  readonly column: string;
  /** The partition column alone: what the router reads from each record. */
  readonly key: ColumnPlan;
  /** The other columns: what each partition's files hold (the value is in the folder's name). */
  readonly file: ColumnPlan;
}

/**
 * Checks `partitionBy` against the planned columns, once, before any request.
 * @throws ValidationError when it is not text, not one of the columns, or the only column.
 */
export function planHive(plan: ColumnPlan, column: unknown): HivePlan {
  if (typeof column !== "string" || column === "") {
    throw new ValidationError(
      "partitionBy",
      `partitionBy must be the name of one column, such as "lattice.type"; got ${JSON.stringify(column)}.`,
    );
  }
  const at = plan.names.indexOf(column);
  if (at < 0) {
    throw new ValidationError(
      "partitionBy",
      `partitionBy ${column} is not one of the exported columns (${plan.names.join(", ")}): add it to the columns asked for.`,
    );
  }
  if (plan.names.length === 1) {
    throw new ValidationError(
      "partitionBy",
      `partitionBy ${column} is the only column: its values would be folder names with nothing in the files. Add the columns the files should hold.`,
    );
  }
  const pick = (keep: (c: number) => boolean): ColumnPlan => ({
    names: plan.names.filter((_, c) => keep(c)),
    columns: plan.columns.filter((_, c) => keep(c)),
    fields: plan.fields,
  });
  return { column, key: pick((c) => c === at), file: pick((c) => c !== at) };
}

/** Where one value's rows go: the file to write, and (resuming) the `_id` its saved part ends at. */
export interface PartitionTarget<T> {
  readonly target: T;
  /** Records of this value up to this `_id` are in the file already (a resumed export skips them). */
  readonly after?: string;
}

/** Writes one partition's pages to its target (the Parquet writer, over the file columns). */
export type PartitionWrite<T> = (
  pages: AsyncIterable<readonly unknown[]>,
  target: T,
  onProgress: (progress: Progress) => void,
) => Promise<ExportResult>;

/** What the router was given to do, besides the pages. */
export interface RouteOptions<T> {
  /** Opens the target of a value's folder (creating the folder), on the value's first record. */
  open(folder: string): Promise<PartitionTarget<T>>;
  write: PartitionWrite<T>;
  /** Folders to open before the walk even when no record of theirs comes (a resumed export's parts). */
  readonly opened?: readonly string[];
  /** Called for each page of records routed to a folder (a resumable export tracks what is committed). */
  onRouted?(folder: string, lastId: string): void;
  /** Called once every record of a walk page, up to `lastId`, is routed (or skipped as held already). */
  onPageRouted?(lastId: string): void;
  /** The whole dataset's progress, after each page a writer wrote. */
  onProgress?(progress: Progress): void;
  /**
   * Refuse invalid methods and a column empty in the whole dataset (the writers do not: a column
   * may be empty in one partition). `resumed`: the walk continues an earlier run's, whose rows
   * this one does not see, so no column is called empty.
   */
  readonly strict?: { readonly plan: ColumnPlan; readonly options: object; readonly resumed?: boolean };
}

/** What the router wrote: each folder's result, and the pages walked. */
export interface Routed {
  readonly pages: number;
  readonly parts: readonly { readonly folder: string; readonly result: ExportResult }[];
  readonly warnings: readonly FrameWarning[];
}

interface Partition {
  readonly channel: PageChannel<readonly unknown[]>;
  done: Promise<ExportResult>;
  readonly after: string | undefined;
  progress: Progress;
}

/**
 * Routes every record to its value's writer and waits for all of them. The first failure (the
 * walk's or a writer's) stops the others, each keeping what its output keeps on failure.
 */
export async function routePartitions<T>(pages: PageSource, hive: HivePlan, options: RouteOptions<T>): Promise<Routed> {
  const partitions = new Map<string, Partition>();
  const keys = new RowReader(hive.key);
  const strict = options.strict;
  const checker = strict
    ? new RowReader(strict.plan, { ...strict.options, strict: true }, strict.resumed ? { rows: 0 } : undefined)
    : undefined;
  let first: { error: unknown } | undefined;
  const fail = (error: unknown): void => {
    first ??= { error };
    for (const p of partitions.values()) p.channel.fail(error);
  };
  const report = (): void => {
    if (!options.onProgress) return;
    const total = { items: 0, pages: 0, bytes: 0 };
    for (const p of partitions.values()) {
      total.items += p.progress.items;
      total.pages += p.progress.pages;
      total.bytes += p.progress.bytes ?? 0;
    }
    options.onProgress(total);
  };
  const open = async (folder: string, id: unknown): Promise<Partition> => {
    if (partitions.size >= MAX_PARTITION_VALUES) throw tooManyValues(hive.column, id);
    const { target, after } = await options.open(folder);
    const channel = new PageChannel<readonly unknown[]>();
    const partition = { channel, after, progress: { items: 0, pages: 0, bytes: 0 } } as Partition;
    partition.done = options
      .write(channel, target, (progress) => {
        partition.progress = progress;
        report();
      })
      .catch((error: unknown) => {
        fail(error);
        throw error;
      });
    partitions.set(folder, partition);
    return partition;
  };

  let pageCount = 0;
  try {
    for (const folder of options.opened ?? []) await open(folder, undefined);
    const cell = [undefined as unknown];
    const row: unknown[] = [];
    for await (const page of pages) {
      const routed = new Map<string, unknown[]>();
      for (const record of page) {
        try {
          keys.read(record, cell);
          checker?.read(record, row);
        } catch (error) {
          throw recordShapeError(error, record);
        }
        const id = (record as { _id?: unknown } | null)?._id;
        const folder = partitionFolder(hive.column, cell[0], id);
        let batch = routed.get(folder);
        if (!batch) routed.set(folder, (batch = []));
        batch.push(record);
      }
      for (const [folder, records] of routed) {
        const partition = partitions.get(folder) ?? (await open(folder, (records[0] as { _id?: unknown })._id));
        const after = partition.after;
        const kept =
          after === undefined ? records : records.filter((r) => !(String((r as { _id?: unknown })._id) <= after));
        if (kept.length === 0) continue;
        // Told before the hand-over, so that no commit of the writer can cover a page not yet tracked.
        options.onRouted?.(folder, String((kept[kept.length - 1] as { _id?: unknown })._id));
        await partition.channel.push(kept);
      }
      if (page.length > 0) options.onPageRouted?.(String((page[page.length - 1] as { _id?: unknown })._id));
      pageCount++;
    }
    const warnings = checker?.finish();
    for (const p of partitions.values()) p.channel.end();
    const settled = await Promise.allSettled(
      [...partitions].map(async ([folder, p]) => ({ folder, result: await p.done })),
    );
    if (first) throw first.error;
    const parts = settled.map((s) => (s as PromiseFulfilledResult<{ folder: string; result: ExportResult }>).value);
    return { pages: pageCount, parts, warnings: warnings ?? mergeWarnings(parts.map((p) => p.result)) };
  } catch (error) {
    // The first failure is the cause; the writers it stopped fail with it too.
    fail(error);
    await Promise.allSettled([...partitions.values()].map((p) => p.done));
    throw first!.error;
  }
}

/**
 * The warnings of the whole dataset from its partitions' writers: a column is empty only when it
 * is empty in every partition; the other warnings are of distinct records and are all kept.
 */
function mergeWarnings(results: readonly ExportResult[]): FrameWarning[] {
  const rows = results.reduce((n, r) => n + r.items, 0);
  const merged: FrameWarning[] = [];
  const empty = new Map<string, { warning: FrameWarning; partitions: number }>();
  for (const result of results) {
    for (const warning of result.warnings) {
      if (warning.code !== "EMPTY_COLUMN") merged.push(warning);
      else {
        const seen = empty.get(warning.path);
        empty.set(warning.path, { warning: seen?.warning ?? warning, partitions: (seen?.partitions ?? 0) + 1 });
      }
    }
  }
  for (const { warning, partitions } of empty.values()) {
    if (partitions < results.length) continue;
    const message = warning.message.replace(groupDigits(warning.rows), groupDigits(rows));
    merged.push({ ...warning, rows, message });
  }
  return merged;
}
