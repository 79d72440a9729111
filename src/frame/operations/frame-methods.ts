// The DataFrame operations matframe does itself, on the frame's columns, so that they give
// pandas' answers whatever came before them: rows keep their labels through sorts and filters,
// masks select by position (lined up by label when they come from a frame in another order),
// missing values sort last. Each returns a new frame, or with danfo's `inplace: true` changes this one.
import { FrameOperationError } from "../../errors";
import { FrameGroupBy } from "./groupby";
import { columnAt, columnNamed, columnPosition } from "./lookup";
import { alignValues, ilocPositions, locPositions, maskPositions } from "./rows";
import {
  buildFrame,
  buildSeries,
  isSeries,
  partsOf,
  finish,
  takeRows,
  type DanfoFrameLike,
  type DanfoSeriesLike,
} from "./frames";
import type { FrameParts } from "./lookup";
import { convertValues, dtypeOf, isMissing, sortedPositions, type Label, type Value } from "./values";

type Frame = DanfoFrameLike;
type RowSelection = DanfoSeriesLike | Array<string | number | boolean>;

function selectColumns(parts: FrameParts, positions: readonly number[], operation: string): FrameParts {
  const selected = positions.map((c) => columnAt(parts, c, operation));
  return {
    names: selected.map((column) => column.name),
    dtypes: selected.map((column) => column.dtype),
    columns: selected.map((column) => column.values),
    index: parts.index,
  };
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** The positions of the items that `keep` keeps. */
function positionsWhere<T>(items: readonly T[], keep: (item: T) => boolean): number[] {
  const positions: number[] = [];
  items.forEach((item, p) => {
    if (keep(item)) positions.push(p);
  });
  return positions;
}

export const frameMethods = {
  sortValues(this: Frame, column: string, options: { ascending?: boolean; inplace?: boolean } = {}): Frame | undefined {
    const parts = partsOf(this);
    const { values } = columnNamed(parts, column, "sortValues");
    return finish(
      this,
      options,
      buildFrame(takeRows(parts, sortedPositions(values, options.ascending ?? true), "sortValues")),
    );
  },

  query(this: Frame, mask: DanfoSeriesLike | boolean[], options?: { inplace?: boolean }): Frame | undefined {
    if (!isSeries(mask) && !Array.isArray(mask)) {
      throw new FrameOperationError(
        "query",
        'query takes a boolean mask, e.g. df.query(df.column("derivedProperties.density").gt(5)); danfo\'s query strings are not supported.',
      );
    }
    const parts = partsOf(this);
    return finish(
      this,
      options,
      buildFrame(takeRows(parts, maskPositions(alignValues(parts.index, mask, "query", "The mask"), "query"), "query")),
    );
  },

  head(this: Frame, rows = 5): Frame {
    const parts = partsOf(this);
    const n = parts.index.length;
    return buildFrame(takeRows(parts, range(n).slice(0, rows < 0 ? Math.max(n + rows, 0) : rows), "head"));
  },

  tail(this: Frame, rows = 5): Frame {
    const parts = partsOf(this);
    const n = parts.index.length;
    return buildFrame(
      takeRows(parts, rows < 0 ? range(n).slice(-rows) : range(n).slice(Math.max(n - rows, 0)), "tail"),
    );
  },

  iloc(this: Frame, selection: { rows?: RowSelection; columns?: Array<string | number> } = {}): Frame {
    const parts = partsOf(this);
    const rows = selection.rows === undefined ? range(parts.index.length) : ilocPositions(selection.rows, parts.index);
    const columns =
      selection.columns === undefined
        ? range(parts.names.length)
        : ilocPositions(selection.columns, parts.names, "iloc columns");
    return buildFrame(takeRows(selectColumns(parts, columns, "iloc"), rows, "iloc"));
  },

  loc(this: Frame, selection: { rows?: RowSelection; columns?: string[] } = {}): Frame {
    const parts = partsOf(this);
    const rows = selection.rows === undefined ? range(parts.index.length) : locPositions(selection.rows, parts.index);
    const columns =
      selection.columns === undefined
        ? range(parts.names.length)
        : selection.columns.map((name) => {
            if (!parts.names.includes(name) && String(name).includes(":")) {
              throw new FrameOperationError(
                "loc",
                `loc({ columns: ["${name}"] }) is a label slice, which pandas ends inclusively and danfo exclusively; list the column names instead.`,
              );
            }
            return columnPosition(parts, name, "loc");
          });
    return buildFrame(takeRows(selectColumns(parts, columns, "loc"), rows, "loc"));
  },

  resetIndex(this: Frame, options?: { inplace?: boolean }): Frame | undefined {
    const parts = partsOf(this);
    return finish(this, options, buildFrame({ ...parts, index: range(parts.index.length) }));
  },

  drop(
    this: Frame,
    options: { columns?: string | string[]; index?: Label[]; inplace?: boolean } = {},
  ): Frame | undefined {
    const parts = partsOf(this);
    if (options.columns === undefined && options.index === undefined)
      throw new FrameOperationError("drop", "drop needs { columns: [...] } or { index: [...] }: say what to drop.");
    const dropped = new Set([options.columns ?? []].flat().map((name) => columnPosition(parts, name, "drop")));
    let result = selectColumns(
      parts,
      range(parts.names.length).filter((c) => !dropped.has(c)),
      "drop",
    );
    if (options.index !== undefined) {
      const gone = new Set(locPositions(options.index, parts.index));
      result = takeRows(
        result,
        range(parts.index.length).filter((r) => !gone.has(r)),
        "drop",
      );
    }
    return finish(this, options, buildFrame(result));
  },

  dropNa(this: Frame, options: { axis?: 0 | 1; inplace?: boolean } = {}): Frame | undefined {
    const parts = partsOf(this);
    // danfo's axes: 1 (the default) drops rows with a missing value, 0 drops such columns.
    if ((options.axis ?? 1) === 0)
      return buildFrame(
        selectColumns(
          parts,
          positionsWhere(parts.columns, (column) => !column.some(isMissing)),
          "dropNa",
        ),
      );
    return finish(
      this,
      options,
      buildFrame(
        takeRows(
          parts,
          range(parts.index.length).filter((r) => !parts.columns.some((column) => isMissing(column[r]))),
          "dropNa",
        ),
      ),
    );
  },

  addColumn(
    this: Frame,
    name: string,
    values: DanfoSeriesLike | Value[],
    options: { atIndex?: number | string; inplace?: boolean } = {},
  ): Frame | undefined {
    const parts = partsOf(this);
    const column = alignValues(parts.index, values, "addColumn", `The new column "${name}"`);
    const dtype = isSeries(values) && values.dtype && values.dtype !== "string" ? values.dtype : dtypeOf(column);
    const existing = parts.names.indexOf(name);
    const names = [...parts.names];
    const dtypes = [...parts.dtypes];
    const columns = [...parts.columns];
    if (existing >= 0) {
      dtypes[existing] = dtypeOf(column) === "string" ? "string" : dtype;
      columns[existing] = column;
    } else {
      const at =
        options.atIndex === undefined
          ? names.length
          : typeof options.atIndex === "string"
            ? columnPosition(parts, options.atIndex, "addColumn")
            : options.atIndex;
      names.splice(at, 0, name);
      dtypes.splice(at, 0, dtypeOf(column) === "string" ? "string" : dtype);
      columns.splice(at, 0, column);
    }
    return finish(this, options, buildFrame({ names, dtypes, columns, index: parts.index }));
  },

  /** A copy with missing values replaced: one value everywhere, or one per column named in `columns`. */
  fillNa(
    this: Frame,
    values: Value | Value[],
    options: { columns?: string[]; inplace?: boolean } = {},
  ): Frame | undefined {
    const parts = partsOf(this);
    const targets = options.columns ?? parts.names;
    const fills = Array.isArray(values) ? values : targets.map(() => values);
    if (fills.length !== targets.length)
      throw new FrameOperationError(
        "fillNa",
        `fillNa got ${fills.length} values for ${targets.length} columns; give one value, or one per column in columns.`,
      );
    const columns = [...parts.columns];
    const dtypes = [...parts.dtypes];
    targets.forEach((name, k) => {
      // Read from the copy: a column named twice is filled by the first value given for it.
      const { position, values } = columnNamed({ ...parts, columns }, name, "fillNa");
      const filled = values.map((v) => (isMissing(v) ? fills[k] : v));
      columns[position] = filled;
      if (dtypeOf(filled) === "string") dtypes[position] = "string";
    });
    return finish(this, options, buildFrame({ ...parts, columns, dtypes }));
  },

  /** A copy with one column converted (danfo's own asType also changed the frame it was called on). */
  asType(this: Frame, column: string, dtype: string, options?: { inplace?: boolean }): Frame | undefined {
    const parts = partsOf(this);
    const { position, values } = columnNamed(parts, column, "asType");
    const columns = [...parts.columns];
    columns[position] = convertValues(values, dtype, `Column "${column}"`);
    const dtypes = [...parts.dtypes];
    dtypes[position] = dtype;
    return finish(this, options, buildFrame({ ...parts, columns, dtypes }));
  },

  /**
   * `fn` on each row's cells (axis 1, the default) or each column's values (axis 0), missing
   * values included as null, as pandas passes them (danfo drops them, which shifts the cells).
   */
  apply(this: Frame, fn: (values: unknown) => unknown, options: { axis?: 0 | 1 } = {}): unknown {
    const axis = options.axis ?? 1;
    if (axis !== 0 && axis !== 1)
      throw new FrameOperationError(
        "apply",
        `apply's axis is 1 (each row, the default) or 0 (each column), not ${JSON.stringify(axis)}.`,
      );
    const parts = partsOf(this);
    const inputs =
      axis === 1
        ? parts.index.map((_, r) => parts.columns.map((column) => column[r] ?? null))
        : parts.columns.map((column) => column.map((v) => v ?? null));
    const labels = axis === 1 ? parts.index : parts.names;
    const results = inputs.map((input) => fn(input));
    if (results.every((result) => !Array.isArray(result))) return buildSeries(results as Value[], labels);
    if (!results.every((result) => Array.isArray(result) && result.length === parts.names.length)) {
      throw new FrameOperationError(
        "apply",
        `apply's function returned a mix of single values and lists; return one value (a column of results) or one list of ${parts.names.length} values (a table) for every ${axis === 1 ? "row" : "column"}.`,
      );
    }
    const rows = results as Value[][];
    return buildFrame({
      names: parts.names,
      dtypes: parts.names.map((_, c) => dtypeOf(rows.map((row) => row[c]))),
      columns: parts.names.map((_, c) => rows.map((row) => row[c])),
      index: labels,
    });
  },

  /** One column, with the frame's row labels. */
  column(this: Frame, name: string): DanfoSeriesLike {
    const c = columnPosition({ names: this.columns }, name, "column");
    return buildSeries(
      (this.values as Value[][]).map((row) => row[c]),
      this.index,
      this.dtypes[c],
    );
  },

  groupby(this: Frame, columns: string[]): FrameGroupBy {
    const parts = partsOf(this);
    if (!Array.isArray(columns) || columns.length === 0)
      throw new FrameOperationError(
        "groupby",
        'groupby takes a list of column names, e.g. df.groupby(["method.type"]).',
      );
    return new FrameGroupBy(
      parts,
      columns.map((name) => columnNamed(parts, name, "groupby")),
    );
  },
};
