// Cell-level rules shared by matframe's frame and column operations, written to give pandas'
// answers: a missing value is null, undefined or NaN (pandas' isna); it compares false with
// everything (true for `ne`), sorts last whichever the direction (na_position="last"), and is
// skipped by counts and statistics (skipna=True).
import { FrameOperationError } from "../../errors";

/** A row label: a position after a fresh build, or whatever a sort or filter kept. */
export type Label = string | number;

/** A cell as danfo hands it out. */
export type Value = number | string | boolean | null | undefined;

/** Whether a value is missing, as pandas' `isna` sees it. */
export function isMissing(value: unknown): value is null | undefined {
  return value === null || value === undefined || (typeof value === "number" && Number.isNaN(value));
}

/**
 * Orders two values that are not missing: numbers (and booleans) by value, text by code point
 * (Python's order for the characters materials use), numbers before text in a mixed column.
 */
export function compareValues(a: Value, b: Value): number {
  const aText = typeof a === "string";
  const bText = typeof b === "string";
  if (aText !== bText) return aText ? 1 : -1;
  if (aText) return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
  return Number(a) - Number(b);
}

/**
 * The positions of `values` in sorted order: stable (ties keep their order, pandas'
 * `kind="stable"`), missing values last in either direction.
 */
export function sortedPositions(values: readonly Value[], ascending: boolean): number[] {
  const positions = values.map((_, i) => i);
  const sign = ascending ? 1 : -1;
  return positions.sort((i, j) => {
    const a = values[i];
    const b = values[j];
    const aMissing = isMissing(a);
    const bMissing = isMissing(b);
    if (aMissing || bMissing) return aMissing === bMissing ? i - j : aMissing ? 1 : -1;
    return sign * compareValues(a, b) || i - j;
  });
}

/** The dtype danfo should give a column of these values (the rules of the frame's builder). */
export function dtypeOf(values: readonly Value[]): string {
  let numbers = 0;
  let integers = 0;
  let booleans = 0;
  let missing = 0;
  for (const value of values) {
    if (isMissing(value)) missing += 1;
    else if (typeof value === "number") {
      numbers += 1;
      if (Number.isInteger(value) && Math.abs(value) < 2 ** 31) integers += 1;
    } else if (typeof value === "boolean") booleans += 1;
    else return "string";
  }
  if (booleans > 0) return numbers > 0 ? "string" : "boolean";
  return numbers > 0 && integers === numbers && missing === 0 ? "int32" : "float32";
}

/** Numbers of a column for a statistic (booleans count as 0 and 1, as in pandas); text refused. */
export function numbersOf(values: readonly Value[], operation: string): number[] {
  const numbers: number[] = [];
  for (const value of values) {
    if (isMissing(value)) continue;
    if (typeof value === "string") {
      throw new FrameOperationError(
        operation,
        `${operation}() needs numbers, and this column holds text (e.g. "${value}"). Pick a numeric column, or count the values with count() or valueCounts().`,
      );
    }
    numbers.push(Number(value));
  }
  return numbers;
}

/** pandas' reductions with skipna: the sum of nothing is 0, the mean/min/max/median of nothing NaN. */
export const reductions = {
  count: (values: readonly Value[]): number => values.filter((v) => !isMissing(v)).length,
  sum: (values: readonly Value[]): number => numbersOf(values, "sum").reduce((total, x) => total + x, 0),
  mean(values: readonly Value[]): number {
    const xs = numbersOf(values, "mean");
    return xs.length === 0 ? Number.NaN : xs.reduce((total, x) => total + x, 0) / xs.length;
  },
  median(values: readonly Value[]): number {
    const xs = numbersOf(values, "median").sort((a, b) => a - b);
    const mid = xs.length >> 1;
    const upper = xs[mid];
    if (upper === undefined) return Number.NaN; // no numbers
    // An even count has at least two numbers here, so the one below the middle is there.
    return xs.length % 2 ? upper : (xs[mid - 1]! + upper) / 2;
  },
  min: (values: readonly Value[]): number | string => extreme(values, -1),
  max: (values: readonly Value[]): number | string => extreme(values, 1),
  var(values: readonly Value[]): number {
    const xs = numbersOf(values, "var");
    if (xs.length < 2) return Number.NaN; // ddof=1, as pandas
    const mean = xs.reduce((total, x) => total + x, 0) / xs.length;
    return xs.reduce((total, x) => total + (x - mean) ** 2, 0) / (xs.length - 1);
  },
  std: (values: readonly Value[]): number => Math.sqrt(reductions.var(values)),
} as const;

/**
 * A group's variance as pandas' groupby finds it (Welford's running update, so a group of equal
 * values gives exactly 0, where the two-pass formula of a column's `var` can leave 1e-33).
 */
export function groupVariance(values: readonly Value[]): number {
  let count = 0;
  let mean = 0;
  let squares = 0;
  for (const x of numbersOf(values, "var")) {
    count += 1;
    const before = mean;
    mean += (x - before) / count;
    squares += (x - before) * (x - mean);
  }
  return count < 2 ? Number.NaN : squares / (count - 1);
}

/** The name of a reduction pandas and matframe both give. */
export type Reduction = keyof typeof reductions;

function extreme(values: readonly Value[], sign: 1 | -1): number | string {
  let best: Value;
  for (const value of values) {
    if (isMissing(value)) continue;
    const v = typeof value === "boolean" ? Number(value) : value;
    if (best === undefined || sign * compareValues(v, best) > 0) best = v;
  }
  return best === undefined ? Number.NaN : (best as number | string);
}

/** A key for a map of values, so that 1 and "1" stay apart. */
export function keyOf(value: Value): string {
  return isMissing(value) ? "missing" : `${typeof value}:${String(value)}`;
}

const CONVERSIONS: Record<string, (v: Exclude<Value, null | undefined>) => Value> = {
  float32: (v) => (typeof v === "string" && v.trim() === "" ? Number.NaN : Number(v)),
  int32: (v) => Math.trunc(Number(v)),
  string: (v) => String(v),
  boolean: (v) => (typeof v === "string" ? v.trim().toLowerCase() === "true" : Boolean(v)),
};

/**
 * Values converted to a dtype, as pandas' astype would: a missing value stays missing (danfo
 * wrote "null"), text that is not a number and missing values in an int32 column are refused.
 */
export function convertValues(values: readonly Value[], dtype: string, what: string): Value[] {
  const convert = CONVERSIONS[dtype];
  if (!convert)
    throw new FrameOperationError(
      "asType",
      `asType converts to float32, int32, string or boolean, not ${JSON.stringify(dtype)}.`,
    );
  return values.map((v) => {
    if (isMissing(v)) {
      if (dtype === "int32")
        throw new FrameOperationError(
          "asType",
          `${what} has missing values, which an int32 column cannot hold (pandas refuses too); fill them first with fillNa, or convert to float32.`,
        );
      return null;
    }
    const converted = convert(v);
    if (typeof converted === "number" && Number.isNaN(converted)) {
      throw new FrameOperationError(
        "asType",
        `${what} holds ${JSON.stringify(v)}, which is not a number (pandas refuses it too); fix or drop those rows first.`,
      );
    }
    return converted;
  });
}
