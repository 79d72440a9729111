// A query path that cannot match a material record matches nothing, silently: the platform
// answers an empty page. Columns already warn about such paths after the read; a query is checked
// before the request, so the warning names the form that works: `$elemMatch` for a named entry
// of derivedProperties (a column may say `derivedProperties.density`, a query may not), the
// nearest known path for a misspelt one.
import { ValidationError } from "../errors";
import { MATERIAL_PATHS } from "../schemas";
import { nearestPath } from "./table/suggest";
import type { FrameWarning } from "./table/row-reader";

/** Arrays of named entries (`{ name, value, ... }`); a query reaches one entry with `$elemMatch`. */
const NAMED_ENTRY_ARRAYS = ["derivedProperties"];
/** Keys every entry of such an array has: `derivedProperties.name` is a valid query path. */
const ENTRY_KEYS = new Set(["name", "value", "units"]);

/** One field path of a query and the condition on it, found through `$and`/`$or`/`$nor`. */
interface QueryPath {
  readonly path: string;
  readonly condition: unknown;
}

function* queryPaths(query: unknown): Generator<QueryPath> {
  if (query === null || typeof query !== "object" || Array.isArray(query)) return;
  for (const [key, value] of Object.entries(query)) {
    if (key === "$and" || key === "$or" || key === "$nor") {
      if (Array.isArray(value)) for (const part of value) yield* queryPaths(part);
    } else if (!key.startsWith("$")) {
      yield { path: key, condition: value };
    }
  }
}

/** Whether `path` goes inside a known field whose inside this list does not describe (`tags.0`, `basis.elements.id`). */
function insideKnownLeaf(path: string): boolean {
  return MATERIAL_PATHS.some(
    (known) => path.startsWith(`${known}.`) && !MATERIAL_PATHS.some((other) => other.startsWith(`${known}.`)),
  );
}

/** `derivedProperties.name`, `derivedProperties.value`: a key every named entry has (nothing after it). */
function isEntryKeyPath(array: string, key: string | undefined, rest: readonly string[]): boolean {
  return rest.length === 0 && key !== undefined && NAMED_ENTRY_ARRAYS.includes(array) && ENTRY_KEYS.has(key);
}

/**
 * Warnings about the paths of a material query that cannot match, one per path, or none. With
 * `strict`, the first one is thrown instead.
 *
 * @throws ValidationError (`option: "query"`) with `strict`.
 * @example checkQueryPaths({ "derivedProperties.density": { $gt: 5 } }) // one QUERY_PATH warning naming $elemMatch
 */
export function checkQueryPaths(query: unknown, strict = false): FrameWarning[] {
  const warnings: FrameWarning[] = [];
  for (const { path, condition } of queryPaths(query)) {
    // split always gives at least one segment, so `array` is never the default.
    const [array = "", name, ...rest] = path.split(".");
    let message: string | undefined;
    let suggestion: string | undefined;
    if (NAMED_ENTRY_ARRAYS.includes(array) && name !== undefined && !ENTRY_KEYS.has(name) && !/^\d+$/.test(name)) {
      const inner = rest.length === 0 ? { name, value: condition } : { name, [rest.join(".")]: condition };
      suggestion = JSON.stringify({ [array]: { $elemMatch: inner } });
      message =
        `The query path "${path}" matches no material: ${array} is a list of named entries, which a column can pick by name but a query cannot. ` +
        `Use ${suggestion}.`;
    } else if (!MATERIAL_PATHS.includes(path) && !insideKnownLeaf(path) && !isEntryKeyPath(array, name, rest)) {
      suggestion = nearestPath(path);
      if (suggestion)
        message = `The query path "${path}" is not a field of material records; did you mean "${suggestion}"?`;
    }
    if (!message) continue;
    if (strict) throw new ValidationError("query", message);
    warnings.push({ code: "QUERY_PATH", message, path, rows: 0, ids: [], ...(suggestion ? { suggestion } : {}) });
  }
  return warnings;
}
