// The numbers of a distribution chart: a numeric column's values, grouped by an optional category
// column, missing values left out (and counted), anything else refused with the column named.
import { ValidationError } from "../../errors";
import { fieldValue } from "./chart";

/** Shown for rows without a group, so that they are drawn rather than dropped. */
export const NO_GROUP = "(none)";

/** The values per group (one group, "", without a `by` column), and how many rows had none. */
export interface Distribution {
  readonly groups: ReadonlyMap<string, number[]>;
  readonly missing: number;
}

/**
 * Reads `column` (numbers; null, undefined and NaN are missing) of each record, grouped by `by`.
 * @throws ValidationError of `option` (the chart's option that names `column`), naming the column
 * and the value, when a value is neither a number nor missing, or when no row has a number.
 */
export function distributionOf(
  records: readonly Record<string, unknown>[],
  column: string,
  by: string | undefined,
  chart: string,
  option: string,
): Distribution {
  const groups = new Map<string, number[]>();
  let missing = 0;
  for (const record of records) {
    const value = fieldValue(record, column);
    if (value === null || value === undefined || (typeof value === "number" && Number.isNaN(value))) {
      missing++;
      continue;
    }
    if (typeof value !== "number" || !Number.isFinite(value))
      throw new ValidationError(
        option,
        `${chart}(): column "${column}" must hold numbers; a row has ${JSON.stringify(value)}.`,
      );
    const group = by === undefined ? "" : fieldValue(record, by);
    const name =
      by === undefined ? "" : group === null || group === undefined || group === "" ? NO_GROUP : String(group);
    const list = groups.get(name);
    if (list) list.push(value);
    else groups.set(name, [value]);
  }
  if (groups.size === 0)
    throw new ValidationError(
      option,
      `${chart}(): column "${column}" has no numbers in any of the ${records.length} rows.`,
    );
  return { groups, missing };
}

/** Bins of equal width over all the values: `count` bins from the smallest to the largest, the last closed. */
export function binEdges(values: readonly number[], count: number): number[] {
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    if (v < low) low = v;
    if (v > high) high = v;
  }
  if (low === high) return [low - 0.5, low + 0.5];
  const width = (high - low) / count;
  return Array.from({ length: count + 1 }, (_, i) => (i === count ? high : low + i * width));
}

/** How many values fall in each bin: [edges[i], edges[i+1]), the last bin closed as numpy's histogram. */
export function binCounts(values: readonly number[], edges: readonly number[]): number[] {
  const bins = edges.length - 1;
  const counts = new Array<number>(bins).fill(0);
  const low = edges[0]!;
  const width = (edges[bins]! - low) / bins;
  for (const v of values) {
    let i = Math.floor((v - low) / width);
    // Rounding may put a value just under an edge into the next bin: checked against the edges.
    if (i > 0 && v < edges[i]!) i--;
    if (i < bins - 1 && v >= edges[i + 1]!) i++;
    counts[Math.min(Math.max(i, 0), bins - 1)]!++;
  }
  return counts;
}
