import { readFileSync } from "node:fs";
import { DatasetError } from "../../../errors";
import * as path from "node:path";
import { deterministicId } from "../../records/ids";
import { PUBLIC_OWNER } from "../../records/owners";
import type { StoredRecord } from "../../records/store";
import { dielectricProperties, type ReferenceDielectric } from "./reference-properties";

/** The folder of the checked-in platform data, two levels up from src/ or dist/. */
export const DATA_DIR = path.join(__dirname, "..", "..", "..", "..", "data");

/** The standata workflow whose finished jobs carry the reference band gaps (VASP, GGA-PBE, PAW). */
export const REFERENCE_WORKFLOW_PATH = "data/workflows/workflows/vasp/band_gap.json";

/** When the reference jobs finished, as their records say: the publication of the dataset. */
const PUBLISHED_AT = "2017-01-31T00:00:00.000Z";

/** One material's published band gap and dielectric properties, as data/reference-results.json keeps them. */
export interface ReferenceResult extends ReferenceDielectric {
  material: { _id: string; external: string };
  bandGap: number;
  /** Whether the Materials Project computed it with a Hubbard U (GGA+U). */
  hubbardU: boolean;
  /** The row of matminer's CSV. */
  row: number;
}

/** The reference results, ready to serve and to match submitted jobs against. */
export interface ReferenceData {
  materials: StoredRecord[];
  project: StoredRecord;
  jobs: StoredRecord[];
  properties: StoredRecord[];
  /** The result for a Materials Project id (`mp-149`). */
  byExternalId: ReadonlyMap<string, ReferenceResult>;
}

export function readDataFile<T>(name: string): T {
  return JSON.parse(readFileSync(path.join(DATA_DIR, name), "utf8")) as T;
}

/** Where the value comes from, said in every record that carries it. */
export const REFERENCE_CITATION =
  "Materials Project band gap (GGA-PBE, or GGA+U where the Materials Project applies U), from matminer's dielectric_constant dataset: " +
  "Petousis et al., Sci. Data 4, 160134 (2017), doi:10.1038/sdata.2016.134, CC BY 4.0.";

/**
 * The band_gaps property of a published gap: one value, the fundamental gap (conduction band
 * minimum less valence band maximum, over all k-points), which is what the platform's `indirect`
 * band gap measures. The source does not say whether the gap is direct, so no `direct` value is
 * given.
 */
export function bandGapsData(result: ReferenceResult): Record<string, unknown> {
  return { name: "band_gaps", values: [{ type: "indirect", value: result.bandGap, units: "eV" }] };
}

/** The unit of a workflow that computes band gaps, and its subworkflow. */
export function bandGapUnit(
  workflow: Record<string, unknown>,
): { subworkflow: Record<string, unknown>; unit: Record<string, unknown> } | undefined {
  for (const subworkflow of (workflow.subworkflows as Record<string, unknown>[] | undefined) ?? []) {
    for (const unit of (subworkflow.units as Record<string, unknown>[] | undefined) ?? []) {
      const results = (unit.results as { name?: unknown }[] | undefined) ?? [];
      if (results.some((result) => result?.name === "band_gaps")) return { subworkflow, unit };
    }
  }
  return undefined;
}

/** The reference workflow as a job of a +U result embeds it: the model says `hubbardType: "u"` (ESSE's model mixin). */
export function withHubbard(workflow: StoredRecord): StoredRecord {
  return {
    ...workflow,
    subworkflows: (workflow.subworkflows as Record<string, unknown>[]).map((subworkflow) => ({
      ...subworkflow,
      model: { ...(subworkflow.model as object), hubbardType: "u" },
    })),
  };
}

/** A property record of a job's unit, as jobs write them. */
export function propertyRecord(fields: {
  _id: string;
  job: StoredRecord;
  unitId: string;
  data: Record<string, unknown>;
  owner: unknown;
  createdAt: string;
  materialId: string;
  url?: string;
  /** Where the value comes from. @default the reference data's citation */
  description?: string;
}): StoredRecord {
  return {
    _id: fields._id,
    slug: String(fields.data.name),
    data: fields.data,
    source: {
      type: "exabyte",
      ...(fields.url ? { url: fields.url } : {}),
      info: { jobId: fields.job._id, unitId: fields.unitId, materialId: fields.materialId },
    },
    exabyteId: [fields.materialId],
    description: fields.description ?? REFERENCE_CITATION,
    owner: fields.owner,
    createdAt: fields.createdAt,
  };
}

