// A results read's `query`: MongoDB-style conditions on the results table's own columns
// (`{"material.formula": "GaN"}`, `{"band_gaps.indirect": {"$gt": 1}}`). Every condition is
// applied to the joined rows, so the table is exactly the filter of the full one; a condition on a
// column that is a plain field of a collection is also sent to the platform with that
// collection's request, so fewer records travel.
import type * as MingoCore from "mingo/core";
import type * as MingoQuery from "mingo/query";
import { ValidationError } from "../../errors";
import type { Query as QueryDocument } from "../../schemas";
import { nearestPath } from "../table/suggest";
import { recordCondition, type PropertyColumns } from "./property-columns";

/**
 * The columns of a results table as planned, that a query is checked against and split by (the
 * results plan carries them; named here by shape so that the plan can import this file).
 */
export interface PlannedColumns {
  readonly names: readonly string[];
  readonly properties: readonly PropertyColumns[];
  readonly materialNames: readonly string[];
  readonly material: ColumnPlan;
}
import type { ColumnPlan } from "../table/column-spec";

const LOGICAL = ["$and", "$or", "$nor"];
const OPERATORS = [
  ...LOGICAL,
  ...["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$all", "$not", "$exists", "$type"],
  ...["$regex", "$mod", "$elemMatch", "$size"],
];

type OperatorTable = NonNullable<NonNullable<Parameters<typeof MingoCore.Context.init>[0]>["query"]>;
interface Mingo {
  readonly Query: typeof MingoQuery.Query;
  readonly context: MingoCore.Context;
}
let mingo: Mingo | undefined;

/**
 * mingo, loaded when a results read first has a query: its ~50 files cost `require("matframe")`
 * 20 ms (a fifth of the root entry's own load) for every program, most of which never filter
 * a results table.
 */
function loadMingo(): Mingo {
  if (mingo) return mingo;
  const { Context } = require("mingo/core") as typeof MingoCore;
  const queryOperators = require("mingo/operators/query") as Record<string, unknown>;
  const context = Context.init({
    query: Object.fromEntries(OPERATORS.map((name) => [name, queryOperators[name]])) as OperatorTable,
  });
  mingo = { Query: (require("mingo/query") as typeof MingoQuery).Query, context };
  return mingo;
}

/** A results query, checked and split: the row test, and what each collection's request can carry. */
export interface ResultsQuery {
  /** Whether a joined row (keyed by column name) is kept. */
  readonly keeps: (row: Readonly<Record<string, unknown>>) => boolean;
  /** Added to the properties' query (conditions on the value columns). */
  readonly properties: QueryDocument;
  /** Added to the request for a page's jobs (conditions on `job.` fields). */
  readonly jobs: QueryDocument;
  /** Added to the requests for a page's materials (conditions on plain material fields). */
  readonly materials: QueryDocument;
}

const example = `e.g. { "material.formula": "GaN" } or { "band_gaps.indirect": { "$gt": 1 } }`;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks `query` against the plan's columns and compiles it.
 * @throws ValidationError (`option: "query"`) naming a key that is not a column (with the nearest
 *   one) or an operator matframe does not know.
 */
export function planResultsQuery(query: unknown, plan: PlannedColumns): ResultsQuery | undefined {
  if (query === undefined) return undefined;
  if (!isPlainObject(query))
    throw new ValidationError("query", `query must be an object of conditions on the table's columns, ${example}.`);
  // mingo reads dots as paths, and the column names hold dots: each column becomes a plain key.
  const keyOf = new Map(plan.names.map((name, i) => [name, `c${i}`]));
  const rewrite = (document: Record<string, unknown>, where: string): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(document).map(([key, value]) => {
        if (LOGICAL.includes(key)) {
          if (!Array.isArray(value) || value.length === 0 || !value.every(isPlainObject))
            throw new ValidationError("query", `${where}${key} takes a non-empty list of conditions, ${example}.`);
          return [key, value.map((part, i) => rewrite(part, `${where}${key}[${i}] > `))];
        }
        const column = keyOf.get(key);
        if (column === undefined) {
          const near = key.startsWith("$") ? undefined : nearestPath(key, plan.names);
          throw new ValidationError(
            "query",
            key.startsWith("$")
              ? `${where}${key} is not an operator a query may start with; use $and, $or or $nor, or name a column.`
              : `query names ${JSON.stringify(key)}, which is not a column of this results table${near ? ` (did you mean "${near}"?)` : ""}. A query filters the table's own columns: ${plan.names.join(", ")}; add a material or job column with columns to filter on it.`,
          );
        }
        return [column, value];
      }),
    );
  const rewritten = rewrite(query, "");
  const { Query, context } = loadMingo();
  let compiled: MingoQuery.Query;
  try {
    compiled = new Query(rewritten, { context });
    compiled.test({}); // an operator that is not allowed fails here, before any request
  } catch (error) {
    throw new ValidationError(
      "query",
      `The query could not be compiled: ${(error as Error).message}. It takes the operators ${OPERATORS.join(" ")}.`,
    );
  }
  const keeps = (row: Readonly<Record<string, unknown>>): boolean => {
    const cells: Record<string, unknown> = {};
    plan.names.forEach((name, i) => {
      cells[`c${i}`] = row[name] ?? null;
    });
    return compiled.test(cells);
  };
  return { keeps, ...pushedDown(query, plan) };
}

/**
 * The top-level conditions a collection's request can carry. Only conditions that a missing
 * value fails are sent (a row with no material fails them anyway), so sending them drops no row
 * the table keeps.
 */
function pushedDown(
  query: Record<string, unknown>,
  plan: PlannedColumns,
): { properties: QueryDocument; jobs: QueryDocument; materials: QueryDocument } {
  const out = { properties: {} as QueryDocument, jobs: {} as QueryDocument, materials: {} as QueryDocument };
  const { Query, context } = loadMingo();
  const values: QueryDocument[] = [];
  for (const [name, condition] of Object.entries(query)) {
    if (LOGICAL.includes(name) || new Query({ v: condition }, { context }).test({ v: null })) continue;
    const value = plan.properties.find((p) => p.parts.some((part) => name === `${p.slug}.${part}`));
    if (value && plan.properties.length === 1) {
      const sent = recordCondition(value, name.slice(value.slug.length + 1), condition);
      if (sent !== undefined) values.push(sent);
      continue;
    }
    if (name.startsWith("job.") && name !== "job._id") {
      out.jobs[name.slice("job.".length)] = condition;
      continue;
    }
    const m = plan.materialNames.indexOf(name);
    const def = m < 0 ? undefined : plan.material.columns[m];
    if (def && def.name !== "_id" && !def.computed && !def.method && def.namedEntryAt === undefined)
      out.materials[def.name] = condition;
  }
  if (values.length === 1) out.properties = values[0]!;
  else if (values.length > 1) out.properties = { $and: values };
  return out;
}
