// Column operations with pandas' answers. danfo 1.2 compares and adds missing values as if they
// were 0 (JavaScript's `null < 3` is true), counts "null" as a value in valueCounts, and sorts and
// slices by labels it reads as positions. Here a missing value compares false (true for `ne`),
// makes NaN in arithmetic, is skipped by statistics and valueCounts, and sorts last; every result
// keeps the column's row labels.
import { FrameOperationError } from "../../errors";
import { buildSeries, isSeries, finish, type DanfoSeriesLike } from "./frames";
import { labelsAt } from "./lookup";
import { alignValues, ilocPositions, locPositions } from "./rows";
import { convertValues, isMissing, keyOf, reductions, sortedPositions, type Label, type Value } from "./values";

type Column = DanfoSeriesLike;
type Other = Column | Value | Value[];
type Rows = Column | Array<string | number | boolean>;

/** `other` as one value per row of `column` (a column lined up by label, one value repeated). */
function operand(column: Column, other: Other, operation: string): Value[] {
  if (isSeries(other) || Array.isArray(other))
    return alignValues(column.index, other as Column | Value[], operation, "The other column", true);
  return column.values.map(() => other);
}

function comparison(test: (order: number) => boolean, name: string) {
  return function (this: Column, other: Other): Column {
    const right = operand(this, other, name);
    const result = this.values.map((value, i) => {
      const b = right[i];
      if (isMissing(value) || isMissing(b)) return false;
      if (typeof value === "string" || typeof b === "string") {
        if (typeof value !== typeof b)
          throw new FrameOperationError(
            name,
            `${name}() compares text with a number (${JSON.stringify(value)} and ${JSON.stringify(b)}); compare text with text and numbers with numbers.`,
          );
      }
      return test(value < b ? -1 : value > b ? 1 : 0);
    });
    return buildSeries(result, this.index, "boolean");
  };
}

function equality(equal: boolean) {
  return function (this: Column, other: Other): Column {
    const right = operand(this, other, equal ? "eq" : "ne");
    // pandas: a missing value equals nothing, so eq is false and ne true there.
    const result = this.values.map((value, i) =>
      isMissing(value) || isMissing(right[i]) ? !equal : (value === right[i]) === equal,
    );
    return buildSeries(result, this.index, "boolean");
  };
}

function logical(both: boolean) {
  const name = both ? "and" : "or";
  return function (this: Column, other: Column | boolean[]): Column {
    const right = operand(this, other, name);
    const result = this.values.map((value, i) => {
      if (typeof value !== "boolean" || typeof right[i] !== "boolean") {
        throw new FrameOperationError(
          name,
          `${name}() combines masks of true and false; row ${i} holds ${JSON.stringify(value)} and ${JSON.stringify(right[i])}.`,
        );
      }
      return both ? value && right[i] : value || right[i];
    });
    return buildSeries(result, this.index, "boolean");
  };
}

function arithmetic(apply: (a: number, b: number) => number, name: string) {
  return function (this: Column, other: Other): Column {
    const right = operand(this, other, name);
    const result = this.values.map((value, i) => {
      const b = right[i];
      if (isMissing(value) || isMissing(b)) return Number.NaN;
      if (typeof value === "string" || typeof b === "string")
        throw new FrameOperationError(
          name,
          `${name}() needs numbers; this column holds text (${JSON.stringify(typeof value === "string" ? value : b)}).`,
        );
      return apply(Number(value), Number(b));
    });
    return buildSeries(result, this.index, "float32");
  };
}

function reduction(op: keyof typeof reductions) {
  return function (this: Column): number | string {
    return reductions[op](this.values);
  };
}

