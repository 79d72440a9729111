// What a column path can name, shared by the column plan, the getters and the units: plain
// segments, array indexes, entries of named-entry arrays picked by name, and computed columns.
// Nothing here imports the plan, so the getters and units can use it without a loop.

/**
 * Arrays of `{ name, value, ... }` entries, which columns pick from by name
 * (`derivedProperties.volume`). A projection cannot select one entry by name, so a column
 * under one of these fetches the whole array; under any other array a name cannot match.
 */
const NAMED_ENTRY_ARRAYS: readonly string[] = Object.freeze(["derivedProperties"]);

/**
 * Named entries that come one per key (`elemental_ratio` per `element`, `p-norm` per `degree`):
 * a column names the key after the name (`derivedProperties.elemental_ratio.Si`,
 * `derivedProperties.p-norm.2`) and reads that entry's `value`.
 */
const KEYED_ENTRIES: Readonly<Record<string, string>> = Object.freeze({
  elemental_ratio: "element",
  "p-norm": "degree",
});

/** The field that tells apart the entries of a keyed named entry (`"element"` for `elemental_ratio`), if it is one. */
export function keyedEntryField(name: string): string | undefined {
  return Object.hasOwn(KEYED_ENTRIES, name) ? KEYED_ENTRIES[name] : undefined;
}

/** What a computed column shows: a field of the structure's symmetry, or a count or size of its cell. */
export type ComputedField =
  | "spaceGroupNumber"
  | "spaceGroupSymbol"
  | "crystalSystem"
  | "pointGroup"
  | "nsites"
  | "volumePerAtom";

/**
 * Columns matframe computes in the client from a record's `lattice` and `basis` (fetched by the
 * projection), for records without the platform's derived properties: the symmetry's fields,
 * the number of atoms in the cell (`nsites`, as pymatgen's `len(structure)`) and the volume per
 * atom in Å³. The `matframe:` prefix keeps them apart from every platform field: no platform
 * field name has a colon.
 */
export const COMPUTED_COLUMNS: Readonly<Record<string, ComputedField>> = Object.freeze({
  "matframe:spaceGroupNumber": "spaceGroupNumber",
  "matframe:spaceGroupSymbol": "spaceGroupSymbol",
  "matframe:crystalSystem": "crystalSystem",
  "matframe:pointGroup": "pointGroup",
  "matframe:nsites": "nsites",
  "matframe:volumePerAtom": "volumePerAtom",
});

/** A method column reads one half of a method object, which is checked before either half is used. */
export interface MethodPart {
  /** Dotted path of the method object, e.g. `"method"` or `"model.method"`. */
  readonly path: string;
  readonly segments: readonly string[];
  readonly part: "type" | "subtype";
}

/** One output column: its name and where its value comes from. */
export interface ColumnDef {
  readonly name: string;
  /** The dotted path split into segments. */
  readonly segments: readonly string[];
  /** Set when the column is `<path>.type` or `<path>.subtype` of a method object. */
  readonly method?: MethodPart;
  /** Index of the segment that picks an entry of a named-entry array by name, if any. */
  readonly namedEntryAt?: number;
  /** Set for a computed column (`matframe:spaceGroupSymbol`): the symmetry field it shows. */
  readonly computed?: (typeof COMPUTED_COLUMNS)[string];
}

const INDEX = /^(0|[1-9][0-9]*)$/;

/** Whether a path segment is an array index such as `0` in `tags.0`. */
export function isIndexSegment(segment: string): boolean {
  return INDEX.test(segment);
}

/**
 * Index of the segment that names an entry of a named-entry array (`volume` in
 * `derivedProperties.volume`), or undefined. Decided here once, for both the getter and the
 * projection, so the two cannot disagree.
 */
export function namedEntryIndex(segments: readonly string[]): number | undefined {
  for (let i = 1; i < segments.length; i++) {
    // i - 1 and i are below segments.length.
    if (isIndexSegment(segments[i - 1]!)) return undefined;
    if (NAMED_ENTRY_ARRAYS.includes(segments.slice(0, i).join(".")))
      return isIndexSegment(segments[i]!) ? undefined : i;
  }
  return undefined;
}
