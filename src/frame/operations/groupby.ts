// groupby with pandas' answers: rows whose key is missing belong to no group (dropna=True), groups
// come in the order of their keys (sort=True), count counts values that are there, and the
// statistics skip missing values (a group with none gives NaN, a sum 0). The result keeps danfo's
// shape: one row per group, the key columns first, then `<column>_<aggregation>`.
import { FrameOperationError } from "../../errors";
import { buildFrame, takeRows, type DanfoFrameLike } from "./frames";
import type { FrameParts } from "./lookup";
import { columnAt, columnNamed, type PartsColumn } from "./lookup";
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

/** A group's row positions, in frame order: a group has at least the row that made it. */
type Group = [first: number, ...rest: number[]];

/** `df.groupby([...])`: aggregations give one row per group. */
export class FrameGroupBy {
  private readonly groups: Group[];

  /** `keys`: the key columns, found in `parts` by the caller. */
  constructor(
    private readonly parts: FrameParts,
    private readonly keys: readonly PartsColumn[],
    private readonly selected?: readonly PartsColumn[],
  ) {
    this.groups = groupRows(parts.index.length, keys);
  }

  /** Restricts the aggregation to these columns. */
  col(columns: string[]): FrameGroupBy {
    return new FrameGroupBy(
      this.parts,
      this.keys,
      columns.map((name) => columnNamed(this.parts, name, "groupby")),
    );
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
    const out: Output[] = [];
    for (const [name, ops] of Object.entries(operations)) {
      const column = columnNamed(this.parts, name, "agg");
      for (const op of [ops].flat()) {
        if (!(AGGREGATIONS as string[]).includes(op)) {
          throw new FrameOperationError(
            "agg",
            `"${op}" is not an aggregation matframe knows; use one of ${AGGREGATIONS.join(", ")}.`,
          );
        }
        out.push({ name: `${name}_${op}`, values: this.reduce(column, op as Reduction) });
      }
    }
    return this.build(out);
  }

  /** The rows of one group, with their labels. */
  getGroup(keys: Value[]): DanfoFrameLike {
    const wanted = keys.map(keyOf).join("\u0000");
    const rows = this.groups.find(
      (group) => this.keys.map((key) => keyOf(key.values[group[0]])).join("\u0000") === wanted,
    );
    if (!rows) throw new FrameOperationError("getGroup", `No group has the key ${JSON.stringify(keys)}.`);
    return buildFrame(takeRows(this.parts, rows, "getGroup"));
  }

  /** The columns an aggregation covers: those chosen with `col`, else every other column. */
  private targets(numericOnly: boolean): readonly PartsColumn[] {
    if (this.selected) return this.selected;
    return this.parts.names
      .map((_, c) => columnAt(this.parts, c, "groupby"))
      .filter(
        ({ name, dtype }) =>
          !this.keys.some((key) => key.name === name) && (!numericOnly || (dtype !== undefined && NUMERIC.has(dtype))),
      );
  }

  private reduce(column: PartsColumn, op: Reduction): Value[] {
    const { values } = column;
    const reduce =
      op === "var"
        ? groupVariance
        : op === "std"
          ? (group: Value[]) => Math.sqrt(groupVariance(group))
          : reductions[op];
    return this.groups.map((rows) => reduce(rows.map((r) => values[r])));
  }

  private aggregate(op: Reduction): DanfoFrameLike {
    return this.build(
      this.targets(op !== "count" && op !== "min" && op !== "max").map((column) => ({
        name: `${column.name}_${op}`,
        values: this.reduce(column, op),
      })),
    );
  }

  private ends(which: "first" | "last"): DanfoFrameLike {
    return this.build(
      this.targets(false).map(({ name, values, dtype }) => {
        const picked = this.groups.map((rows) => {
          const present = rows.map((r) => values[r]).filter((v) => !isMissing(v));
          return present.length === 0 ? null : present[which === "first" ? 0 : present.length - 1];
        });
        return { name, values: picked, dtype };
      }),
    );
  }

  private build(out: Output[]): DanfoFrameLike {
    const keyColumns = this.keys.map(({ name, values, dtype }) => ({
      name,
      values: this.groups.map((rows) => values[rows[0]]),
      dtype,
    }));
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

/** A column of a groupby's result, before it is a frame. */
interface Output {
  name: string;
  values: Value[];
  dtype?: string | undefined;
}

/** Row positions per group, groups in key order, rows in frame order; missing keys left out. */
function groupRows(rowCount: number, keyColumns: readonly PartsColumn[]): Group[] {
  const byKey = new Map<string, Group>();
  for (let r = 0; r < rowCount; r += 1) {
    const key = keyColumns.map(({ values }) => values[r]);
    if (key.some(isMissing)) continue;
    const id = key.map(keyOf).join("\u0000");
    const group = byKey.get(id);
    if (group) group.push(r);
    else byKey.set(id, [r]);
  }
  return [...byKey.values()].sort((a, b) => {
    for (const { values } of keyColumns) {
      const order = compareValues(values[a[0]], values[b[0]]);
      if (order !== 0) return order;
    }
    return 0;
  });
}
