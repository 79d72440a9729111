import { FORBIDDEN_KEYS, type Fields } from "../../schemas";
import { editDistance } from "../../edit-distance";
import { ValidationError } from "../../errors";
import { unitFields } from "./units";
import { COMPUTED_COLUMNS, isIndexSegment, keyedEntryField, namedEntryIndex, type ColumnDef } from "./column-path";

// The path vocabulary lives in column-path.ts, below the getters and units that read it.
export {
  COMPUTED_COLUMNS,
  isIndexSegment,
  keyedEntryField,
  namedEntryIndex,
  type ColumnDef,
  type MethodPart,
} from "./column-path";

/**
 * The columns a table gets when none are named: identity, composition, the computational method,
 * the lattice lengths (Å) and the two derived properties every material carries (Å³, g/cm³).
 */
export const DEFAULT_COLUMNS: readonly string[] = Object.freeze([
  "_id",
  "name",
  "formula",
  "method.type",
  "method.subtype",
  "lattice.a",
  "lattice.b",
  "lattice.c",
  "derivedProperties.volume",
  "derivedProperties.density",
]);

const COMPUTED_PREFIX = "matframe:";

/** The token that leaves `_id` out of a table on purpose (as `_id: 0` does in a projection). */
const EXCLUDE_ID = "-_id";

/** A validated column list and the projection that fetches exactly what it needs. */
export interface ColumnPlan {
  /** Output column names, in order. */
  readonly names: readonly string[];
  readonly columns: readonly ColumnDef[];
  /** The projection `fields` to send: parents collapse their children. */
  readonly fields: Fields;
  /**
   * Columns the caller did not spell (a collection's default columns, the results table's rows,
   * a DataFrame's own columns written to a file):
   * an empty one says the data has no value there, not that a path is misspelt, so it gives no
   * warning.
   */
  readonly defaulted?: boolean;
}

/**
 * Validates dotted column paths and derives the output columns and projection fields.
 *
 * - `_id` comes first unless the list names it elsewhere or contains `"-_id"`.
 * - A path ending in `method` (`method`, `model.method`) becomes `<path>.type` and `<path>.subtype`.
 * - Repeated columns are kept once, at their first position.
 *
 * @param columns dotted paths; `undefined` means {@link DEFAULT_COLUMNS}.
 * @param options `units`: also fetch the fields that hold the columns' units (see `ReadOptions.units`).
 * @throws ValidationError (`option: "columns"`) for an empty list or a malformed path.
 * @example planColumns(["formula", "lattice.a", "lattice"]).fields // { _id: 1, formula: 1, lattice: 1 }
 * @example planColumns(["formula", "-_id"]).names // ["formula"]
 */
export function planColumns(columns?: readonly string[], options: { units?: boolean } = {}): ColumnPlan {
  const requested = columns ?? DEFAULT_COLUMNS;
  if (!Array.isArray(requested)) {
    throw new ValidationError("columns", 'columns must be an array of dotted paths, e.g. ["formula", "lattice.a"].');
  }
  const excludeId = requested.includes(EXCLUDE_ID);
  const names: string[] = [];
  for (const column of requested) {
    if (column === EXCLUDE_ID) continue;
    for (const name of expandMethod(checkPath(column))) {
      if (name === "_id" && excludeId) {
        throw new ValidationError("columns", `columns name both "_id" and "${EXCLUDE_ID}"; keep one.`);
      }
      if (!names.includes(name)) names.push(name);
    }
  }
  if (names.length === 0) {
    throw new ValidationError("columns", 'columns must name at least one column, e.g. ["formula"].');
  }
  if (!excludeId && !names.includes("_id")) names.unshift("_id");
  const defs = names.map(toColumnDef);
  return { names, columns: defs, fields: deriveFields(defs, options.units ? defs.flatMap(unitFields) : []) };
}

function checkPath(column: unknown): string {
  if (typeof column !== "string" || column.length === 0) {
    throw new ValidationError(
      "columns",
      `Each column must be a non-empty dotted path such as "lattice.a"; got ${JSON.stringify(column)}.`,
    );
  }
  if (column.startsWith(COMPUTED_PREFIX)) {
    if (!Object.hasOwn(COMPUTED_COLUMNS, column)) {
      const names = Object.keys(COMPUTED_COLUMNS);
      const near = names.find((name) => editDistance(name.toLowerCase(), column.toLowerCase()) <= 2);
      throw new ValidationError(
        "columns",
        `Column "${column}" is not one of the computed columns (${names.join(", ")})${near ? `: did you mean ${near}?` : "."}`,
      );
    }
    return column;
  }
  if (column.trim() !== column) {
    throw new ValidationError("columns", `Column "${column}" has leading or trailing spaces; remove them.`);
  }
  const segments = column.split(".");
  for (const segment of segments) {
    if (segment.length === 0) {
      throw new ValidationError("columns", `Column "${column}" has an empty segment; write paths like "lattice.a".`);
    }
    if (segment.startsWith("$")) {
      throw new ValidationError(
        "columns",
        `Column "${column}" has a segment starting with "$", which a projection cannot name; use the field's own name, e.g. "lattice.a".`,
      );
    }
    if (FORBIDDEN_KEYS.has(segment)) {
      throw new ValidationError(
        "columns",
        `Column "${column}" names "${segment}", which the platform refuses as a field name; remove it and name the field you want, e.g. "formula".`,
      );
    }
  }
  // A record is an object, so its first segment is a field name; this also keeps a column dict's
  // key order equal to the column order (integer-like keys would sort first).
  const [first] = segments;
  if (first !== undefined && isIndexSegment(first)) {
    throw new ValidationError("columns", `Column "${column}" starts with an array index; start with a field name.`);
  }
  return column;
}

