import { Context } from "mingo/core";
import { Query } from "mingo/query";
import * as queryOperators from "mingo/operators/query";
import { FORBIDDEN_KEYS } from "../../schemas";
import { badRequest } from "../http/http-errors";
import { assertSafeRegex } from "./regex-guard";

/** A MongoDB query document after validation. */
export type QueryDocument = Record<string, unknown>;

/** A compiled query: tells whether one record matches. */
export type RecordPredicate = (record: object) => boolean;

/** Deepest nesting of objects and arrays accepted in a query. */
export const MAX_QUERY_DEPTH = 12;
/** Most values (objects, arrays, scalars) one query may hold. */
export const MAX_QUERY_NODES = 2000;
/** Longest array accepted for `$in`, `$nin`, `$all`, `$and`, `$or`, `$nor`. */
export const MAX_QUERY_ARRAY_LENGTH = 1000;

const LOGICAL_OPERATORS = new Set(["$and", "$or", "$nor"]);
const COMPARISON_OPERATORS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]);
const LIST_OPERATORS = new Set(["$in", "$nin", "$all"]);
const FIELD_OPERATORS = new Set([
  ...COMPARISON_OPERATORS,
  ...LIST_OPERATORS,
  "$not",
  "$exists",
  "$type",
  "$regex",
  "$options",
  "$mod",
  "$elemMatch",
  "$size",
]);

/**
 * The `$type` names mingo knows (its own table, `compareFuncs`), as an own-property set: mingo
 * looks a name up in a plain object, so "toString" or "constructor" would find Object.prototype's
 * and match every record, and "hasOwnProperty" would throw mid-scan.
 */
const TYPE_NAMES: ReadonlySet<string | number> = new Set<string | number>([
  "array",
  "boolean",
  "bool",
  "date",
  "number",
  "int",
  "long",
  "double",
  "decimal",
  "null",
  "object",
  "regexp",
  "regex",
  "string",
  "undefined",
  1,
  2,
  3,
  4,
  6,
  8,
  9,
  10,
  11,
  16,
  18,
  19,
]);

type QueryOperatorTable = NonNullable<NonNullable<Parameters<typeof Context.init>[0]>["query"]>;

/** The operators the issue allows, and only those, are loaded into mingo's context. */
const allowedContext = Context.init({
  query: Object.fromEntries(
    [...LOGICAL_OPERATORS, ...FIELD_OPERATORS]
      .filter((name) => name !== "$options") // read by $regex, not an operator of its own
      .map((name) => [name, (queryOperators as Record<string, unknown>)[name]]),
  ) as QueryOperatorTable,
});

/** Human list of the operators accepted, for error messages and docs/local-platform.md. */
export const ALLOWED_OPERATORS = [...LOGICAL_OPERATORS, ...FIELD_OPERATORS].join(" ");

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

class QueryValidator {
  private nodes = 0;

  /**
   * `longestString`: the longest string in the data, which bounds what a `$regex` may cost; read
   * only for a query with a `$regex`, since finding it may walk the collection.
   */
  constructor(private readonly longestString?: number | (() => number)) {}

  document(value: unknown, depth: number, where: string): void {
    this.count(depth, where);
    if (!isPlainObject(value)) {
      throw badRequest(`${where} must be a JSON object such as {"formula": "Si"}, not ${describe(value)}.`);
    }
    for (const [key, condition] of Object.entries(value)) {
      if (key.startsWith("$")) {
        this.logical(key, condition, depth, where);
      } else {
        checkPath(key, where);
        this.fieldCondition(condition, depth + 1, `${where}.${key}`);
      }
    }
  }

  private logical(operator: string, clauses: unknown, depth: number, where: string): void {
    if (FIELD_OPERATORS.has(operator)) {
      throw badRequest(
        `${operator} (in ${where}) applies to a field; write it under one, e.g. {"formula": {"${operator}": ...}}.`,
      );
    }
    if (!LOGICAL_OPERATORS.has(operator)) throw unsupportedOperator(operator, where);
    if (!Array.isArray(clauses) || clauses.length === 0) {
      throw badRequest(`${operator} in ${where} takes a non-empty array of query objects.`);
    }
    this.checkArrayLength(clauses, operator);
    this.count(depth + 1, where);
    clauses.forEach((clause, i) => {
      this.document(clause, depth + 2, `${where}.${operator}[${i}]`);
    });
  }

  private fieldCondition(condition: unknown, depth: number, where: string): void {
    if (isPlainObject(condition) && Object.keys(condition).some((key) => key.startsWith("$"))) {
      this.operatorExpression(condition, depth, where);
    } else {
      this.literal(condition, depth, where);
    }
  }

  private operatorExpression(expression: Record<string, unknown>, depth: number, where: string): void {
    this.count(depth, where);
    for (const [operator, argument] of Object.entries(expression)) {
      if (!operator.startsWith("$")) {
        throw badRequest(
          `${where} mixes operators and field names ("${operator}"); use either {"$gt": 1} or a literal object.`,
        );
      }
      if (!FIELD_OPERATORS.has(operator)) throw unsupportedOperator(operator, where);
      this.operatorArgument(operator, argument, expression, depth + 1, `${where}.${operator}`);
    }
  }

