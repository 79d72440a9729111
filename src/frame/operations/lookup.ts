// A frame's columns by name or position and its row labels by position, read through one check:
// a name the frame lacks is the caller's mistake and the error lists the frame's columns; a
// position out of range would be a selection checked against another frame, and is reported
// rather than read as a missing value.
import { FrameOperationError } from "../../errors";
import type { Label, Value } from "./values";

/** A frame's contents, column by column, with its row labels. */
export interface FrameParts {
  names: string[];
  /** One per column, but none at all for a frame without rows, as danfo gives them. */
  dtypes: Array<string | undefined>;
  columns: Value[][];
  index: Label[];
}

/** One column of a frame's parts. */
export interface PartsColumn {
  readonly position: number;
  readonly name: string;
  readonly values: Value[];
  /** danfo gives no dtypes for a frame without rows: then none. */
  readonly dtype: string | undefined;
}

type Named = Pick<FrameParts, "names">;

/** The position of a column, or an error that lists the frame's columns. */
export function columnPosition(parts: Named, name: unknown, operation: string): number {
  const position = parts.names.indexOf(name as string);
  if (position < 0)
    throw new FrameOperationError(
      operation,
      `The frame has no column ${JSON.stringify(name)}; its columns are ${parts.names.join(", ")}.`,
    );
  return position;
}

/** The column at `position`, which the caller found among the frame's columns. */
export function columnAt(parts: FrameParts, position: number, operation: string): PartsColumn {
  const name = parts.names[position];
  const values = parts.columns[position];
  if (name === undefined || values === undefined)
    throw new FrameOperationError(
      operation,
      `The frame has no column at position ${position}; it has ${parts.names.length} columns.`,
    );
  return { position, name, values, dtype: parts.dtypes[position] };
}

/** A column by name, or an error that lists the frame's columns. */
export function columnNamed(parts: FrameParts, name: unknown, operation: string): PartsColumn {
  return columnAt(parts, columnPosition(parts, name, operation), operation);
}

/** The row labels at these positions, in this order (one array, no copy per row). */
export function labelsAt(index: readonly Label[], positions: readonly number[], operation: string): Label[] {
  return positions.map((p) => {
    const label = index[p];
    if (label === undefined)
      throw new FrameOperationError(operation, `Row position ${p} is not in 0..${index.length - 1}.`);
    return label;
  });
}
