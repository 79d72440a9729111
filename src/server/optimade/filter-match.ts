// Whether an entry matches a parsed filter (spec section 5.2, "The Filter Language"). A property
// an entry does not have (or has as null) makes every comparison on it false, `!=` included, as
// the reference implementation answers; NOT negates what is left.
import type { FilterNode, FilterValue, ListItem, Operator } from "./filter-grammar";

/** An entry as the filter sees it: `id`, `type` and the attributes side by side. */
export type FilterDocument = Readonly<Record<string, unknown>>;

/** The property names a filter uses, to refuse unknown ones before any entry is read. */
export function filterProperties(node: FilterNode): string[][] {
  const paths: string[][] = [];
  const value = (v: FilterValue) => {
    if (v.kind === "property") paths.push([...v.path]);
  };
  const visit = (n: FilterNode): void => {
    switch (n.kind) {
      case "or":
      case "and":
        visit(n.left);
        visit(n.right);
        return;
      case "not":
        visit(n.operand);
        return;
      case "constants":
        value(n.left);
        value(n.right);
        return;
      case "has":
        for (const p of n.paths) paths.push([...p]);
        for (const tuple of n.tuples) for (const item of tuple) value(item.value);
        return;
      case "compare":
      case "fuzzy":
      case "length":
        paths.push([...n.path]);
        value(n.value);
        return;
      case "known":
        paths.push([...n.path]);
        return;
    }
  };
  visit(node);
  return paths;
}

/** Whether `doc` matches `node`. */
export function matchesFilter(node: FilterNode, doc: FilterDocument): boolean {
  switch (node.kind) {
    case "or":
      return matchesFilter(node.left, doc) || matchesFilter(node.right, doc);
    case "and":
      return matchesFilter(node.left, doc) && matchesFilter(node.right, doc);
    case "not":
      return !matchesFilter(node.operand, doc);
    case "compare":
      return compare(lookup(doc, node.path), node.op, resolveValue(node.value, doc));
    case "constants":
      return compare(resolveValue(node.left, doc), node.op, resolveValue(node.right, doc));
    case "known": {
      const value = lookup(doc, node.path);
      return (value !== undefined && value !== null) === node.known;
    }
    case "fuzzy": {
      const value = lookup(doc, node.path);
      const part = resolveValue(node.value, doc);
      if (typeof value !== "string" || typeof part !== "string") return false;
      return node.op === "contains"
        ? value.includes(part)
        : node.op === "starts"
          ? value.startsWith(part)
          : value.endsWith(part);
    }
    case "length": {
      const value = lookup(doc, node.path);
      return Array.isArray(value) && compare(value.length, node.op, resolveValue(node.value, doc));
    }
    case "has":
      return matchesHas(node, doc);
  }
}

function matchesHas(node: Extract<FilterNode, { kind: "has" }>, doc: FilterDocument): boolean {
  const arrays = node.paths.map((path) => lookup(doc, path));
  if (!arrays.every(Array.isArray)) return false;
  const lists = arrays as unknown[][];
  // The grammar gives HAS at least one property.
  const length = lists[0]?.length ?? 0;
  // Zipped properties are read index by index; lists of different lengths zip to nothing.
  if (lists.some((list) => list.length !== length)) return false;
  const rows = Array.from({ length }, (_, i) => lists.map((list) => list[i]));
  const fits = (row: readonly unknown[], tuple: readonly ListItem[]) =>
    tuple.length === row.length && tuple.every((item, k) => compare(row[k], item.op, resolveValue(item.value, doc)));
  switch (node.mode) {
    case "one":
    case "any":
      return node.tuples.some((tuple) => rows.some((row) => fits(row, tuple)));
    case "all":
      return node.tuples.every((tuple) => rows.some((row) => fits(row, tuple)));
    case "only":
      return rows.every((row) => node.tuples.some((tuple) => fits(row, tuple)));
  }
}

function resolveValue(value: FilterValue, doc: FilterDocument): unknown {
  return value.kind === "property" ? lookup(doc, value.path) : value.value;
}

function lookup(doc: FilterDocument, path: readonly string[]): unknown {
  let value: unknown = doc;
  for (const key of path) {
    if (value === null || typeof value !== "object" || Array.isArray(value) || !Object.hasOwn(value, key))
      return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** `left op right` for two numbers, two strings or two booleans (only = and != for booleans); anything else is false. */
function compare(left: unknown, op: Operator, right: unknown): boolean {
  if (left === undefined || left === null || right === undefined || right === null) return false;
  const kind = typeof left;
  if (kind !== typeof right || (kind !== "number" && kind !== "string" && kind !== "boolean")) return false;
  if (kind === "boolean" && op !== "=" && op !== "!=") return false;
  const l = left as number | string;
  const r = right as number | string;
  switch (op) {
    case "=":
      return l === r;
    case "!=":
      return l !== r;
    case "<":
      return l < r;
    case "<=":
      return l <= r;
    case ">":
      return l > r;
    case ">=":
      return l >= r;
  }
}
