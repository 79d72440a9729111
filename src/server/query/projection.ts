import { DEFAULT_LIMIT, MAX_LIMIT, Projection, type Fields } from "../../schemas";
import { badRequest } from "../http/http-errors";
import type { RecordProjection } from "../http/serialized";
import { checkPath, describe } from "./query-filter";

/** One sort key: a dotted path and a direction. */
export interface SortKey {
  path: string;
  direction: 1 | -1;
}

/** A `projection` parameter after validation, with defaults filled in. */
export interface ListOptions {
  fields: Fields;
  sort: SortKey[];
  skip: number;
  limit: number;
}

/** Most sort keys one request may use. */
const MAX_SORT_KEYS = 16;
/** Most field paths one request may name. */
const MAX_FIELDS = 200;

// Every key has a hint; any other key a zod issue names has none (undefined).
const PROJECTION_HINTS: Readonly<
  Record<"fields" | "sort" | "skip" | "limit", string> & Partial<Record<string, string>>
> = {
  fields: 'projection.fields must map dotted paths to 1 (include) or 0 (exclude), e.g. {"formula": 1, "lattice.a": 1}.',
  sort: 'projection.sort must map dotted paths to 1 (ascending) or -1 (descending), e.g. {"formula": 1}.',
  skip: "projection.skip must be a non-negative integer (default 0).",
  limit: `projection.limit must be an integer from 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`,
};

/**
 * Validates the `projection` query parameter (shape from the shared `Projection` schema) and
 * fills in the defaults: no field selection, `_id` order, skip 0, limit 50.
 */
export function parseProjection(value: unknown): ListOptions {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badRequest(`projection must be a JSON object such as {"limit": 10}, not ${describe(value)}.`);
  }
  // Every path of fields and sort is checked here, on the raw JSON: zod's record parsing drops a
  // "__proto__" key instead of reporting it.
  for (const [key, inner] of Object.entries(value)) {
    checkPath(key, "projection");
    if (typeof inner === "object" && inner !== null) {
      for (const path of Object.keys(inner)) checkPath(path, `projection.${key}`);
    }
  }
  const parsed = Projection.safeParse(value);
  if (!parsed.success) {
    // zod reports at least one issue when parsing fails.
    const issue = parsed.error.issues[0]!;
    if (issue.code === "unrecognized_keys") {
      throw badRequest(`projection has unknown key(s) ${issue.keys.join(", ")}; allowed: fields, sort, skip, limit.`);
    }
    throw badRequest(PROJECTION_HINTS[String(issue.path[0])] ?? `projection is not valid: ${issue.message}.`);
  }
  const { fields = {}, sort = {}, skip = 0, limit = DEFAULT_LIMIT } = parsed.data;
  checkFields(fields);
  const sortEntries = Object.entries(sort);
  if (sortEntries.length > MAX_SORT_KEYS) throw badRequest(`projection.sort has more than ${MAX_SORT_KEYS} keys.`);
  if (!Number.isSafeInteger(skip)) throw badRequest(PROJECTION_HINTS.skip);
  return { fields, sort: sortEntries.map(([path, direction]) => ({ path, direction })), skip, limit };
}

function checkFields(fields: Fields): void {
  const entries = Object.entries(fields);
  if (entries.length > MAX_FIELDS) throw badRequest(`projection.fields names more than ${MAX_FIELDS} paths.`);
  const modes = new Set(entries.filter(([path]) => path !== "_id").map(([, flag]) => flag));
  if (modes.size > 1) {
    throw badRequest(
      'projection.fields mixes inclusion (1) and exclusion (0); use one or the other (only "_id": 0 may be combined with inclusion).',
    );
  }
}

/** A tree of dotted paths: `true` marks a selected path, an object its selected children. */
type PathTree = { [key: string]: PathTree | true };

function buildTree(paths: string[]): PathTree {
  // Nodes without a prototype: a field named "toString.x" must find nothing inherited to descend
  // into (it would otherwise write "x" onto Object.prototype.toString).
  const root: PathTree = Object.create(null) as PathTree;
  // Shorter paths first, so "a" wins over "a.b" whichever order they were given in.
  for (const path of [...paths].sort((x, y) => x.length - y.length)) {
    let node = root;
    const segments = path.split(".");
    for (const [i, segment] of segments.entries()) {
      const existing = node[segment];
      if (existing === true) break;
      if (i === segments.length - 1) node[segment] = true;
      else node = existing ?? (node[segment] = Object.create(null) as PathTree);
    }
  }
  return root;
}

