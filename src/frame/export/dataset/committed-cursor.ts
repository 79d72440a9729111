// Where a resumed hive-partitioned export starts its walk again. Records are spread over one file
// per value, each committing its own row groups at its own pace, so no single file's cursor says
// how far the dataset got: the walk resumes after the last `_id` below which every record is
// committed in its file (each file then skips the records it already holds, up to its own cursor).
//
// A page of the walk is split among the values' writers, its records interleaved: `_id` 2 may go
// to one folder and 1 and 3 to another. So a folder's share of a page is known to lie only after
// the page before it, never after another folder's share of the same page: the walk may resume
// after a page's last `_id` only once every folder has committed its share of that page.

/** Tracks the `_id` up to which every routed record is committed in its partition's file. */
export class CommittedCursor {
  /** The last `_id` of the last walk page routed in full; undefined: none yet. */
  private last: string | undefined;
  /**
   * Per folder, its shares of pages routed and not yet committed, oldest first: the share's last
   * `_id`, and the last `_id` of the walk page before (every record of the share is after it).
   */
  private readonly pending = new Map<string, { lastId: string; before: string | undefined }[]>();

  /** @param start the `_id` the walk starts after (a resumed run's), undefined from the beginning. */
  constructor(start: string | undefined) {
    this.last = start;
  }

  /** `folder`'s share of the current walk page, records up to `lastId`, went to its writer. */
  routed(folder: string, lastId: string): void {
    let queue = this.pending.get(folder);
    if (!queue) this.pending.set(folder, (queue = []));
    queue.push({ lastId, before: this.last });
  }

  /** Every share of the walk page ending at `lastId` went to its writer (or was held already). */
  pageRouted(lastId: string): void {
    this.last = lastId;
  }

  /** `folder`'s file committed every one of its records up to `cursor`. */
  committed(folder: string, cursor: string): void {
    const queue = this.pending.get(folder);
    // _id order is the walk's keyset order, the string order the partition bounds use too.
    while (queue?.[0] && queue[0].lastId <= cursor) queue.shift();
  }

  /**
   * The `_id` after which a resumed walk must start: before the oldest page some file has not
   * committed yet (a page cut by a row group counts as not committed), else after the last page.
   * Undefined: from the beginning.
   */
  get cursor(): string | undefined {
    let cursor = this.last;
    for (const queue of this.pending.values()) {
      const [oldest] = queue;
      if (!oldest) continue;
      const before = oldest.before;
      if (before === undefined) return undefined;
      if (cursor === undefined || before < cursor) cursor = before;
    }
    return cursor;
  }
}
