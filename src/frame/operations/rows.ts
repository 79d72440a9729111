// Which rows a selection means, as positions. danfo 1.2 turns a boolean mask into row labels and
// then reads those labels as positions (its `_iloc`), which picks the wrong rows once a sort or
// filter has reordered the labels (https://github.com/javascriptdata/danfojs/issues/498, #357,
// #74). Here a mask is positional, a label is a label, and a mask or column from a frame whose
// labels are in another order is lined up by label, as pandas aligns on the index.
import { FrameOperationError } from "../../errors";
import { isSeries, type DanfoSeriesLike } from "./frames";
import type { Label, Value } from "./values";

/**
 * `other`'s values in the order of `index`: an array by position; a column by label, as pandas
 * aligns a mask or a new column on the index (labels `index` lacks are ignored). With `exact`, a
 * column must have the same labels in the same order, as pandas asks of two columns compared.
 */
export function alignValues(
  index: readonly Label[],
  other: DanfoSeriesLike | readonly unknown[],
  operation: string,
  what: string,
  exact = false,
): Value[] {
  if (!isSeries(other)) {
    if (other.length !== index.length) {
      throw new FrameOperationError(
        operation,
        `${what} has ${other.length} values and the frame has ${index.length} rows; give one value per row.`,
      );
    }
    return other as Value[];
  }
  const values = other.values;
  const labels = other.index;
  if (labels.length === index.length && labels.every((label, i) => label === index[i])) return values;
  if (exact) {
    throw new FrameOperationError(
      operation,
      `${what} has other row labels than this column (it comes from a frame sorted or filtered differently), so pandas would refuse to compare them or reorder the result. Take both columns from the same frame, or call resetIndex() on both frames first.`,
    );
  }
  const at = uniquePositions(labels);
  const aligned: Value[] = [];
  for (const label of index) {
    const position = at?.get(label);
    if (position === undefined) {
      throw new FrameOperationError(
        operation,
        `${what} does not have a value for every row label of the frame (it was made from another frame, filtered differently), so its rows cannot be lined up. Build it from this frame's own columns, e.g. df.column("name").gt(5), or call resetIndex() on both frames before combining them.`,
      );
    }
    aligned.push(values[position]);
  }
  return aligned;
}

/** Label to position, or undefined when a label repeats. */
function uniquePositions(labels: readonly Label[]): Map<Label, number> | undefined {
  const at = new Map<Label, number>();
  let position = 0;
  for (const label of labels) {
    if (at.has(label)) return undefined;
    at.set(label, position++);
  }
  return at;
}

/** Positions where a boolean mask is true. */
export function maskPositions(mask: readonly Value[], operation: string): number[] {
  const positions: number[] = [];
  mask.forEach((value, i) => {
    if (typeof value !== "boolean") {
      throw new FrameOperationError(
        operation,
        `A mask must hold true or false in every row; row ${i} holds ${JSON.stringify(value)}. Compare a column (gt, eq, ...) or use isNa() to make a mask, and fillNa(false) on one that has missing values.`,
      );
    }
    if (value) positions.push(i);
  });
  return positions;
}

/** Python's slice `start:end` of `length` items, as positions (clipped, negatives from the end). */
function slicePositions(text: string, length: number, operation: string): number[] {
  const [startText, endText, ...more] = text.split(":");
  const bound = (part: string, fallback: number): number => {
    if (part.trim() === "") return fallback;
    const n = Number(part);
    if (!Number.isInteger(n))
      throw new FrameOperationError(
        operation,
        `"${text}" is not a slice of positions: write "start:end" with whole numbers, e.g. "0:10".`,
      );
    return Math.min(Math.max(n < 0 ? length + n : n, 0), length);
  };
  if (startText === undefined || endText === undefined || more.length > 0)
    throw new FrameOperationError(
      operation,
      `"${text}" is not a slice of positions: write "start:end" with whole numbers, e.g. "0:10".`,
    );
  const start = bound(startText, 0);
  const end = bound(endText, length);
  const positions: number[] = [];
  for (let p = start; p < end; p += 1) positions.push(p);
  return positions;
}

type Rows = DanfoSeriesLike | ReadonlyArray<string | number | boolean>;

/** `iloc`'s rows: positions (negative from the end), a boolean mask, or one `"start:end"`. */
export function ilocPositions(rows: Rows, index: readonly Label[], operation = "iloc"): number[] {
  const items = isSeries(rows) ? alignValues(index, rows, operation, "The mask") : [...rows];
  if (items.length === 1 && typeof items[0] === "string") return slicePositions(items[0], index.length, operation);
  if (items.length > 0 && items.every((item) => typeof item === "boolean")) {
    if (items.length !== index.length)
      throw new FrameOperationError(
        operation,
        `The mask has ${items.length} values and the frame has ${index.length} rows; give one per row.`,
      );
    return maskPositions(items, operation);
  }
  return items.map((item) => {
    const n = typeof item === "number" && Number.isInteger(item) ? (item < 0 ? index.length + item : item) : Number.NaN;
    if (!(n >= 0 && n < index.length)) {
      throw new FrameOperationError(
        operation,
        `Row position ${JSON.stringify(item)} is not in 0..${index.length - 1}; iloc takes whole-number positions (negative from the end), one "start:end" slice, or a boolean mask.`,
      );
    }
    return n;
  });
}

/** `loc`'s rows: labels or a boolean mask. Label slices are refused (pandas includes the end). */
export function locPositions(rows: Rows, index: readonly Label[]): number[] {
  if (isSeries(rows)) return maskPositions(alignValues(index, rows, "loc", "The mask"), "loc");
  if (rows.length > 0 && rows.every((item) => typeof item === "boolean")) {
    if (rows.length !== index.length)
      throw new FrameOperationError(
        "loc",
        `The mask has ${rows.length} values and the frame has ${index.length} rows; give one per row.`,
      );
    return maskPositions(rows, "loc");
  }
  const numeric = index.every((label) => typeof label === "number");
  const byLabel = new Map<Label, number[]>();
  index.forEach((label, p) => {
    byLabel.set(label, [...(byLabel.get(label) ?? []), p]);
  });
  const positions: number[] = [];
  for (const item of rows) {
    let label: Label = item as Label;
    if (typeof item === "string" && !index.includes(item)) {
      if (item.includes(":")) {
        throw new FrameOperationError(
          "loc",
          `loc({ rows: ["${item}"] }) is a label slice, which pandas ends inclusively and danfo exclusively; matframe does not guess. List the labels, or select by position with iloc({ rows: ["start:end"] }).`,
        );
      }
      if (numeric && item.trim() !== "" && !Number.isNaN(Number(item))) label = Number(item); // danfo reads ["3"] as label 3
    }
    const found = byLabel.get(label) ?? [];
    if (found.length === 0)
      throw new FrameOperationError(
        "loc",
        `No row is labelled ${JSON.stringify(item)}; the frame's labels run ${describeLabels(index)}. Select by position with iloc.`,
      );
    positions.push(...found);
  }
  return positions;
}

function describeLabels(index: readonly Label[]): string {
  const shown = index
    .slice(0, 5)
    .map((l) => JSON.stringify(l))
    .join(", ");
  return index.length > 5 ? `${shown}, ... (${index.length} rows)` : `${shown}`;
}
