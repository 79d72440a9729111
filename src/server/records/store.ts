import { channel } from "node:diagnostics_channel";
import { type IdRange, readIdRange } from "../query/id-range";
import { exactIdLookup, planCandidates } from "../query/index-plan";
import { FieldIndexes } from "../query/field-indexes";
import { MatchCursor } from "../query/match-cursor";
import { LruCache } from "../../lru-cache";
import { compileQuery, type QueryDocument, type RecordPredicate } from "../query/query-filter";
import type { SortKey } from "../query/projection";
import { ScanBudget, scanRange } from "../query/scan";
import { compareKeys, sortValue } from "../query/sort-order";

/** A record as the store keeps it: any JSON object with a string `_id`. */
export type StoredRecord = { _id: string } & Record<string, unknown>;

/** One page request, already validated. */
export interface PageRequest {
  query: QueryDocument;
  sort: SortKey[];
  skip: number;
  limit: number;
}

/**
 * Published after every `find` of every store, when something listens: how many records the
 * query judged and whether an index chose them (`plan: "index"`) or a scan did. Tests count the
 * records judged through it; nothing else depends on it.
 */
export const FIND_CHANNEL = "matframe:server:find";
const findChannel = channel(FIND_CHANNEL);

/** What {@link FIND_CHANNEL} carries. */
export interface FindReport {
  size: number;
  judged: number;
  /** `index`: the join indexes chose; `range`: a binary search on `_id`; `scan`: every record; `none`: no filter. */
  plan: "index" | "range" | "scan" | "none";
}

/** How many compiled queries (and sorted orders) are kept for walks that come back for more. */
const CACHE_ENTRIES = 32;

/** The longest string in any record, visiting objects shared between records once. */
export function longestStringIn(records: readonly object[]): number {
  const seen = new Set<object>();
  let longest = 0;
  const visit = (value: unknown): void => {
    if (typeof value === "string") {
      if (value.length > longest) longest = value.length;
    } else if (typeof value === "object" && value !== null && !seen.has(value)) {
      seen.add(value);
      if (Array.isArray(value)) for (const item of value) visit(item);
      else for (const key in value) visit((value as Record<string, unknown>)[key]);
    }
  };
  records.forEach(visit);
  return longest;
}

/** Options of a {@link MaterialStore}. */
export interface StoreOptions {
  /** CPU milliseconds one request may spend scanning. */
  scanBudgetMs?: number;
  /** The longest string in the records, when the caller knows it more cheaply than a full walk. */
  longestString?: number;
}

/**
 * The materials, kept sorted by `_id`, and the paging rule over them. A query is compiled once
 * per request (or once per walk, when cached) and scanning stops as soon as the page is full;
 * mingo's `find().skip().limit()` would scan the whole collection for every page.
 */
export class MaterialStore {
  private readonly records: StoredRecord[];
  private readonly ids: string[];
  private readonly positions = new Map<string, number>();
  private readonly cursors = new LruCache<string, MatchCursor>(CACHE_ENTRIES);
  private readonly sortedOrders = new LruCache<string, Promise<Int32Array>>(CACHE_ENTRIES);
  private readonly indexes: FieldIndexes;
  private longest: number | undefined;

  private readonly scanBudgetMs: number | undefined;

  constructor(records: readonly StoredRecord[], options: StoreOptions = {}) {
    this.scanBudgetMs = options.scanBudgetMs;
    this.longest = options.longestString;
    this.records = [...records].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
    this.ids = this.records.map((record) => record._id);
    this.ids.forEach((id, index) => {
      this.positions.set(id, index);
    });
    this.indexes = new FieldIndexes(this.records, this.positions);
  }

  /** Length of the longest string anywhere in the records: what a `$regex` may have to scan. */
  get longestString(): number {
    this.longest ??= longestStringIn(this.records);
    return this.longest;
  }

  get size(): number {
    return this.records.length;
  }