const hasOwn = (value: object, key: string) => Object.hasOwn(value, key);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The inclusion of `tree` as a function of its own, generated once per projection (as the
 * client's column getters are): each selected key is a constant property read with its own
 * inline cache, where a loop over the tree's keys read every record through one megamorphic
 * `value[key]`. Paths into arrays made that loop a third of a page's cost (the default columns'
 * `derivedProperties.name` and `.value`: 32 ms a page of 500 against 20 for the whole array).
 * Keys are embedded with `JSON.stringify` (plain string literals) and were checked by
 * `checkPath`. As MongoDB does, a path into an array applies to each object in it (and in arrays
 * inside it), and scalars there are dropped; a missing or non-object parent gives nothing.
 */
function compileInclude(tree: PathTree): (record: unknown) => unknown {
  const functions: string[] = [];
  const emit = (node: PathTree): string => {
    const name = `n${functions.length}`;
    functions.push("");
    const reads = Object.entries(node).map(([key, subtree]) => {
      const k = JSON.stringify(key);
      if (subtree === true) return `if (hasOwn(o, ${k})) { const v = o[${k}]; if (v !== undefined) out[${k}] = v; }`;
      return `if (hasOwn(o, ${k})) { const v = ${emit(subtree)}(o[${k}]); if (v !== undefined) out[${k}] = v; }`;
    });
    functions[Number(name.slice(1))] = `function ${name}(value) {
  if (Array.isArray(value)) {
    const a = [];
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (isPlainObject(item)) a.push(${name}o(item));
      else if (Array.isArray(item)) a.push(${name}(item));
    }
    return a;
  }
  return isPlainObject(value) ? ${name}o(value) : undefined;
}
function ${name}o(o) {
  const out = {};
  ${reads.join("\n  ")}
  return out;
}`;
    return name;
  };
  emit(tree);
  const make = new Function("hasOwn", "isPlainObject", `"use strict";\n${functions.join("\n")}\nreturn n0;`) as (
    own: typeof hasOwn,
    plain: typeof isPlainObject,
  ) => (record: unknown) => unknown;
  return make(hasOwn, isPlainObject);
}

/**
 * Inclusions compiled so far, by their paths: every page of a walk names the same projection, and
 * a function compiled anew for each would run cold (no inline caches, no optimised code) on
 * every page. Bounded, as projections come from clients: the oldest is dropped beyond this many.
 */
const MAX_COMPILED = 256;
const compiled = new Map<string, (record: unknown) => unknown>();

/**
 * Forgets the compiled inclusions: for test files that share a process, so that what one compiled
 * cannot change what the next measures or counts. @internal
 */
export function clearCompiledProjections(): void {
  compiled.clear();
}

/** Inclusions compiled and kept now. @internal */
export function compiledProjectionCount(): number {
  return compiled.size;
}

function compiledInclusion(paths: string[]): (record: unknown) => unknown {
  const key = JSON.stringify(paths);
  let select = compiled.get(key);
  if (select) return select;
  select = compileInclude(buildTree(paths));
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, select);
  return select;
}

function exclude(value: unknown, tree: PathTree): unknown {
  if (Array.isArray(value)) return value.map((item) => (isPlainObject(item) ? exclude(item, tree) : item));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const subtree = hasOwn(tree, key) ? tree[key] : undefined;
    if (subtree === true) continue;
    out[key] = subtree === undefined ? item : exclude(item, subtree);
  }
  return out;
}

/**
 * The projection a list answer is serialised in, and its JSON kept under (undefined: whole
 * records). The background warm-up keeps JSON under the same key, so both make it here.
 */
export function recordProjection(fields: Fields): RecordProjection | undefined {
  return Object.keys(fields).length === 0
    ? undefined
    : { key: JSON.stringify(fields), select: makeFieldSelector(fields) };
}

/**
 * Builds the function that applies `fields` to a record: inclusion (`{a: 1}`) or exclusion
 * (`{a: 0}`) on dotted paths, `_id` kept unless `_id: 0`. Records are never modified.
 */
export function makeFieldSelector(fields: Fields): (record: Record<string, unknown>) => Record<string, unknown> {
  const entries = Object.entries(fields);
  if (entries.length === 0) return (record) => record;
  const keepId = fields._id !== 0;
  const included = entries.filter(([path, flag]) => flag === 1 && path !== "_id").map(([path]) => path);
  if (included.length > 0) {
    return compiledInclusion(keepId ? ["_id", ...included] : included) as (
      record: Record<string, unknown>,
    ) => Record<string, unknown>;
  }
  const excluded = entries.filter(([path, flag]) => flag === 0 && (path !== "_id" || !keepId)).map(([p]) => p);
  if (excluded.length === 0) return keepId ? (record) => ({ _id: record._id }) : () => ({});
  const tree = buildTree(excluded);
  return (record) => exclude(record, tree) as Record<string, unknown>;
}
