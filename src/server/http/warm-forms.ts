// What the JSON warm-up keeps, in order: the records a results table reads, with the projections
// it reads them with, then every served material in each warmed projection. A first results
// table on a fresh `matframe serve --synthetic 100000` spent twice the server time of a second
// (65 ms against 35-40 ms, the sum of its requests' times), the second finding the JSON of its
// records kept.
import type { Fields } from "../../schemas";
import { makeFieldSelector } from "../query/projection";
import type { RecordProjection } from "./serialized";
import type { OrderedRecords, WarmForm } from "./warm-up";

/** The projections a results table reads with (`client.results.toDataFrame`, src/frame/results/results-rows.ts). */
export interface WarmResults {
  /** `projection.fields` of its pages of property records. */
  properties: Fields;
  /** `projection.fields` of the jobs it reads by `_id`. */
  jobs: Fields;
  /** `projection.fields` of the materials (and bank materials) it reads by `_id`. */
  materials: Fields;
}

/** A collection's served records, in `_id` order, and by id. */
interface Served extends OrderedRecords {
  get(id: string): Record<string, unknown> | undefined;
}

/** The projection a request with these `fields` is answered in (undefined: whole records). */
export function projectionOf(fields: Fields): RecordProjection | undefined {
  return Object.keys(fields).length === 0
    ? undefined
    : { key: JSON.stringify(fields), select: makeFieldSelector(fields) };
}

/**
 * The warm-up's forms: with `results`, every served property record, the jobs they name and those
 * jobs' materials (in `materials` or `bank-materials`, as a results table asks both), each in the
 * results table's projection; then the served materials in each of `warmFields`.
 */
export function warmForms(
  materials: Served,
  collections: ReadonlyMap<string, { readonly served: Served }>,
  warmFields: readonly Fields[],
  results: WarmResults | undefined,
): WarmForm[] {
  const forms: WarmForm[] = [];
  const properties = collections.get("properties")?.served;
  if (results && properties) {
    forms.push({ source: properties, projection: projectionOf(results.properties), for: "results" });
    const jobs = named(
      collections.get("jobs")?.served,
      valuesAt(properties, (p) => path(p, "source", "info", "jobId")),
    );
    forms.push({ source: listed(jobs), projection: projectionOf(results.jobs), for: "results" });
    const materialIds = new Set<string>();
    for (const job of jobs) {
      const id = path(job, "_material", "_id");
      if (typeof id === "string") materialIds.add(id);
    }
    for (const served of [materials, collections.get("bank-materials")?.served])
      forms.push({
        source: listed(named(served, materialIds)),
        projection: projectionOf(results.materials),
        for: "results",
      });
  }
  for (const fields of warmFields)
    forms.push({ source: materials, projection: projectionOf(fields), for: "materials" });
  return forms;
}

/** The value at a path of plain objects, or undefined. */
function path(record: unknown, ...keys: string[]): unknown {
  let value = record;
  for (const key of keys)
    value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

/** The distinct strings `pick` finds in the records. */
function valuesAt(records: OrderedRecords, pick: (record: Record<string, unknown>) => unknown): Set<string> {
  const values = new Set<string>();
  for (let i = 0; i < records.size; i++) {
    const record = records.at(i);
    const value = record && pick(record);
    if (typeof value === "string") values.add(value);
  }
  return values;
}

/** The records of `served` with these ids, in `_id` order. */
function named(served: Served | undefined, ids: ReadonlySet<string>): Record<string, unknown>[] {
  if (!served) return [];
  const found: Record<string, unknown>[] = [];
  for (const id of [...ids].sort()) {
    const record = served.get(id);
    if (record) found.push(record);
  }
  return found;
}

const listed = (records: readonly Record<string, unknown>[]): OrderedRecords => ({
  size: records.length,
  at: (index) => records[index],
});