  /** The record at this position in `_id` order, or undefined past the end. */
  at(index: number): StoredRecord | undefined {
    return this.records[index];
  }

  /** The record with this `_id`, or undefined. */
  get(id: string): StoredRecord | undefined {
    const index = this.positions.get(id);
    return index === undefined ? undefined : this.records[index];
  }

  /** The records of one page, in order, unprojected. Throws a 400 `HttpError` for a bad query. */
  async find(request: PageRequest): Promise<StoredRecord[]> {
    const budget = new ScanBudget(this.scanBudgetMs);
    const byIdOnly = request.sort.length === 0 || (request.sort.length === 1 && request.sort[0]?.path === "_id");
    // The plan: `_id` bounds first (a binary search), then the indexed equalities, and only
    // what neither narrows is scanned.
    const range = readIdRange(request.query, this.ids);
    const candidates = planCandidates(range.residual, (path, values) => this.indexes.lookup(path, values));
    const positions = byIdOnly
      ? await this.findInIdOrder(request, request.sort[0]?.direction ?? 1, budget, range, candidates)
      : await this.findSorted(request, budget, range, candidates);
    if (findChannel.hasSubscribers) {
      const bounded = range.from !== 0 || range.to !== this.records.length;
      const filtered = Object.keys(range.residual).length > 0;
      const plan = candidates ? "index" : bounded ? "range" : filtered ? "scan" : "none";
      findChannel.publish({ size: this.records.length, judged: budget.judged, plan } satisfies FindReport);
    }
    // Every position is a slot of this.records, found by the plan above.
    return Array.from(positions, (index) => this.records[index]!);
  }

  /** The slots `[from, to)` of the walk over `candidates` (or every record) that lie in the range. */
  private slotsIn(range: IdRange, candidates: Int32Array | undefined): [number, number] {
    if (!candidates) return [range.from, range.to];
    return [lowerBoundOf(candidates, range.from), lowerBoundOf(candidates, range.to)];
  }

  private async findInIdOrder(
    request: PageRequest,
    direction: 1 | -1,
    budget: ScanBudget,
    range: IdRange,
    candidates: Int32Array | undefined,
  ): Promise<Int32Array | number[]> {
    const { skip, limit } = request;
    const unbounded = range.from === 0 && range.to === this.records.length;
    const unfiltered = Object.keys(range.residual).length === 0;
    if (unfiltered) {
      // No predicate left: the page is a slice of the sorted ids.
      const count = range.to - range.from;
      const start = Math.min(skip, count);
      const end = Math.min(skip + limit, count);
      const page: number[] = [];
      for (let i = start; i < end; i += 1) page.push(direction === 1 ? range.from + i : range.to - 1 - i);
      return page;
    }
    const key = `${direction}|${JSON.stringify(range.residual)}`;
    // A scan that failed (an evaluation error, the budget spent) is never resumed by a later
    // request: the next one starts a fresh cursor.
    const forgetOnFailure = (used: MatchCursor) => (error: unknown) => {
      if (this.cursors.get(key) === used) this.cursors.delete(key);
      throw error;
    };
    if (unbounded) {
      let cursor = this.cursors.get(key);
      if (!cursor) {
        cursor = new MatchCursor(judgeOf(range.residual, candidates), this.records, direction, candidates);
        this.cursors.set(key, cursor);
      }
      return cursor.page(skip, limit, budget).catch(forgetOnFailure(cursor));
    }
    // A keyset page (`_id` past a cursor, no bound at the far end) goes on with the matches kept
    // for its query when a walk has already judged every record before its start: a keyset walk
    // then fills the kept matches as an offset walk does, and later walks read them.
    const open = direction === 1 ? range.to === this.records.length : range.from === 0;
    const start = direction === 1 ? range.from : range.to - 1;
    const warm = open ? this.cursors.get(key) : undefined;
    if (warm?.covers(start)) return warm.pageFrom(start, skip, limit, budget).catch(forgetOnFailure(warm));
    // Keyset pages (an _id bound plus a query): start at the bound, stop when the page is full.
    const predicate = judgeOf(range.residual, candidates);
    const page: number[] = [];
    let skipped = 0;
    const [first, end] = this.slotsIn(range, candidates);
    const [from, to] = direction === 1 ? [first, end] : [end - 1, first - 1];
    await scanRange(
      from,
      to,
      (slot) => {
        // scanRange hands slots inside [from, to), bounds of candidates or of the records.
        const index = candidates ? candidates[slot]! : slot;
        budget.judged += 1;
        if (!predicate(this.records[index]!)) return true;
        if (skipped < skip) skipped += 1;
        else page.push(index);
        return page.length < limit;
      },
      budget,
    );
    return page;
  }

