import { readIdRange } from "../query/id-range";
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

/** How many compiled queries (and sorted orders) are kept for walks that come back for more. */
const CACHE_ENTRIES = 32;

/**
 * The matches of one query in `_id` order (or reverse), found lazily: a walk that asks for page
 * after page continues where the previous page stopped scanning, so every page costs about the
 * same, whatever its `skip`.
 */
class MatchCursor {
  private matches = new Int32Array(1024);
  private found = 0;
  private nextIndex: number;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly predicate: RecordPredicate,
    private readonly records: readonly StoredRecord[],
    private readonly direction: 1 | -1,
  ) {
    this.nextIndex = direction === 1 ? 0 : records.length - 1;
  }

  /** Positions of matches `skip` to `skip + limit`, scanning further only if needed. */
  page(skip: number, limit: number, budget: ScanBudget): Promise<Int32Array> {
    // Requests for the same walk run one at a time, so two pages never scan the same stretch.
    const result = this.queue.then(async () => {
      await this.scanUntil(skip + limit, budget);
      return this.matches.slice(Math.min(skip, this.found), Math.min(skip + limit, this.found));
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Whether every record before `position`, in the cursor's direction, has been judged. */
  covers(position: number): boolean {
    return this.direction === 1 ? this.nextIndex >= position : this.nextIndex <= position;
  }

  /**
   * A keyset page: the matches at or past `position` (in the cursor's direction), `skip` then
   * `limit` of them, scanning further only if needed. For a cursor that `covers(position)`.
   */
  pageFrom(position: number, skip: number, limit: number, budget: ScanBudget): Promise<Int32Array> {
    const result = this.queue.then(async () => {
      const first = this.firstAt(position) + skip;
      await this.scanUntil(first + limit, budget);
      return this.matches.slice(Math.min(first, this.found), Math.min(first + limit, this.found));
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** The number of matches found before `position`, in the cursor's direction (a binary search). */
  private firstAt(position: number): number {
    let low = 0;
    let high = this.found;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const before = this.direction === 1 ? this.matches[middle] < position : this.matches[middle] > position;
      if (before) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private async scanUntil(wanted: number, budget: ScanBudget): Promise<void> {
    const end = this.direction === 1 ? this.records.length : -1;
    if (this.found >= wanted || this.nextIndex === end) return;
    await scanRange(
      this.nextIndex,
      end,
      (index) => {
        // Advanced only once the record is judged, so a failure never skips it.
        if (this.predicate(this.records[index])) this.push(index);
        this.nextIndex = index + this.direction;
        return this.found < wanted;
      },
      budget,
    );
  }

  private push(index: number): void {
    if (this.found === this.matches.length) {
      const grown = new Int32Array(this.matches.length * 2);
      grown.set(this.matches);
      this.matches = grown;
    }
    this.matches[this.found] = index;
    this.found += 1;
  }
}

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
    const byIdOnly = request.sort.length === 0 || (request.sort.length === 1 && request.sort[0].path === "_id");
    const positions = byIdOnly
      ? await this.findInIdOrder(request, request.sort[0]?.direction ?? 1, budget)
      : await this.findSorted(request, budget);
    return Array.from(positions, (index) => this.records[index]);
  }

  private async findInIdOrder(
    request: PageRequest,
    direction: 1 | -1,
    budget: ScanBudget,
  ): Promise<Int32Array | number[]> {
    const { skip, limit } = request;
    const range = readIdRange(request.query, this.ids);
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
        cursor = new MatchCursor(compileQuery(range.residual), this.records, direction);
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
    const predicate = compileQuery(range.residual);
    const page: number[] = [];
    let skipped = 0;
    const [from, to] = direction === 1 ? [range.from, range.to] : [range.to - 1, range.from - 1];
    await scanRange(
      from,
      to,
      (index) => {
        if (!predicate(this.records[index])) return true;
        if (skipped < skip) skipped += 1;
        else page.push(index);
        return page.length < limit;
      },
      budget,
    );
    return page;
  }

  private async findSorted(request: PageRequest, budget: ScanBudget): Promise<Int32Array> {
    const range = readIdRange(request.query, this.ids);
    const bounded = range.from !== 0 || range.to !== this.records.length;
    const key = `${JSON.stringify(request.sort)}|${JSON.stringify(range.residual)}`;
    let order = bounded ? undefined : this.sortedOrders.get(key);
    if (!order) {
      order = this.buildSortedOrder(range.residual, range.from, range.to, request.sort, budget);
      if (!bounded) {
        this.sortedOrders.set(key, order);
        // A failed build (bad query, budget spent) must not be served from the cache.
        order.catch(() => this.sortedOrders.delete(key));
      }
    }
    const sorted = await order;
    return sorted.slice(Math.min(request.skip, sorted.length), request.skip + request.limit);
  }

  /** Every match in [from, to) ordered by `sort`, ties broken by `_id` (the position). */
  private async buildSortedOrder(
    query: QueryDocument,
    from: number,
    to: number,
    sort: SortKey[],
    budget: ScanBudget,
  ): Promise<Int32Array> {
    const predicate = Object.keys(query).length === 0 ? undefined : compileQuery(query);
    const keyed = sort.map((key) => ({ ...key, segments: key.path.split(".") }));
    const matches: number[] = [];
    const keys: unknown[][] = [];
    // Sort keys are read during the time-sliced scan, so the synchronous sort below only compares.
    await scanRange(
      from,
      to,
      (index) => {
        const record = this.records[index];
        if (!predicate || predicate(record)) {
          matches.push(index);
          keys.push(keyed.map((key) => sortValue(record, key)));
        }
        return true;
      },
      budget,
    );
    const order = Array.from(matches.keys());
    order.sort((a, b) => compareKeys(keys[a], keys[b], sort) || matches[a] - matches[b]);
    return Int32Array.from(order, (i) => matches[i]);
  }
}
