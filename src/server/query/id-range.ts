import type { QueryDocument } from "./query-filter";

/** Bounds on `_id` read from a query, as a half-open range of positions in the sorted ids. */
export interface IdRange {
  from: number;
  to: number;
  /** The query without the `_id` conditions the range already enforces. */
  residual: QueryDocument;
}

interface Bounds {
  lower?: { value: string; inclusive: boolean };
  upper?: { value: string; inclusive: boolean };
}

/**
 * Reads `_id` conditions at the top level of a query (or inside a top-level `$and`), such as the
 * keyset paging query `{"_id": {"$gt": "<last id>"}}`, so the store can binary-search to the
 * start instead of scanning from the first record. Conditions it does not understand stay in
 * `residual` and are evaluated as usual.
 */
export function readIdRange(query: QueryDocument, sortedIds: readonly string[]): IdRange {
  const bounds: Bounds = {};
  const residual = stripIdConditions(query, bounds);
  let from = 0;
  let to = sortedIds.length;
  if (bounds.lower) {
    from = bounds.lower.inclusive
      ? lowerBound(sortedIds, bounds.lower.value)
      : upperBound(sortedIds, bounds.lower.value);
  }
  if (bounds.upper) {
    to = bounds.upper.inclusive ? upperBound(sortedIds, bounds.upper.value) : lowerBound(sortedIds, bounds.upper.value);
  }
  return { from, to: Math.max(from, to), residual: unwrapLoneAnd(residual) };
}

/**
 * `{$and: [q]}`, what is left of a keyset page's `{$and: [q, {_id: {$gt: last}}]}`, is `q`: one
 * spelling, so the page finds the matches a walk of `q` has kept (see `MaterialStore`).
 */
function unwrapLoneAnd(query: QueryDocument): QueryDocument {
  const clauses = query.$and;
  if (Object.keys(query).length !== 1 || !Array.isArray(clauses) || clauses.length !== 1) return query;
  const [only] = clauses;
  return only !== null && typeof only === "object" && !Array.isArray(only)
    ? unwrapLoneAnd(only as QueryDocument)
    : query;
}

function stripIdConditions(query: QueryDocument, bounds: Bounds): QueryDocument {
  const residual: QueryDocument = {};
  for (const [key, value] of Object.entries(query)) {
    if (key === "_id" && applyIdCondition(value, bounds)) continue;
    if (key === "$and" && Array.isArray(value)) {
      const rest = value
        .map((clause) => stripIdConditions(clause as QueryDocument, bounds))
        .filter((clause) => Object.keys(clause).length > 0);
      if (rest.length > 0) residual.$and = rest;
      continue;
    }
    residual[key] = value;
  }
  return residual;
}

/** Narrows `bounds` by one `_id` condition; false when the condition is not a plain string range. */
function applyIdCondition(condition: unknown, bounds: Bounds): boolean {
  if (typeof condition === "string") {
    tighten(bounds, "$gte", condition);
    tighten(bounds, "$lte", condition);
    return true;
  }
  if (typeof condition !== "object" || condition === null || Array.isArray(condition)) return false;
  const entries = Object.entries(condition);
  const understood = entries.every(
    ([op, value]) => ["$gt", "$gte", "$lt", "$lte", "$eq"].includes(op) && typeof value === "string",
  );
  if (!understood || entries.length === 0) return false;
  for (const [op, value] of entries) {
    if (op === "$eq") {
      tighten(bounds, "$gte", value as string);
      tighten(bounds, "$lte", value as string);
    } else {
      tighten(bounds, op, value as string);
    }
  }
  return true;
}

function tighten(bounds: Bounds, op: string, value: string): void {
  const inclusive = op === "$gte" || op === "$lte";
  if (op === "$gt" || op === "$gte") {
    const current = bounds.lower;
    if (!current || value > current.value || (value === current.value && !inclusive)) {
      bounds.lower = { value, inclusive };
    }
  } else {
    const current = bounds.upper;
    if (!current || value < current.value || (value === current.value && !inclusive)) {
      bounds.upper = { value, inclusive };
    }
  }
}

/** First position whose id is >= value (`mid` stays below `hi` <= ids.length, hence the `!`). */
function lowerBound(ids: readonly string[], value: string): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First position whose id is > value. */
function upperBound(ids: readonly string[], value: string): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
