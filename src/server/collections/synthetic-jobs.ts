import { DatasetError } from "../../errors";
import { deterministicId } from "../records/ids";
import { PUBLIC_OWNER } from "../records/owners";
import type { StoredRecord } from "../records/store";
import { DEFAULT_COMPUTE } from "./jobs";
import { DEFAULT_WORKFLOW_PATH } from "./workflows";

/** Why a synthetic job has no results, as its record says. */
export const SYNTHETIC_JOB_REASON =
  "A synthetic job of a synthetic material (made up for scale): nobody computed this structure, so the job has no properties.";

/** The public project the synthetic jobs belong to. */
export function syntheticProject(): StoredRecord {
  return {
    _id: deterministicId("project:synthetic"),
    name: "Synthetic jobs",
    slug: "synthetic-jobs",
    isDefault: false,
    tags: ["synthetic"],
    isSynthetic: true,
    owner: PUBLIC_OWNER,
    createdAt: "2024-06-01T00:00:00.000Z",
  };
}

/**
 * One finished job per synthetic material, for scale: the bank's Total Energy workflow (one
 * object, shared by every job) on that material, `isSynthetic: true`, tagged `synthetic`, with no
 * properties and the reason in `localRun`. Results for structures nobody computed would be made
 * up, so there are none; the jobs make `jobs` as big as `materials` for a walk or a join.
 */
export function makeSyntheticJobs(
  materials: readonly StoredRecord[],
  bank: readonly StoredRecord[],
  project: StoredRecord,
): StoredRecord[] {
  if (materials.length === 0) return [];
  const workflow =
    bank.find((w) => (w.external as { path?: string } | undefined)?.path === DEFAULT_WORKFLOW_PATH) ?? bank[0];
  // The bank is checked-in data (data/bank-workflows.json); empty means a broken install.
  if (workflow === undefined)
    throw new DatasetError(
      "data/bank-workflows.json holds no workflow, so synthetic jobs have none to name; reinstall matframe.",
    );
  const projectRef = { _id: project._id, slug: project.slug, cls: "Project" };
  const localRun = { properties: 0, reason: SYNTHETIC_JOB_REASON };
  const tags = ["synthetic"];
  return materials.map((material) => ({
    _id: deterministicId(`synthetic-job:${material._id}`),
    name: `${String(workflow.name)}: ${String(material.name)}`,
    status: "finished",
    compute: DEFAULT_COMPUTE,
    _project: projectRef,
    _material: { _id: material._id, cls: "Material", slug: String(material.formula ?? "") },
    workflow,
    tags,
    isSynthetic: true,
    localRun,
    owner: PUBLIC_OWNER,
    createdAt: material.createdAt,
  }));
}