  private async findSorted(
    request: PageRequest,
    budget: ScanBudget,
    range: IdRange,
    candidates: Int32Array | undefined,
  ): Promise<Int32Array> {
    const bounded = range.from !== 0 || range.to !== this.records.length;
    const key = `${JSON.stringify(request.sort)}|${JSON.stringify(range.residual)}`;
    let order = bounded ? undefined : this.sortedOrders.get(key);
    if (!order) {
      const [from, to] = this.slotsIn(range, candidates);
      order = this.buildSortedOrder(range.residual, from, to, candidates, request.sort, budget);
      if (!bounded) {
        this.sortedOrders.set(key, order);
        // A failed build (bad query, budget spent) must not be served from the cache.
        order.catch(() => this.sortedOrders.delete(key));
      }
    }
    const sorted = await order;
    return sorted.slice(Math.min(request.skip, sorted.length), request.skip + request.limit);
  }

  /**
   * Every match in the slots [from, to) (of `candidates`, or of every record) ordered by `sort`,
   * ties broken by `_id` (the position).
   */
  private async buildSortedOrder(
    query: QueryDocument,
    from: number,
    to: number,
    candidates: Int32Array | undefined,
    sort: SortKey[],
    budget: ScanBudget,
  ): Promise<Int32Array> {
    const predicate = Object.keys(query).length === 0 ? undefined : judgeOf(query, candidates);
    const keyed = sort.map((key) => ({ ...key, segments: key.path.split(".") }));
    const matches: number[] = [];
    const keys: unknown[][] = [];
    // Sort keys are read during the time-sliced scan, so the synchronous sort below only compares.
    await scanRange(
      from,
      to,
      (slot) => {
        // scanRange hands slots inside [from, to), bounds of candidates or of the records.
        const index = candidates ? candidates[slot]! : slot;
        const record = this.records[index]!;
        if (predicate) budget.judged += 1;
        if (!predicate || predicate(record)) {
          matches.push(index);
          keys.push(keyed.map((key) => sortValue(record, key)));
        }
        return true;
      },
      budget,
    );
    const order = Array.from(matches.keys());
    // order holds the slots of matches and keys, which have the same length.
    order.sort((a, b) => compareKeys(keys[a]!, keys[b]!, sort) || matches[a]! - matches[b]!);
    return Int32Array.from(order, (i) => matches[i]!);
  }
}

/** First slot of the ascending `positions` whose position is >= `position`. */
function lowerBoundOf(positions: Int32Array, position: number): number {
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (positions[middle]! < position) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The predicate that judges the candidates. A top-level `_id` equality or `$in` the index already
 * answered exactly (ids are strings) is left out: mingo's `$in` compares each record with the
 * whole list, which for a results table's 1,000 job ids cost more than finding them.
 */
function judgeOf(query: QueryDocument, candidates: Int32Array | undefined): RecordPredicate {
  if (!candidates || !exactIdLookup(query._id)) return compileQuery(query);
  const { _id: _answered, ...rest } = query;
  return Object.keys(rest).length === 0 ? () => true : compileQuery(rest);
}
