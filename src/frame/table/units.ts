// Units in column names: `units: true` labels a numeric column with the unit its
// records carry, e.g. `lattice.a [angstrom]`, `derivedProperties.density [g/cm^3]`.
import { isIndexSegment, type ColumnDef } from "./column-path";
import { compileGetter, type Getter } from "./getters";

// Which key of a `units` object holds a field's unit: the platform's lattice records
// `units: { length: "angstrom", angle: "degree" }` beside `a`, `b`, `c`, `alpha`, `beta`, `gamma`.
const UNIT_KIND: Readonly<Record<string, string>> = {
  a: "length",
  b: "length",
  c: "length",
  alpha: "angle",
  beta: "angle",
  gamma: "angle",
  alat: "length",
};

/**
 * Where a column's unit is recorded, as a getter, or undefined when it has none:
 * - a named entry's value (`derivedProperties.density`) reads the entry's `units`;
 * - any other field reads its parent's `units`: a string (`lattice.vectors.units` for
 *   `lattice.vectors.a`), or an object keyed by the field or its kind (`lattice.units.length`).
 */
export function unitGetter(def: ColumnDef): Getter | undefined {
  const { segments } = def;
  const key = segments.at(-1);
  if (def.method || key === undefined || segments.length < 2 || key === "units") return undefined;
  if (def.namedEntryAt === segments.length - 1) return compileGetter([...segments, "units"], def.namedEntryAt);
  const parent = compileGetter(segments.slice(0, -1), def.namedEntryAt);
  return (record) => {
    const units = (parent(record) as { units?: unknown } | undefined)?.units;
    if (typeof units === "string") return units;
    if (units === null || typeof units !== "object") return undefined;
    const byKey = (units as Record<string, unknown>)[key];
    if (typeof byKey === "string") return byKey;
    const kind = UNIT_KIND[key];
    return kind === undefined ? undefined : (units as Record<string, unknown>)[kind];
  };
}

/** The projection paths a column's unit needs beside its own (where {@link unitGetter} reads it). */
export function unitFields(def: ColumnDef): string[] {
  const { segments } = def;
  if (def.method || segments.length < 2 || segments[segments.length - 1] === "units") return [];
  const at = def.namedEntryAt;
  if (at !== undefined) {
    // A named entry's own units (`derivedProperties.units`), or those beside what a deeper column
    // reads of it; and, for a record whose array is an object, the same under the entry's name.
    const array = segments.slice(0, at);
    const rest = segments.slice(at + 1);
    const inEntry = rest.length === 0 ? [] : rest.length === 1 ? ["value"] : rest.slice(0, -1);
    return [
      [...array, ...inEntry, "units"],
      [...segments.slice(0, at + 1), ...rest.slice(0, -1), "units"],
    ].flatMap((path) => (path.some(isIndexSegment) ? [] : [path.join(".")]));
  }
  const parent = segments.slice(0, -1);
  // Under an array index the projection names the array, which already holds the units.
  return parent.some(isIndexSegment) ? [] : [[...parent, "units"].join(".")];
}

/** Records looked at for units before a column without any is left as it is. */
const OBSERVED_RECORDS = 500;

/** Labels columns with units, from the first records that carry them. */
export class UnitLabels {
  /** Column names, with ` [unit]` once a unit is seen. */
  readonly names: string[];
  /** Per column still to label: its unit's getter and its value's (numbers only have units). */
  private readonly sources: ({ readonly unit: Getter; readonly value: Getter } | undefined)[];
  private unlabelled: number;
  private observed = 0;

  constructor(columns: readonly ColumnDef[]) {
    this.names = columns.map((c) => c.name);
    this.sources = columns.map((c) => {
      const unit = unitGetter(c);
      return unit ? { unit, value: compileGetter(c.segments, c.namedEntryAt) } : undefined;
    });
    this.unlabelled = this.sources.filter(Boolean).length;
  }

  /** True while some column with a unit source has no label yet. */
  get pending(): boolean {
    return this.unlabelled > 0;
  }

  /** Reads units from `records` for the columns still unlabelled; cheap once all are labelled. */
  observe(records: readonly unknown[]): void {
    for (let r = 0; r < records.length && this.unlabelled > 0; r++) this.observeRecord(records[r]);
  }

  observeRecord(record: unknown): void {
    // Units are the same on every record where they exist: a column still unlabelled after a
    // page's worth of records has none, and the rest of the walk need not look again.
    if (++this.observed > OBSERVED_RECORDS) {
      this.unlabelled = 0;
      return;
    }
    for (let c = 0; c < this.sources.length; c++) {
      const source = this.sources[c];
      if (!source) continue;
      const value = source.value(record);
      // Only numbers have units: a column of text or objects keeps its name.
      if (typeof value !== "number" && !(Array.isArray(value) && typeof value[0] === "number")) continue;
      const unit = source.unit(record);
      if (typeof unit !== "string" || unit === "") continue;
      this.names[c] += ` [${unit}]`;
      this.sources[c] = undefined;
      this.unlabelled--;
    }
  }
}
