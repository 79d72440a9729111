// What the JSON warm-up keeps, in order: the records a results table reads, with the projections
// it reads them with, then every served material in each warmed projection. A first results
// table on a fresh `matframe serve --synthetic 100000` spent twice the server time of a second
// (65 ms against 35-40 ms, the sum of its requests' times), the second finding the JSON of its
// records kept.
import type { Fields } from "../../schemas";
import { stringsAt } from "../query/index-plan";
import { recordProjection } from "../query/projection";
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
    forms.push({ source: properties, projection: recordProjection(results.properties), for: "results" });
    const jobs = named(collections.get("jobs")?.served, stringsOf(properties, "source.info.jobId"));
    forms.push({ source: listed(jobs), projection: recordProjection(results.jobs), for: "results" });
    const materialIds = stringsOf(listed(jobs), "_material._id");
    for (const served of [materials, collections.get("bank-materials")?.served])
      forms.push({
        source: listed(named(served, materialIds)),
        projection: recordProjection(results.materials),
        for: "results",
      });
  }
  for (const fields of warmFields)
    forms.push({ source: materials, projection: recordProjection(fields), for: "materials" });
  return forms;
}

/** The distinct strings at `path` in the records (through arrays, as a query matches). */
function stringsOf(records: OrderedRecords, path: string): Set<string> {
  const segments = path.split(".");
  const found: string[] = [];
  for (let i = 0; i < records.size; i++) stringsAt(records.at(i), segments, 0, found);
  return new Set(found);
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
