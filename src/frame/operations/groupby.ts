// groupby with pandas' answers: rows whose key is missing belong to no group (dropna=True), groups
// come in the order of their keys (sort=True), count counts values that are there, and the
// statistics skip missing values (a group with none gives NaN, a sum 0). The result keeps danfo's
// shape: one row per group, the key columns first, then `<column>_<aggregation>`.
import { FrameOperationError } from "../../errors";
import { buildFrame, takeRows, type DanfoFrameLike, type FrameParts } from "./frames";
import {
  compareValues,
  dtypeOf,
  groupVariance,
  isMissing,
  keyOf,
  reductions,
  type Reduction,
  type Value,
} from "./values";

const NUMERIC = new Set(["float32", "int32", "boolean"]);
const AGGREGATIONS = Object.keys(reductions) as Reduction[];

/** `df.groupby([...])`: aggregations give one row per group. */
export class FrameGroupBy {
  private readonly groups: number[][];

  constructor(
    private readonly parts: FrameParts,
    private readonly keys: string[],
    private readonly selected?: string[],
  ) {
    this.groups = groupRows(
      parts,
      keys.map((k) => parts.names.indexOf(k)),
    );
  }

  /** Restricts the aggregation to these columns. */
  col(columns: string[]): FrameGroupBy {
    for (const name of columns) {
      if (!this.parts.names.includes(name))
        throw new FrameOperationError(
          "groupby",
          `The frame has no column ${JSON.stringify(name)}; its columns are ${this.parts.names.join(", ")}.`,
        );
    }
    return new FrameGroupBy(this.parts, this.keys, columns);
  }

  count(): DanfoFrameLike {
    return this.aggregate("count");
  }
  sum(): DanfoFrameLike {
    return this.aggregate("sum");
  }
  mean(): DanfoFrameLike {
    return this.aggregate("mean");
  }
  median(): DanfoFrameLike {
    return this.aggregate("median");
  }
  min(): DanfoFrameLike {
    return this.aggregate("min");
  }
  max(): DanfoFrameLike {
    return this.aggregate("max");
  }
  std(): DanfoFrameLike {
    return this.aggregate("std");
  }
  var(): DanfoFrameLike {
    return this.aggregate("var");
  }

  /** Rows per group, in a column named `size`. */
  size(): DanfoFrameLike {
    return this.build([{ name: "size", values: this.groups.map((rows) => rows.length) }]);
  }

  /** Each column's first value that is not missing, per group (pandas' `first`). */
  first(): DanfoFrameLike {
    return this.ends("first");
  }
  /** Each column's last value that is not missing, per group (pandas' `last`). */
  last(): DanfoFrameLike {
    return this.ends("last");
  }

  /** Several aggregations at once, by column: `{ column: "mean" }` or `{ column: ["mean", "count"] }`. */
  agg(operations: Record<string, string | string[]>): DanfoFrameLike {
    const out: Array<{ name: string; values: Value[] }> = [];
    for (const [column, ops] of Object.entries(operations)) {
      const c = this.position(column);
      for (const op of [ops].flat()) {
        if (!(AGGREGATIONS as string[]).includes(op)) {
          throw new FrameOperationError(
            "agg",
            `"${op}" is not an aggregation matframe knows; use one of ${AGGREGATIONS.join(", ")}.`,
          );
        }
        out.push({ name: `${column}_${op}`, values: this.reduce(c, op as Reduction) });
      }
    }
    return this.build(out);
  }

  /** The rows of one group, with their labels. */
  getGroup(keys: Value[]): DanfoFrameLike {
    const wanted = keys.map(keyOf).join("\u0000");
    const positions = this.keys.map((k) => this.parts.names.indexOf(k));
    const rows = this.groups.find(
      (group) => positions.map((c) => keyOf(this.parts.columns[c][group[0]])).join("\u0000") === wanted,
    );
    if (!rows) throw new FrameOperationError("getGroup", `No group has the key ${JSON.stringify(keys)}.`);
    return buildFrame(takeRows(this.parts, rows));
  }

  private position(column: string): number {
    const c = this.parts.names.indexOf(column);
    if (c < 0)
      throw new FrameOperationError(
        "agg",
        `The frame has no column ${JSON.stringify(column)}; its columns are ${this.parts.names.join(", ")}.`,
      );
    return c;
  }

  /** The columns an aggregation covers: those chosen with `col`, else every other column. */
  private targets(numericOnly: boolean): number[] {
    if (this.selected) return this.selected.map((name) => this.parts.names.indexOf(name));
    return this.parts.names
      .map((name, c) => ({ name, c }))
      .filter(({ name, c }) => !this.keys.includes(name) && (!numericOnly || NUMERIC.has(this.parts.dtypes[c])))
      .map(({ c }) => c);
  }

  private reduce(c: number, op: Reduction): Value[] {
    const column = this.parts.columns[c];
    const reduce =
      op === "var"
        ? groupVariance
        : op === "std"
          ? (values: Value[]) => Math.sqrt(groupVariance(values))
          : reductions[op];
    return this.groups.map((rows) => reduce(rows.map((r) => column[r])));
  }

  private aggregate(op: Reduction): DanfoFrameLike {
    return this.build(
      this.targets(op !== "count" && op !== "min" && op !== "max").map((c) => ({
        name: `${this.parts.names[c]}_${op}`,
        values: this.reduce(c, op),
      })),
    );
  }

  private ends(which: "first" | "last"): DanfoFrameLike {
    return this.build(
      this.targets(false).map((c) => {
        const column = this.parts.columns[c];
        const values = this.groups.map((rows) => {
          const present = rows.map((r) => column[r]).filter((v) => !isMissing(v));
          return present.length === 0 ? null : present[which === "first" ? 0 : present.length - 1];
        });
        return { name: this.parts.names[c], values, dtype: this.parts.dtypes[c] };
      }),
    );
  }

  private build(out: Array<{ name: string; values: Value[]; dtype?: string }>): DanfoFrameLike {
    const keyColumns = this.keys.map((k) => {
      const c = this.parts.names.indexOf(k);
      return {
        name: k,
        values: this.groups.map((rows) => this.parts.columns[c][rows[0]]),
        dtype: this.parts.dtypes[c],
      };
    });
    const all = [...keyColumns, ...out];
    return buildFrame({
      names: all.map((column) => column.name),
      dtypes: all.map((column) =>
        column.dtype && dtypeOf(column.values) !== "string" ? column.dtype : dtypeOf(column.values),
      ),
      columns: all.map((column) => column.values),
      index: this.groups.map((_, i) => i),
    });
  }
}

/** Row positions per group, groups in key order, rows in frame order; missing keys left out. */
function groupRows(parts: FrameParts, keyColumns: number[]): number[][] {
  const byKey = new Map<string, number[]>();
  const n = parts.index.length;
  for (let r = 0; r < n; r += 1) {
    const key = keyColumns.map((c) => parts.columns[c][r]);
    if (key.some(isMissing)) continue;
    const id = key.map(keyOf).join("\u0000");
    const rows = byKey.get(id);
    if (rows) rows.push(r);
    else byKey.set(id, [r]);
  }
  return [...byKey.values()].sort((a, b) => {
    for (const c of keyColumns) {
      const order = compareValues(parts.columns[c][a[0]], parts.columns[c][b[0]]);
      if (order !== 0) return order;
    }
    return 0;
  });
}
