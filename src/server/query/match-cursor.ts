import type { RecordPredicate } from "./query-filter";
import { type ScanBudget, scanRange } from "./scan";

/** A record as the store keeps it (the store's `StoredRecord`, named here by shape: the store imports this file). */
type StoredRecord = { _id: string } & Record<string, unknown>;

/**
 * The matches of one query in `_id` order (or reverse), found lazily: a walk that asks for page
 * after page continues where the previous page stopped scanning, so every page costs about the
 * same, whatever its `skip`.
 */
export class MatchCursor {
  private matches = new Int32Array(1024);
  private found = 0;
  private nextIndex: number;
  private queue: Promise<unknown> = Promise.resolve();

  /** How many slots the cursor walks: every record, or only the candidates an index chose. */
  private readonly length: number;

  constructor(
    private readonly predicate: RecordPredicate,
    private readonly records: readonly StoredRecord[],
    private readonly direction: 1 | -1,
    private readonly candidates?: Int32Array,
  ) {
    this.length = candidates ? candidates.length : records.length;
    this.nextIndex = direction === 1 ? 0 : this.length - 1;
  }

  /** The record position at one slot of the walk (a slot is always below `this.length`). */
  private positionAt(slot: number): number {
    return this.candidates ? this.candidates[slot]! : slot;
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
    if (this.direction === 1) return this.nextIndex >= this.length || this.positionAt(this.nextIndex) >= position;
    return this.nextIndex < 0 || this.positionAt(this.nextIndex) <= position;
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
      const before = this.direction === 1 ? this.matches[middle]! < position : this.matches[middle]! > position;
      if (before) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private async scanUntil(wanted: number, budget: ScanBudget): Promise<void> {
    const end = this.direction === 1 ? this.length : -1;
    if (this.found >= wanted || this.nextIndex === end) return;
    await scanRange(
      this.nextIndex,
      end,
      (slot) => {
        const index = this.positionAt(slot);
        budget.judged += 1;
        // Advanced only once the record is judged, so a failure never skips it.
        if (this.predicate(this.records[index]!)) this.push(index);
        this.nextIndex = slot + this.direction;
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
