import type { PlatformRecord } from "../platform-record";

/**
 * Index of the first record whose `_id` is not strictly after its predecessor (or after
 * `after`, for the first record), else -1. Pages sorted by `_id` must pass this: keyset paging
 * checks the cursor with it, offset paging the sort within each page.
 */
export function firstOutOfOrder(records: readonly PlatformRecord[], after?: string): number {
  let previous = after;
  for (let i = 0; i < records.length; i++) {
    const id = records[i]!._id;
    if (previous !== undefined && !(id > previous)) return i;
    previous = id;
  }
  return -1;
}