function pick(column: Column, positions: number[], operation: string): Column {
  return buildSeries(
    positions.map((p) => column.values[p]),
    labelsAt(column.index, positions, operation),
    column.dtype,
  );
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** numpy's round: halves to the even neighbour. */
function roundHalfEven(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  const scaled = value * factor;
  let rounded = Math.round(scaled);
  if (Math.abs(scaled % 1) === 0.5 && rounded % 2 !== 0) rounded -= 1;
  return rounded / factor;
}

export const seriesMethods = {
  gt: comparison((o) => o > 0, "gt"),
  lt: comparison((o) => o < 0, "lt"),
  ge: comparison((o) => o >= 0, "ge"),
  le: comparison((o) => o <= 0, "le"),
  eq: equality(true),
  ne: equality(false),
  and: logical(true),
  or: logical(false),
  add: arithmetic((a, b) => a + b, "add"),
  sub: arithmetic((a, b) => a - b, "sub"),
  mul: arithmetic((a, b) => a * b, "mul"),
  div: arithmetic((a, b) => a / b, "div"),

  abs(this: Column): Column {
    return buildSeries(
      this.values.map((v) => (isMissing(v) ? Number.NaN : Math.abs(Number(v)))),
      this.index,
      "float32",
    );
  },
  round(this: Column, decimals = 1): Column {
    return buildSeries(
      this.values.map((v) => (isMissing(v) ? Number.NaN : roundHalfEven(Number(v), decimals))),
      this.index,
      "float32",
    );
  },

  count: reduction("count"),
  sum: reduction("sum"),
  mean: reduction("mean"),
  median: reduction("median"),
  min: reduction("min"),
  max: reduction("max"),
  std: reduction("std"),
  var: reduction("var"),

  /** Distinct values that are not missing (pandas' nunique). */
  nUnique(this: Column): number {
    return new Set(this.values.filter((v) => !isMissing(v)).map(keyOf)).size;
  },
  /** Distinct values in order of first appearance; a missing value appears once, as null. */
  unique(this: Column): Column {
    const seen = new Set<string>();
    const values: Value[] = [];
    for (const value of this.values) {
      const key = keyOf(value);
      if (seen.has(key)) continue;
      seen.add(key);
      values.push(isMissing(value) ? null : value);
    }
    return buildSeries(values, range(values.length), this.dtype);
  },
  /** How often each value occurs, most frequent first (ties in order of first appearance); missing values are not counted. */
  valueCounts(this: Column): Column {
    const counts = new Map<string, { value: Value; count: number }>();
    for (const value of this.values) {
      if (isMissing(value)) continue;
      const entry = counts.get(keyOf(value));
      if (entry) entry.count += 1;
      else counts.set(keyOf(value), { value, count: 1 });
    }
    // Most frequent first, ties in the order first seen (sort is stable), as pandas' value_counts.
    const entries = [...counts.values()].sort((a, b) => b.count - a.count);
    return buildSeries(
      entries.map((e) => e.count),
      entries.map((e) => e.value as Label),
      "int32",
    );
  },

  sortValues(this: Column, options: { ascending?: boolean; inplace?: boolean } = {}): Column | undefined {
    return finish(this, options, pick(this, sortedPositions(this.values, options.ascending ?? true), "sortValues"));
  },
  head(this: Column, rows = 5): Column {
    const n = this.values.length;
    return pick(this, range(n).slice(0, rows < 0 ? Math.max(n + rows, 0) : rows), "head");
  },
  tail(this: Column, rows = 5): Column {
    const n = this.values.length;
    return pick(this, rows < 0 ? range(n).slice(-rows) : range(n).slice(Math.max(n - rows, 0)), "tail");
  },
  iloc(this: Column, rows: Rows): Column {
    return pick(this, ilocPositions(rows, this.index), "iloc");
  },
  loc(this: Column, rows: Rows): Column {
    return pick(this, locPositions(rows, this.index), "loc");
  },
  isNa(this: Column): Column {
    return buildSeries(this.values.map(isMissing), this.index, "boolean");
  },
  dropNa(this: Column, options?: { inplace?: boolean }): Column | undefined {
    return finish(
      this,
      options,
      pick(
        this,
        range(this.values.length).filter((i) => !isMissing(this.values[i])),
        "dropNa",
      ),
    );
  },
  /** The column converted to another dtype; a missing value stays missing. */
  asType(this: Column, dtype: string, options?: { inplace?: boolean }): Column | undefined {
    return finish(this, options, buildSeries(convertValues(this.values, dtype, "The column"), this.index, dtype));
  },
  fillNa(this: Column, value: Value, options?: { inplace?: boolean }): Column | undefined {
    return finish(
      this,
      options,
      buildSeries(
        this.values.map((v) => (isMissing(v) ? value : v)),
        this.index,
      ),
    );
  },
};
