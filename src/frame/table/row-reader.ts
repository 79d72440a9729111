import type { SymmetryOptions } from "../../structure/symmetry";
import type { ColumnPlan } from "./column-spec";
import { compileGetter, type Getter } from "./getters";
import { isValidMethod } from "./method-check";
import { EmptyColumnError, InvalidMethodError } from "../../errors";
import { nearestPath } from "./suggest";
import { MATERIAL_PATHS } from "../../schemas";
import { UnitLabels } from "./units";
import { computedGetter, type ComputedTally } from "./computed-columns";
import { groupDigits } from "./digit-groups";

/** Something worth telling the user about the data, which did not stop the table. */
export interface FrameWarning {
  /**
   * Stable code: `"INVALID_METHOD"` when method values failed the method schema,
   * `"INVALID_STRUCTURE"` when a structure export skipped records or a computed column
   * (`matframe:spaceGroupSymbol`) is null for records without a usable structure, `"EMPTY_COLUMN"` when a
   * column is null in every row (often a misspelt path: see `suggestion`), `"QUERY_PATH"` when a
   * query path cannot match a material (reported before the request; `suggestion` is the form
   * that works), `"STALE_PARTIAL"` when an export removed the unfinished folder or temporary file a
   * killed earlier export left beside the target (or left a folder alone that names no writer;
   * `path` is that folder or file), `"NO_ATOMIC_WEIGHT"` when `derivedProperties.density` of
   * OPTIMADE structures is empty because an element of theirs has no standard atomic weight,
   * `"OFF_SPEC_VALUE"` when a Parquet export of OPTIMADE structures left empty a value the
   * provider sent where the OPTIMADE specification has an integer (`nsites: 2.5`).
   */
  readonly code:
    | "INVALID_METHOD"
    | "INVALID_STRUCTURE"
    | "EMPTY_COLUMN"
    | "QUERY_PATH"
    | "STALE_PARTIAL"
    | "NO_ATOMIC_WEIGHT"
    | "OFF_SPEC_VALUE";
  /** One line for a human, naming the path, the row count and some ids. */
  readonly message: string;
  /** Dotted path: of the method object (`"method"`), the empty or computed column's name. */
  readonly path: string;
  /** How many rows had an invalid method there (the empty column: every row read). */
  readonly rows: number;
  /**
   * EMPTY_COLUMN: the known path nearest to the column's, when it looks like a typo. QUERY_PATH:
   * the nearest known path, or the `$elemMatch` query (as JSON) for a named entry.
   */
  readonly suggestion?: string;
  /** The first few of their ids (all of them when `rows` is small). */
  readonly ids: readonly string[];
}

/** Options for how rows are read. */
export interface ReadOptions {
  /**
   * Throw `InvalidMethodError` at the first method value that fails the method schema, instead
   * of giving nulls in its method columns and a warning; and `EmptyColumnError` when a column
   * is null in every row (e.g. a misspelt path), before a file is written.
   * @default false
   */
  strict?: boolean;
  /**
   * Label numeric columns with the units their records carry: `lattice.a [angstrom]`,
   * `derivedProperties.density [g/cm^3]` (from the first records that have them). The units'
   * fields are fetched too (`lattice.units`).
   * @default false
   */
  units?: boolean;
  /**
   * Tolerances of the computed symmetry columns (`matframe:spaceGroupSymbol` ...), as
   * `symmetryOf` takes them: `symprec` in Å, `angleTolerance` in degrees.
   * @default pymatgen's: `{ symprec: 0.01, angleTolerance: 5 }`
   */
  symmetry?: SymmetryOptions;
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
  /** The columns read by a getter of their own (all but method halves), with their positions. */
  private readonly values: { readonly index: number; readonly get: Getter }[] = [];
  private readonly groups: MethodGroup[] = [];
  /** Per column: whether any row had a value there. */
  private readonly filled: boolean[];
  private unfilled: number;
  private readonly earlierRows: number;
  private readonly checkEmpty: boolean;
  private readonly units: UnitLabels | undefined;
  private readonly computed: ComputedTally = { rows: 0, ids: [], reasons: new Map(), fields: new Set() };

  /**
   * @param earlier what an earlier run of a resumed export read: its rows and which columns had a
   *   value, so that a column is called empty only when it is empty in the whole table.
   */
  constructor(plan: ColumnPlan, options: ReadOptions = {}, earlier?: { rows: number; filled?: readonly boolean[] }) {
    this.plan = plan;
    this.strict = options.strict ?? false;
    this.filled = plan.columns.map((_, c) => earlier?.filled?.[c] ?? false);
    this.earlierRows = earlier?.rows ?? 0;
    // An earlier run that did not say which columns it filled: nothing can be said about emptiness.
    this.checkEmpty = earlier === undefined || earlier.filled?.length === plan.columns.length;
    this.units = options.units ? new UnitLabels(plan.columns) : undefined;
    this.unfilled = this.filled.filter((f) => !f).length;
    plan.columns.forEach((column, index) => {
      if (column.computed) {
        this.values.push({
          index,
          get: computedGetter(column.computed, this.computed, () => this.rows - 1, options.symmetry),
        });
        return;
      }
      if (!column.method) {
        this.values.push({ index, get: compileGetter(column.segments, column.namedEntryAt) });
        return;
      }
      const { path, segments, part } = column.method;
      let group = this.groups.find((g) => g.path === path);
      if (!group) {
        group = {
          path,
          get: compileGetter(segments, column.namedEntryAt),
          typeIndex: -1,
          subtypeIndex: -1,
          invalid: 0,
          ids: [],
        };
        this.groups.push(group);
      }
      if (part === "type") group.typeIndex = index;
      else group.subtypeIndex = index;
    });
  }

