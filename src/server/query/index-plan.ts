import type { QueryDocument } from "./query-filter";

/**
 * The paths the platform's joins follow (a property's material and job, a record's owner, a set's
 * members) and a property's kind (`slug`, which every results table starts from), indexed in
 * every store besides `_id`: the platform's database answers them from indexes, so a results
 * table's `{"_material._id": {"$in": [...]}}` or `{"slug": {"$in": ["band_gaps"]}}` must not
 * scan here either (the first results table on a fresh server judged every property record).
 */
export const INDEXED_PATHS: readonly string[] = [
  "_id",
  "_material._id",
  "source.info.jobId",
  "owner._id",
  "inSet._id",
  "slug",
];

/** Positions (ascending) of the records holding any of `values` at `path`. */
export type IndexLookup = (path: string, values: readonly string[]) => Int32Array;

/**
 * The positions (ascending) of every record that can match `query`, read from the indexes, or
 * undefined when no indexed condition narrows it. The result is a superset: the caller still
 * judges each candidate with the whole query, so a condition read here only has to be implied by
 * the query (an `_id: {$in}` beside a `$regex`, a `$or` whose every branch is indexed).
 */
export function planCandidates(query: QueryDocument, lookup: IndexLookup): Int32Array | undefined {
  const narrowed: Int32Array[] = [];
  for (const [key, condition] of Object.entries(query)) {
    if (key === "$and" && Array.isArray(condition)) {
      for (const clause of condition) {
        const found = isDocument(clause) ? planCandidates(clause, lookup) : undefined;
        if (found) narrowed.push(found);
      }
    } else if (key === "$or" && Array.isArray(condition) && condition.length > 0) {
      const branches = condition.map((clause) => (isDocument(clause) ? planCandidates(clause, lookup) : undefined));
      if (branches.every((branch) => branch !== undefined)) narrowed.push(union(branches as Int32Array[]));
    } else if (INDEXED_PATHS.includes(key)) {
      const values = equalityValues(condition);
      if (values) narrowed.push(lookup(key, values));
    }
  }
  narrowed.sort((a, b) => a.length - b.length);
  const [smallest] = narrowed;
  if (smallest === undefined) return undefined;
  return narrowed.slice(1).reduce(intersect, smallest);
}

/**
 * The strings a field must equal under `condition`: a bare string, `{$eq: s}`, or `{$in: [s...]}`
 * (other operators beside them only narrow further). Anything else (a number, `null`, which also
 * matches a missing field, a literal sub-document) is left to the scan.
 */
function equalityValues(condition: unknown): string[] | undefined {
  if (typeof condition === "string") return [condition];
  if (!isDocument(condition)) return undefined;
  const keys = Object.keys(condition);
  if (keys.length === 0 || !keys.every((key) => key.startsWith("$"))) return undefined;
  if (typeof condition.$eq === "string") return [condition.$eq];
  const list = condition.$in;
  if (Array.isArray(list) && list.every((value) => typeof value === "string")) return list as string[];
  return undefined;
}

/** Whether an `_id` condition is only an equality or an `$in` of strings, which the id map answers exactly. */
export function exactIdLookup(condition: unknown): boolean {
  if (typeof condition === "string") return true;
  if (!isDocument(condition)) return false;
  const keys = Object.keys(condition);
  return keys.length === 1 && (keys[0] === "$eq" || keys[0] === "$in") && equalityValues(condition) !== undefined;
}

function isDocument(value: unknown): value is QueryDocument {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The positions in both ascending lists: each of the shorter one looked up in the longer. */
function intersect(shorter: Int32Array, longer: Int32Array): Int32Array {
  const kept: number[] = [];
  for (const position of shorter) {
    let low = 0;
    let high = longer.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (longer[middle]! < position) low = middle + 1;
      else high = middle;
    }
    if (longer[low] === position) kept.push(position);
  }
  return Int32Array.from(kept);
}

/** The positions in any of the ascending lists, ascending, each once. */
export function union(lists: readonly Int32Array[]): Int32Array {
  const all = new Int32Array(lists.reduce((total, list) => total + list.length, 0));
  let at = 0;
  for (const list of lists) {
    all.set(list, at);
    at += list.length;
  }
  all.sort();
  let kept = 0;
  for (let i = 0; i < all.length; i += 1) if (i === 0 || all[i] !== all[i - 1]) all[kept++] = all[i]!;
  return all.slice(0, kept);
}

/**
 * The strings a record holds at `segments`, as MongoDB reads a dotted path: through arrays at any
 * step, and each element of an array at the end. More than a query can match (an array of arrays)
 * is fine: the index only proposes candidates.
 */
export function stringsAt(value: unknown, segments: readonly string[], step: number, out: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) stringsAt(item, segments, step, out);
    return;
  }
  const segment = segments[step];
  if (segment === undefined) {
    if (typeof value === "string") out.push(value);
    return;
  }
  if (typeof value === "object" && value !== null) {
    stringsAt((value as Record<string, unknown>)[segment], segments, step + 1, out);
  }
}