/**
 * The reference results as the platform keeps results: one public project, and per material a
 * finished job of the VASP band-gap workflow (its model with `hubbardType: "u"` where the
 * Materials Project used GGA+U) and the property records of the workflow's band-gap unit
 * (band_gaps, and the dataset's dielectric_tensor, dielectric_constant and refractive_index),
 * linked by `source.info.jobId` and `source.info.unitId` (the unit's `flowchartId`).
 */
export function loadReferenceData(bankWorkflows: readonly StoredRecord[]): ReferenceData {
  const materials = readDataFile<StoredRecord[]>("reference-materials.json");
  const { results } = readDataFile<{ results: ReferenceResult[] }>("reference-results.json");
  const workflow = bankWorkflows.find(
    (w) => (w.external as { path?: string } | undefined)?.path === REFERENCE_WORKFLOW_PATH,
  );
  if (!workflow)
    throw new DatasetError(
      `data/bank-workflows.json has no ${REFERENCE_WORKFLOW_PATH}; rebuild it with npm run platform-data.`,
    );
  const hubbard = withHubbard(workflow);
  const unitId = String(bandGapUnit(workflow)!.unit.flowchartId);
  const project: StoredRecord = {
    _id: deterministicId("project:reference:matminer-dielectric-constant"),
    name: "Materials Project band gaps (Petousis et al. 2017)",
    slug: "reference-band-gaps",
    isDefault: false,
    description: REFERENCE_CITATION,
    tags: ["reference"],
    owner: PUBLIC_OWNER,
    createdAt: PUBLISHED_AT,
  };
  const byMaterialId = new Map(materials.map((material) => [material._id, material]));
  const jobs: StoredRecord[] = [];
  const properties: StoredRecord[] = [];
  for (const result of results) {
    const material = byMaterialId.get(result.material._id);
    if (!material)
      throw new DatasetError(
        `data/reference-results.json names a material data/reference-materials.json lacks (${result.material._id}).`,
      );
    const job: StoredRecord = {
      _id: deterministicId(`job:reference:${result.material.external}`),
      name: `Band Gap ${material.formula} (${result.material.external})`,
      status: "finished",
      compute: { queue: "D", nodes: 1, ppn: 1, timeLimit: "01:00:00" },
      _project: { _id: project._id, slug: project.slug as string, cls: "Project" },
      _material: { _id: material._id, cls: "Material", slug: result.material.external },
      workflow: result.hubbardU ? hubbard : workflow,
      tags: ["reference", result.hubbardU ? "GGA+U" : "GGA"],
      description: REFERENCE_CITATION,
      owner: PUBLIC_OWNER,
      createdAt: PUBLISHED_AT,
    };
    jobs.push(job);
    properties.push(
      propertyRecord({
        _id: deterministicId(`property:reference:${result.material.external}:band_gaps`),
        job,
        unitId,
        data: bandGapsData(result),
        owner: PUBLIC_OWNER,
        createdAt: PUBLISHED_AT,
        materialId: material._id,
        url: `https://next-gen.materialsproject.org/materials/${result.material.external}`,
      }),
    );
    // The dataset's dielectric properties, of the same job and unit: the rows of a results table
    // of any of them join the same material, method and job.
    for (const { data, description } of dielectricProperties(result)) {
      properties.push(
        propertyRecord({
          _id: deterministicId(`property:reference:${result.material.external}:${String(data.name)}`),
          job,
          unitId,
          data,
          owner: PUBLIC_OWNER,
          createdAt: PUBLISHED_AT,
          materialId: material._id,
          url: `https://next-gen.materialsproject.org/materials/${result.material.external}`,
          description,
        }),
      );
    }
  }
  return {
    materials,
    project,
    jobs,
    properties,
    byExternalId: new Map(results.map((result) => [result.material.external, result])),
  };
}
