import { z } from "zod";
import { Method } from "./method";

// The records beyond materials, after the platform's ESSE schemas (@mat3ra/esse, Apache-2.0:
// `job`, `workflow`, `workflow/subworkflow`, `workflow/unit`, `project`, `property/raw`). Only
// the keys matframe reads are named; every other key is kept as sent, and every named key is
// optional where a projection may leave it out (`_id` always comes back).

/** A reference to another record, as jobs keep their project and material (`{_id, cls, slug}`). */
export const EntityReference = z.looseObject({
  _id: z.string(),
  cls: z.string().optional(),
  slug: z.string().optional(),
});
export type EntityReference = z.infer<typeof EntityReference>;

/** The owner of a record. */
const Owner = z.looseObject({ _id: z.string(), slug: z.string().optional() });

/** An application a subworkflow runs, e.g. `{ name: "vasp", version: "5.4.4" }`. */
export const Application = z.looseObject({
  name: z.string(),
  version: z.string().optional(),
  build: z.string().optional(),
});
export type Application = z.infer<typeof Application>;

/** The model of a subworkflow (`{ type: "dft", subtype: "gga", method: { type, subtype, data } }`); the method lives here. */
export const Model = z.looseObject({ type: z.string(), subtype: z.string(), method: Method.optional() });
export type Model = z.infer<typeof Model>;

/** One unit of a subworkflow's flowchart; properties name the unit that computed them by its `flowchartId`. */
export const WorkflowUnit = z.looseObject({
  flowchartId: z.string(),
  type: z.string().optional(),
  name: z.string().optional(),
  results: z.array(z.looseObject({ name: z.string() })).optional(),
});
export type WorkflowUnit = z.infer<typeof WorkflowUnit>;

/** A subworkflow: one application and one model, run over its units. */
export const Subworkflow = z.looseObject({
  _id: z.string().optional(),
  name: z.string().optional(),
  application: Application.optional(),
  model: Model.optional(),
  units: z.array(WorkflowUnit).optional(),
});
export type Subworkflow = z.infer<typeof Subworkflow>;

/** A workflow record (`workflows`, `bank-workflows`), and the workflow a job embeds. */
export const WorkflowRecord = z.looseObject({
  _id: z.string(),
  name: z.string().optional(),
  subworkflows: z.array(Subworkflow).optional(),
  units: z.array(z.looseObject({ flowchartId: z.string().optional() })).optional(),
  owner: Owner.optional(),
  tags: z.array(z.string()).optional(),
});
export type WorkflowRecord = z.infer<typeof WorkflowRecord>;

/** A job record: what ran (its embedded `workflow`), on which material, and how far it got (`status`). */
export const JobRecord = z.looseObject({
  _id: z.string(),
  name: z.string().optional(),
  status: z.string().optional(),
  compute: z.record(z.string(), z.unknown()).optional(),
  _project: EntityReference.optional(),
  _material: EntityReference.optional(),
  workflow: WorkflowRecord.partial().optional(),
  owner: Owner.optional(),
  tags: z.array(z.string()).optional(),
  createdAt: z.string().optional(),
});
export type JobRecord = z.infer<typeof JobRecord>;

/** A project record; each account has a default one (`isDefault`). */
export const ProjectRecord = z.looseObject({
  _id: z.string(),
  name: z.string().optional(),
  slug: z.string().optional(),
  isDefault: z.boolean().optional(),
  owner: Owner.optional(),
});
export type ProjectRecord = z.infer<typeof ProjectRecord>;

/**
 * One value of a property's `data.values`: a band gap's `{ type: "indirect", value, units: "eV" }`,
 * or a tensor's `{ part: "real", frequencies, components }` (ESSE's `dielectric_tensor`, no `value`).
 */
export const PropertyValue = z.looseObject({
  type: z.string().optional(),
  value: z.unknown().optional(),
  units: z.string().optional(),
});

/**
 * A property record (`properties`): a result, named by `slug` (`band_gaps`, `total_energy`), its
 * `data` (a scalar `{ name, value, units }`, or `{ name, values: [...] }`), and the job, unit and
 * material it came from in `source.info`.
 */
export const PropertyRecord = z.looseObject({
  _id: z.string(),
  slug: z.string().optional(),
  data: z
    .looseObject({
      name: z.string(),
      value: z.unknown().optional(),
      units: z.string().optional(),
      values: z.array(PropertyValue).optional(),
    })
    .optional(),
  source: z
    .looseObject({
      type: z.string().optional(),
      url: z.string().optional(),
      info: z
        .looseObject({ jobId: z.string().optional(), unitId: z.string().optional(), materialId: z.string().optional() })
        .optional(),
    })
    .optional(),
  exabyteId: z.array(z.string()).optional(),
  owner: Owner.optional(),
});
export type PropertyRecord = z.infer<typeof PropertyRecord>;

/** ESSE's job statuses (`job/base.json`), in the order a job may pass through them. */
export const JobStatus = z.enum([
  "pre-submission",
  "queued",
  "submitted",
  "active",
  "finished",
  "terminate-queued",
  "terminated",
  "error",
  "deleted",
  "timeout",
]);
export type JobStatus = z.infer<typeof JobStatus>;

/** The statuses a job does not leave: `jobs.waitFor` stops at these unless told otherwise. */
export const FINAL_JOB_STATUSES: readonly JobStatus[] = ["finished", "error", "terminated", "timeout", "deleted"];

/**
 * One file of a job (`GET /jobs/<id>/files`): its storage `key` (a path below the job's folder),
 * `name`, `size` in bytes and a `signedUrl` that downloads it without other credentials (signed,
 * time-limited, bound to the job's account). The platform's Python client documents the URL as
 * `signedURL`; both spellings are read.
 */
export const JobFile = z.looseObject({
  key: z.string(),
  name: z.string().optional(),
  size: z.number().optional(),
  signedUrl: z.string().optional(),
  signedURL: z.string().optional(),
  lastModified: z.union([z.number(), z.string()]).optional(),
});
export type JobFile = z.infer<typeof JobFile>;
