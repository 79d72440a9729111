// Workflow tables one row per unit: on the platform the method lives in a workflow's subworkflows
// (`subworkflows[].model.method`), one model per subworkflow, run over its units. A column that
// names `subworkflows.` + a field (no index) reads, per row, one subworkflow and one of its units
// (`subworkflows.units.flowchartId`), so `subworkflows.model.method.type` is a column like
// `method.type` on materials, with the same method checks.
import { isIndexSegment, type ColumnPlan } from "./table/column-spec";
import type { PlatformRecord } from "../client/collection";

/** The collections whose records are workflows. */
const WORKFLOW_COLLECTIONS: ReadonlySet<string> = new Set(["workflows", "bank-workflows"]);

/** The columns a workflow table gets when none are named. */
export const WORKFLOW_COLUMNS: readonly string[] = Object.freeze([
  "_id",
  "name",
  "subworkflows.name",
  "subworkflows.application.name",
  "subworkflows.application.version",
  "subworkflows.model.type",
  "subworkflows.model.subtype",
  "subworkflows.model.method",
  "subworkflows.units.flowchartId",
  "subworkflows.units.name",
]);

/** Whether a table of `collection` with this plan has one row per unit: a workflow collection and a `subworkflows.<field>` column. */
export function rowsPerUnit(collection: string | undefined, plan: ColumnPlan): boolean {
  if (collection === undefined || !WORKFLOW_COLLECTIONS.has(collection)) return false;
  return plan.columns.some(
    ({ segments: [head, next] }) => head === "subworkflows" && next !== undefined && !isIndexSegment(next),
  );
}

/** The columns a job table gets when none are named: what it is, how it went, what it ran on and when. */
export const JOB_COLUMNS: readonly string[] = Object.freeze([
  "_id",
  "name",
  "status",
  "_material._id",
  "workflow.name",
  "_project.slug",
  "owner.slug",
  "createdAt",
]);

/** The columns a project table gets when none are named. */
export const PROJECT_COLUMNS: readonly string[] = Object.freeze([
  "_id",
  "name",
  "slug",
  "isDefault",
  "owner.slug",
  "createdAt",
]);

/** The columns a property table gets when none are named: its kind and the job, unit and material it came from. */
export const PROPERTY_COLUMNS: readonly string[] = Object.freeze([
  "_id",
  "slug",
  "source.info.jobId",
  "source.info.unitId",
  "source.info.materialId",
  "owner.slug",
  "createdAt",
]);

const DEFAULTS: ReadonlyMap<string, readonly string[]> = new Map([
  ["workflows", WORKFLOW_COLUMNS],
  ["bank-workflows", WORKFLOW_COLUMNS],
  ["jobs", JOB_COLUMNS],
  ["projects", PROJECT_COLUMNS],
  ["properties", PROPERTY_COLUMNS],
  ["metaproperties", PROPERTY_COLUMNS],
]);

/** The default columns of a collection's table, when it has its own (materials and bank materials use DEFAULT_COLUMNS). */
export function defaultColumnsOf(collection: string | undefined): readonly string[] | undefined {
  return collection === undefined ? undefined : DEFAULTS.get(collection);
}

/**
 * Pages of workflows as pages of rows, one per unit of each subworkflow: the record with
 * `subworkflows` set to that subworkflow and its `units` to that unit. A subworkflow without
 * units gives one row (units empty); a workflow without subworkflows gives one row too, so no
 * workflow is dropped from the table.
 */
export async function* unitRows(
  pages: AsyncIterable<PlatformRecord[]>,
): AsyncGenerator<PlatformRecord[], void, undefined> {
  for await (const page of pages) {
    const rows: PlatformRecord[] = [];
    for (const workflow of page) {
      const subworkflows = Array.isArray(workflow.subworkflows)
        ? (workflow.subworkflows as Record<string, unknown>[])
        : [];
      if (subworkflows.length === 0) rows.push({ ...workflow, subworkflows: undefined });
      for (const subworkflow of subworkflows) {
        const units =
          subworkflow !== null && typeof subworkflow === "object" && Array.isArray(subworkflow.units)
            ? (subworkflow.units as unknown[])
            : [];
        if (units.length === 0) rows.push({ ...workflow, subworkflows: { ...subworkflow, units: undefined } });
        for (const unit of units) rows.push({ ...workflow, subworkflows: { ...subworkflow, units: unit } });
      }
    }
    yield rows;
  }
}