  /** Writes the raw cells of `record` into `out` (length = number of columns); missing is `undefined`. */
  read(record: unknown, out: unknown[]): void {
    const row = this.rows++;
    if (this.units?.pending) this.units.observeRecord(record);
    for (let g = 0; g < this.groups.length; g++) {
      const group = this.groups[g]!;
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
    const values = this.values;
    for (let i = 0; i < values.length; i++) {
      const { index, get } = values[i]!;
      out[index] = get(record);
    }
    if (this.unfilled > 0) this.markFilled(out);
  }

  /** Which columns had a value in some row so far (saved by a resumable export). */
  get filledColumns(): readonly boolean[] {
    return this.filled;
  }

  /**
   * True while some column that would be warned about (see {@link ColumnPlan.defaulted}) has had
   * no value in any row: a strict export to a stream holds its rows until then.
   */
  get hasEmptyColumn(): boolean {
    return !this.plan.defaulted && this.unfilled > 0;
  }

  /** Output column names: the plan's, with units when `units` is set (see {@link observeUnits}). */
  get names(): readonly string[] {
    return this.units?.names ?? this.plan.names;
  }

  /** Reads units from a page before its rows, for a writer that names its columns first. */
  observeUnits(records: readonly unknown[]): void {
    if (this.units?.pending) this.units.observe(records);
  }

  private markFilled(row: readonly unknown[]): void {
    for (let c = 0; c < row.length; c++) {
      if (!this.filled[c] && row[c] !== undefined && row[c] !== null) {
        this.filled[c] = true;
        this.unfilled--;
      }
    }
  }

  /**
   * The warnings of the whole read (see {@link warnings}); with `strict`, throws
   * `EmptyColumnError` for the first empty column instead. Call it before committing an output.
   */
  finish(): FrameWarning[] {
    const warnings = this.warnings();
    const empty = warnings.find((w) => w.code === "EMPTY_COLUMN");
    if (this.strict && empty) throw new EmptyColumnError(empty.path, empty.rows, empty.suggestion);
    return warnings;
  }

  /** One warning per method path that had invalid values, and one per empty column. */
  warnings(): FrameWarning[] {
    return [...this.methodWarnings(), ...this.computedWarnings(), ...this.emptyColumnWarnings()];
  }

  private computedWarnings(): FrameWarning[] {
    const { rows, ids, reasons, fields } = this.computed;
    // Only the columns that were null: the atom count and volume of a structure without a space group are there.
    const names = this.plan.columns.filter((c) => c.computed && fields.has(c.computed)).map((c) => c.name);
    // Rows are counted only by the getters of computed columns.
    const [first] = names;
    if (rows === 0 || first === undefined) return [];
    const more = rows - ids.length;
    const why = [...reasons].map(([reason, n]) => `${reason}: ${n}`).join("; ");
    const message =
      `${names.join(", ")} ${names.length === 1 ? "is" : "are"} null in ${rows} ${rows === 1 ? "row" : "rows"} without a usable structure (${why}).` +
      (ids.length ? ` Ids: ${ids.join(", ")}${more > 0 ? ` and ${more} more` : ""}.` : "");
    return [{ code: "INVALID_STRUCTURE", message, path: first, rows, ids: [...ids] }];
  }

  private emptyColumnWarnings(): FrameWarning[] {
    if (this.plan.defaulted || !this.checkEmpty || this.rows + this.earlierRows === 0 || this.unfilled === 0) return [];
    return (
      this.plan.columns
        .filter((_, c) => !this.filled[c])
        // A computed column null for want of a structure has its own warning, which says why.
        .filter((column) => !(column.computed && this.computed.fields.has(column.computed)))
        .map((column): FrameWarning => {
          const suggestion = nearestPath(column.name);
          const rows = this.rows + this.earlierRows;
          // A path material records are known to have is spelt right: these records just lack it
          // (one record without a method, a platform that never computed a property).
          const known = MATERIAL_PATHS.includes(column.name);
          const message =
            `column "${column.name}" is empty: none of the ${groupDigits(rows)} ${rows === 1 ? "record has" : "records has"} a value at that path` +
            (known
              ? " (the path is a material field; these records do not carry it)."
              : suggestion
                ? `; did you mean ${suggestion}?`
                : "; check the path's spelling (docs/tables.md, Column rules).");
          return {
            code: "EMPTY_COLUMN",
            message,
            path: column.name,
            rows,
            ids: [],
            ...(suggestion ? { suggestion } : {}),
          };
        })
    );
  }

  private methodWarnings(): FrameWarning[] {
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
