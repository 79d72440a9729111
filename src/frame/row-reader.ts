import type { ColumnPlan } from "./column-spec";
import { compileGetter, type Getter } from "./getters";
import { isValidMethod } from "./method-check";
import { InvalidMethodError } from "../errors";

/** Something worth telling the user about the data, which did not stop the table. */
export interface FrameWarning {
  /** Stable code: `"INVALID_METHOD"` when method values failed the method schema, `"INVALID_STRUCTURE"` when a structure export skipped records. */
  readonly code: "INVALID_METHOD" | "INVALID_STRUCTURE";
  /** One line for a human, naming the path, the row count and some ids. */
  readonly message: string;
  /** Dotted path of the method object, e.g. `"method"`. */
  readonly path: string;
  /** How many rows had an invalid method there. */
  readonly rows: number;
  /** The first few of their ids (all of them when `rows` is small). */
  readonly ids: readonly string[];
}

/** Options for how rows are read. */
export interface ReadOptions {
  /**
   * Throw `InvalidMethodError` at the first method value that fails the method schema, instead
   * of giving nulls in its method columns and a warning.
   * @default false
   */
  strict?: boolean;
}

/** How many ids a warning lists. */
const LISTED_IDS = 5;

interface MethodGroup {
  readonly path: string;
  readonly get: Getter;
  typeIndex: number;
  subtypeIndex: number;
  invalid: number;
  readonly ids: string[];
}

/**
 * Reads records into rows of raw cell values, in column order: getters compiled once, method
 * objects checked once per row even when both of their columns are asked for.
 */
export class RowReader {
  readonly plan: ColumnPlan;
  /** Rows read so far. */
  rows = 0;
  private readonly strict: boolean;
  private readonly valueIndexes: number[] = [];
  private readonly valueGetters: Getter[] = [];
  private readonly groups: MethodGroup[] = [];

  constructor(plan: ColumnPlan, options: ReadOptions = {}) {
    this.plan = plan;
    this.strict = options.strict ?? false;
    plan.columns.forEach((column, index) => {
      if (!column.method) {
        this.valueIndexes.push(index);
        this.valueGetters.push(compileGetter(column.segments, column.namedEntryAt));
        return;
      }
      const { path, segments, part } = column.method;
      let group = this.groups.find((g) => g.path === path);
      if (!group) {
        group = { path, get: compileGetter(segments, column.namedEntryAt), typeIndex: -1, subtypeIndex: -1, invalid: 0, ids: [] };
        this.groups.push(group);
      }
      if (part === "type") group.typeIndex = index;
      else group.subtypeIndex = index;
    });
  }

  /** Writes the raw cells of `record` into `out` (length = number of columns); missing is `undefined`. */
  read(record: unknown, out: unknown[]): void {
    const row = this.rows++;
    for (let g = 0; g < this.groups.length; g++) {
      const group = this.groups[g];
      const method = group.get(record) as { type: string; subtype: string } | null | undefined;
      let type: string | undefined;
      let subtype: string | undefined;
      if (method !== undefined && method !== null) {
        if (isValidMethod(method)) {
          type = method.type;
          subtype = method.subtype;
        } else {
          this.invalid(group, record, row);
        }
      }
      if (group.typeIndex >= 0) out[group.typeIndex] = type;
      if (group.subtypeIndex >= 0) out[group.subtypeIndex] = subtype;
    }
    const indexes = this.valueIndexes;
    const getters = this.valueGetters;
    for (let i = 0; i < getters.length; i++) out[indexes[i]] = getters[i](record);
  }

  /** One warning per method path that had invalid values; empty when all were valid. */
  warnings(): FrameWarning[] {
    return this.groups
      .filter((group) => group.invalid > 0)
      .map((group) => {
        const { path, invalid: rows, ids } = group;
        const more = rows - ids.length;
        const listed = ids.length === 0 ? "" : ` Ids: ${ids.join(", ")}${more > 0 ? ` and ${more} more` : ""}.`;
        const message =
          `${rows} ${rows === 1 ? "row has" : "rows have"} an invalid ${path} ("type" and "subtype" must be strings); ` +
          `${path}.type and ${path}.subtype are null there.${listed}`;
        return { code: "INVALID_METHOD", message, path, rows, ids: [...ids] };
      });
  }

  private invalid(group: MethodGroup, record: unknown, row: number): void {
    const id = (record as { _id?: unknown } | null)?._id;
    const name = typeof id === "string" ? id : undefined;
    if (this.strict) throw new InvalidMethodError(group.path, name, row);
    group.invalid++;
    if (name !== undefined && group.ids.length < LISTED_IDS) group.ids.push(name);
  }
}