function expandMethod(path: string): string[] {
  const segments = path.split(".");
  return segments[segments.length - 1] === "method" ? [`${path}.type`, `${path}.subtype`] : [path];
}

function toColumnDef(name: string): ColumnDef {
  if (Object.hasOwn(COMPUTED_COLUMNS, name)) return { name, segments: [name], computed: COMPUTED_COLUMNS[name] };
  const segments = name.split(".");
  const namedEntryAt = namedEntryIndex(segments);
  const named = namedEntryAt === undefined ? {} : { namedEntryAt };
  const last = segments[segments.length - 1];
  if (segments.length >= 2 && segments[segments.length - 2] === "method" && (last === "type" || last === "subtype")) {
    const methodSegments = segments.slice(0, -1);
    return {
      name,
      segments,
      method: { path: methodSegments.join("."), segments: methodSegments, part: last },
      ...named,
    };
  }
  return { name, segments, ...named };
}

/** A path cut at its first array index: the part a projection can name (`basis.elements` of `basis.elements.1.value`). */
function upToIndex(segments: readonly string[]): string {
  const end = segments.findIndex(isIndexSegment);
  return (end === -1 ? segments : segments.slice(0, end)).join(".");
}

/**
 * The paths a projection names to fetch what a column reads. A path into an array of objects
 * projects each object (MongoDB's rule, which `matframe serve` follows), so a column of a named
 * entry (`derivedProperties.volume`) fetches the entries' `name` and the keys it reads of them
 * (`value`; for a keyed entry its key too; for a deeper column that path), not every entry whole:
 * the other entries' units, elements, degrees and tolerances are 23% of a page of the default
 * columns, and parsing pages is most of a client's work over a far link. The column's own path
 * (`derivedProperties.volume`) is named too, for a record whose array is an object instead.
 */
function fieldPaths(def: ColumnDef): string[] {
  // The whole method object is fetched: checking it needs both halves and any extra keys.
  const segments = def.method ? def.method.segments : def.segments;
  const at = def.namedEntryAt;
  if (at === undefined) return [upToIndex(segments)];
  const array = segments.slice(0, at).join(".");
  // The entry's name (`volume`), then what is read inside it; `at` is below segments.length.
  const [entry = "", ...rest] = segments.slice(at);
  const keyField = rest.length === 1 ? keyedEntryField(entry) : undefined;
  const read = keyField ? [keyField, "value"] : rest.length === 0 ? ["value"] : [upToIndex(rest)];
  // An index right after the entry (`derivedProperties.volume.0`): the entries whole.
  if (read.includes("")) return [array];
  return [`${array}.name`, ...read.map((path) => `${array}.${path}`), upToIndex(segments)];
}

/**
 * Most paths a plan names into one named-entry array: beyond, the array is fetched whole. A
 * projection of dozens of paths saves less than its entries weigh, makes a long URL, and a
 * server may cap the paths one projection names (`matframe serve`: 200).
 */
const MAX_ENTRY_PATHS = 8;

function deriveFields(defs: readonly ColumnDef[], extra: readonly string[] = []): Fields {
  const own = defs.flatMap((def) => (def.computed ? ["lattice", "basis"] : fieldPaths(def)));
  const paths = [...new Set([...own, ...extra])];
  // Many paths into one named-entry array (a column per element, say) fetch it whole instead.
  const arrays = new Set(
    defs.flatMap((def) => (def.namedEntryAt === undefined ? [] : [def.segments.slice(0, def.namedEntryAt).join(".")])),
  );
  for (const array of arrays) {
    if (paths.filter((path) => path.startsWith(`${array}.`)).length > MAX_ENTRY_PATHS) paths.push(array);
  }
  paths.sort();
  // `_id` is fetched even when its column is left out: it is short, paging needs it, and
  // warnings name rows by it.
  const fields: Fields = { _id: 1 };
  // Sorted, a parent precedes its children, so one pass drops every path under a kept one.
  const kept: string[] = [];
  for (const path of paths) {
    if (kept.some((parent) => path.startsWith(`${parent}.`))) continue;
    kept.push(path);
    fields[path] = 1;
  }
  return fields;
}
