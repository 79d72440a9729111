// What a resumable export is (docs/exports.md "Resuming an export"): the
// partial output and a small state file beside the target, so an export that dies near the end
// continues from its last committed `_id` cursor instead of starting over; the target still
// appears only when complete. This file holds the plan: the options, what a run must share with
// the saved one to continue it, and the rest of the walk.
import type { PlatformRecord } from "../../../client/platform-record";
import { afterId } from "../../../client/paging/partitions";
import type { ResolvedIterateOptions } from "../../../client/config/validate-options";
import { ValidationError } from "../../../errors";
import { canonical } from "./sealed-state";

/** Options of an export that can be resumed. */
export interface ResumeOptions {
  /**
   * Keep the progress of this export beside the target (a partial file and a small state file,
   * both hidden), and continue a previous interrupted run of the same request from its last
   * committed `_id` cursor. The walk uses keyset paging (sort by `_id`). The result is the same,
   * byte for byte, as an uninterrupted export of the same data (docs/exports.md, "Resuming an export").
   * @default false
   */
  resume?: boolean;
  /**
   * With `resume`: discard saved progress and start over.
   * @default false
   */
  restart?: boolean;
  /**
   * With `resume`: the name the saved progress gives the platform read from, in place of the
   * client's address, for a platform whose address changes between runs (one started on port 0
   * for each run, as `matframe export` starts the built-in one). A run continues only saved
   * progress of the same platform name and account.
   * @default the client's base URL, without credentials
   */
  resumePlatform?: string;
}

/** What must be the same for a run to continue another: anything that changes the output. */
export interface ResumeRequest {
  readonly format: string;
  readonly columns: readonly string[];
  readonly query: unknown;
  readonly maxItems: number | null;
  /** Format options that change the bytes (header, formula escape, compression, types, ...). */
  readonly options: Readonly<Record<string, unknown>>;
  /** The platform's base URL without credentials, or "local" for the CLI's built-in platform. */
  readonly platform: string;
  readonly account: string;
}

/** Where the walk stands after a committed page (or row group). */
export interface Checkpoint {
  /** The `_id` of the last record in the output. */
  readonly cursor: string;
  readonly items: number;
  readonly pages: number;
  /** Bytes of the output up to this point. */
  readonly bytes: number;
  /** The format writer's own state (Parquet: row group metadata), as tagged JSON. */
  readonly writer?: unknown;
  /** Which columns had a value in some row so far, so a resumed run can tell an empty column. */
  readonly filled?: readonly boolean[];
}

/** Progress read back from a state file and checked against the partial output. */
export type SavedProgress = Checkpoint;

/** True when a walk goes in `_id` order, the order a cursor can continue. */
export function idOrder(walk: ResolvedIterateOptions): boolean {
  return Object.keys(walk.sort).every((key) => key === "_id") && walk.sort._id === 1;
}

/**
 * Checks `resume` and `restart` once, at the public entry: a resumable export continues from an
 * `_id` cursor, so it walks in `_id` order with keyset paging.
 */
export function checkResume(
  options: ResumeOptions & { paging?: string },
  walk: ResolvedIterateOptions,
): { restart: boolean } | undefined {
  for (const name of ["resume", "restart"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "boolean") {
      throw new ValidationError(name, `${name} must be true or false; got ${JSON.stringify(options[name])}.`);
    }
  }
  const named = options.resumePlatform;
  if (named !== undefined && (typeof named !== "string" || named.trim() === "")) {
    throw new ValidationError(
      "resumePlatform",
      `resumePlatform must be a non-empty string (a name for the platform); got ${JSON.stringify(named)}.`,
    );
  }
  if (!options.resume) {
    if (options.restart)
      throw new ValidationError(
        "restart",
        "restart discards the saved progress of a resumable export: pass it with resume.",
      );
    if (named !== undefined)
      throw new ValidationError(
        "resumePlatform",
        "resumePlatform names the platform in a resumable export's saved progress: pass it with resume.",
      );
    return undefined;
  }
  if (options.paging === "offset")
    throw new ValidationError("paging", "A resumable export continues from an _id cursor, with keyset paging", {
      remedy: { leaveOut: ["paging"] },
    });
  if (!idOrder(walk))
    throw new ValidationError("sort", "A resumable export continues from an _id cursor, so it walks in _id order", {
      remedy: { leaveOut: ["sort", "resume"] },
    });
  return { restart: options.restart ?? false };
}

/** The rest of a walk after saved progress: records after its cursor, up to what is left of maxItems. */
export function continueWalk(
  source: { walk(resolved: ResolvedIterateOptions): AsyncIterable<PlatformRecord[]> },
  walk: ResolvedIterateOptions,
  saved: SavedProgress | undefined,
): AsyncIterable<PlatformRecord[]> | PlatformRecord[][] {
  if (!saved) return source.walk(walk);
  const maxItems = walk.maxItems - saved.items;
  if (maxItems <= 0) return [];
  return source.walk({ ...walk, maxItems, query: afterId(walk.query, saved.cursor) });
}

/**
 * The format options a resumed run must share, in words that fit the library's option and the
 * CLI's flag alike (`rowGroupSize` and `--row-group-size` are both "its row group size").
 */
const OPTION_WORDS: Readonly<Record<string, string>> = {
  header: "header",
  escapeFormulas: "escaping of formulas",
  compression: "compression",
  rowGroupSize: "row group size",
  rowGroupBytes: "row group size in bytes",
  types: "column types",
  partitions: "number of parts",
  partitionBy: "partition column",
  units: "units in the header",
  singleFile: "single file",
  cell: "cell",
};

/** What differs between two requests, in the user's words; empty when they match. */
export function compareRequests(saved: ResumeRequest, now: ResumeRequest): string[] {
  const differences: string[] = [];
  const same = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);
  if (saved.format !== now.format) differences.push(`it was ${saved.format}, this run writes ${now.format}`);
  if (!same(saved.columns, now.columns))
    differences.push(`its columns were ${saved.columns.join(",")}, this run asks for ${now.columns.join(",")}`);
  if (!same(saved.query, now.query))
    differences.push(`its query was ${JSON.stringify(saved.query)}, this run's is ${JSON.stringify(now.query)}`);
  if (saved.maxItems !== now.maxItems)
    differences.push(`its maximum was ${saved.maxItems ?? "none"}, this run's is ${now.maxItems ?? "none"}`);
  if (saved.platform !== now.platform)
    differences.push(`it read from ${saved.platform}, this run reads from ${now.platform}`);
  if (saved.account !== now.account)
    differences.push(`it read as account ${saved.account}, this run as ${now.account}`);
  for (const key of new Set([...Object.keys(saved.options), ...Object.keys(now.options)])) {
    if (!same(saved.options[key], now.options[key])) {
      differences.push(
        `its ${OPTION_WORDS[key] ?? key} was ${JSON.stringify(saved.options[key]) ?? "not set"}, this run's is ${JSON.stringify(now.options[key]) ?? "not set"}`,
      );
    }
  }
  return differences;
}
