import type { SortKey } from "../query/projection";
import { compareKeys, sortValue } from "../query/sort-order";
import type { MaterialStore, PageRequest, StoredRecord } from "./store";

/** The order both stores page in: by the sort keys with ties by `_id`, or by `_id` alone. */
function comparatorFor(sort: SortKey[]): (a: StoredRecord, b: StoredRecord) => number {
  const byId = (a: StoredRecord, b: StoredRecord) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
  if (sort.length === 0 || (sort.length === 1 && sort[0]?.path === "_id")) {
    const direction = sort[0]?.direction ?? 1;
    return (a, b) => byId(a, b) * direction;
  }
  const keyed = sort.map((key) => ({ ...key, segments: key.path.split(".") }));
  const keys = new Map<StoredRecord, unknown[]>();
  const keysOf = (record: StoredRecord) => {
    let found = keys.get(record);
    if (!found) keys.set(record, (found = keyed.map((key) => sortValue(record, key))));
    return found;
  };
  return (a, b) => compareKeys(keysOf(a), keysOf(b), sort) || byId(a, b);
}

/**
 * One page of the records a caller sees: the served materials (`shared`) and the caller's own
 * (`own`), in one order. The served store pages as fast as ever; the caller's few records are
 * merged in. With `m` own matches before the page's end, the page's shared records all lie at
 * shared offsets from `skip - m - 1` on, and the record there anchors the merge: own records
 * before it are counted, not fetched again.
 */
export async function findVisible(
  shared: MaterialStore,
  own: MaterialStore | undefined,
  request: PageRequest,
): Promise<StoredRecord[]> {
  if (!own) return shared.find(request);
  const { skip, limit } = request;
  const mine = await own.find({ ...request, skip: 0, limit: skip + limit });
  if (mine.length === 0) return shared.find(request);
  const from = Math.max(0, skip - mine.length - 1);
  const theirs = await shared.find({ ...request, skip: from, limit: skip + limit - from });
  const compare = comparatorFor(request.sort);
  let rank = from;
  let rest = mine;
  if (from > 0) {
    // No anchor: the shared matches end before `from`, so everything ends before `skip`.
    const [anchor] = theirs;
    if (anchor === undefined) return [];
    rest = mine.filter((record) => compare(record, anchor) > 0);
    rank += mine.length - rest.length;
  }
  const merged: StoredRecord[] = [];
  let i = 0;
  let j = 0;
  while (merged.length < skip + limit - rank) {
    const next = theirs[i];
    const other = rest[j];
    if (next !== undefined && (other === undefined || compare(next, other) < 0)) {
      merged.push(next);
      i += 1;
    } else if (other !== undefined) {
      merged.push(other);
      j += 1;
    } else break;
  }
  return merged.slice(skip - rank);
}