  private operatorArgument(
    operator: string,
    argument: unknown,
    expression: Record<string, unknown>,
    depth: number,
    where: string,
  ): void {
    if (COMPARISON_OPERATORS.has(operator)) {
      this.literal(argument, depth, where);
      return;
    }
    if (LIST_OPERATORS.has(operator)) {
      if (!Array.isArray(argument)) throw badRequest(`${where} takes an array, not ${describe(argument)}.`);
      this.checkArrayLength(argument, operator);
      this.literal(argument, depth, where);
      return;
    }
    this.count(depth, where);
    switch (operator) {
      case "$not":
        if (!isPlainObject(argument) || !Object.keys(argument).every((key) => key.startsWith("$"))) {
          throw badRequest(`${where} takes an operator expression such as {"$regex": "^Si"}.`);
        }
        this.operatorExpression(argument, depth, where);
        return;
      case "$elemMatch":
        if (!isPlainObject(argument)) throw badRequest(`${where} takes a query object.`);
        if (Object.keys(argument).every((key) => FIELD_OPERATORS.has(key))) {
          this.operatorExpression(argument, depth, where);
        } else {
          this.document(argument, depth, where);
        }
        return;
      case "$exists":
        if (typeof argument !== "boolean" && argument !== 0 && argument !== 1) {
          throw badRequest(`${where} takes true or false.`);
        }
        return;
      case "$type": {
        const types = Array.isArray(argument) ? argument : [argument];
        if (
          types.length === 0 ||
          types.length > 20 ||
          !types.every((t) => (typeof t === "string" || typeof t === "number") && TYPE_NAMES.has(t))
        ) {
          throw badRequest(
            `${where} takes a type name or an array of them: ${[...TYPE_NAMES].filter((t) => typeof t === "string").join(", ")} (or a BSON type number).`,
          );
        }
        return;
      }
      case "$regex": {
        if (typeof argument !== "string") throw badRequest(`${where} takes a string pattern.`);
        const options = expression.$options ?? "";
        if (typeof options !== "string") throw badRequest(`${where.replace(/\$regex$/, "$options")} takes a string.`);
        const longest = typeof this.longestString === "function" ? this.longestString() : this.longestString;
        assertSafeRegex(argument, options, longest);
        return;
      }
      case "$options":
        if (!("$regex" in expression)) throw badRequest(`${where} is only allowed next to $regex.`);
        return;
      case "$mod":
        if (
          !Array.isArray(argument) ||
          argument.length !== 2 ||
          !argument.every((n) => typeof n === "number" && Number.isFinite(n)) ||
          argument[0] === 0
        ) {
          throw badRequest(`${where} takes [divisor, remainder]: two numbers, divisor not 0.`);
        }
        return;
      case "$size":
        if (!Number.isInteger(argument) || (argument as number) < 0) {
          throw badRequest(`${where} takes a non-negative integer.`);
        }
        return;
      default:
        throw unsupportedOperator(operator, where);
    }
  }

  /** A value compared as is: operators inside it would be misread, so `$` keys are refused. */
  private literal(value: unknown, depth: number, where: string): void {
    this.count(depth, where);
    if (Array.isArray(value)) {
      this.checkArrayLength(value, where);
      value.forEach((item, i) => {
        this.literal(item, depth + 1, `${where}[${i}]`);
      });
    } else if (isPlainObject(value)) {
      for (const [key, item] of Object.entries(value)) {
        if (key.startsWith("$")) throw unsupportedOperator(key, where);
        checkPath(key, where);
        this.literal(item, depth + 1, `${where}.${key}`);
      }
    }
  }

  private count(depth: number, where: string): void {
    this.nodes += 1;
    if (depth > MAX_QUERY_DEPTH) {
      throw badRequest(`The query is nested more than ${MAX_QUERY_DEPTH} levels deep (at ${where}); flatten it.`);
    }
    if (this.nodes > MAX_QUERY_NODES) {
      throw badRequest(`The query has more than ${MAX_QUERY_NODES} values; split it into smaller queries.`);
    }
  }

  private checkArrayLength(array: unknown[], what: string): void {
    if (array.length > MAX_QUERY_ARRAY_LENGTH) {
      throw badRequest(
        `${what} has ${array.length} entries; at most ${MAX_QUERY_ARRAY_LENGTH} are allowed. Split the request.`,
      );
    }
  }
}

/** Refuses empty path segments and prototype keys in a dotted path such as `lattice.a`. */
export function checkPath(path: string, where: string): void {
  for (const segment of path.split(".")) {
    if (FORBIDDEN_KEYS.has(segment)) {
      throw badRequest(`The key "${segment}" is not allowed (in ${where}).`);
    }
    if (segment === "") throw badRequest(`"${path}" in ${where} is not a valid dotted path.`);
  }
}

function unsupportedOperator(operator: string, where: string) {
  return badRequest(`The operator ${operator} (in ${where}) is not supported. Allowed: ${ALLOWED_OPERATORS}.`);
}

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/**
 * Checks a parsed `query` against the allow-list and the size limits; throws a 400 `HttpError`
 * saying what to change. `longestString` (the longest string in the data) sizes the `$regex`
 * cost estimate.
 */
export function validateQuery(value: unknown, longestString?: number | (() => number)): QueryDocument {
  new QueryValidator(longestString).document(value, 0, "query");
  return value as QueryDocument;
}

/**
 * Compiles a validated query once. mingo runs it with a context holding only the allowed
 * operators, so an operator that slipped past validation still fails to compile.
 */
export function compileQuery(query: QueryDocument): RecordPredicate {
  let compiled: Query;
  try {
    compiled = new Query(query, { context: allowedContext });
  } catch (error) {
    throw badRequest(`The query could not be compiled: ${(error as Error).message}.`);
  }
  return (record) => {
    try {
      return compiled.test(record as Record<string, unknown>);
    } catch (error) {
      throw badRequest(`The query could not be evaluated: ${(error as Error).message}.`);
    }
  };
}
