import { badRequest } from "../http/http-errors";
import type { Caller } from "../records/owners";
import { MaterialStore, type StoredRecord } from "../records/store";
import { forbidden, quoted, readable, referenceId, type Collection, type CollectionContext } from "./collection";
import { defaultMaterialSource, defaultProject } from "./account-defaults";
import { defaultWorkflow, emptyContextsAsObjects, findDefault } from "./workflows";

/** The compute a job gets when it sends none, and the fields a sent compute is completed with (ESSE requires these four). */
export const DEFAULT_COMPUTE = { queue: "D", nodes: 1, ppn: 1, timeLimit: "01:00:00" } as const;

/**
 * `jobs`: the public reference jobs (finished, with their results) and each account's own, which
 * it creates, changes, submits, terminates and deletes. The server owns `status`: it changes only
 * through submit and terminate.
 */
export function jobCollection(reference: readonly StoredRecord[], scanBudgetMs?: number): Collection {
  return {
    name: "jobs",
    noun: "job",
    served: new MaterialStore(reference, { scanBudgetMs }),
    writable: true,
    ownRecords: "jobs",
    serverPaths: ["status", "localRun", "startTime"],
    copyTo: "jobs",
    sets: true,
    defaults: false,
    verbs: ["submit", "terminate", "purge", "files", "presigned-urls", "output-files"],
    entityClass: "Job",
    esseSchema: "job",
    complete: completeJob,
    // The embedded workflow is stored as a workflow is.
    normalize: (job) =>
      typeof job.workflow === "object" && job.workflow !== null
        ? { ...job, workflow: emptyContextsAsObjects(job.workflow as Record<string, unknown>) }
        : job,
    deletedByRunner: true,
  };
}

/**
 * A job as sent, completed with the platform's defaults so that it validates: the account's
 * default project, the named (or default) workflow embedded whole, the named (or default)
 * material, the compute as sent with its required fields filled in, status `pre-submission`.
 */
export async function completeJob(
  context: CollectionContext,
  caller: Caller,
  fields: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  for (const path of ["localRun", "startTime"]) {
    if (fields[path] !== undefined)
      throw badRequest(`${path} is refused: the server keeps it (it is set when the job runs); leave it out.`);
  }
  if (fields.status !== undefined && fields.status !== "pre-submission") {
    throw badRequest(
      `A new job's status is "pre-submission" (the server moves it on: POST /jobs/<id>/submit); leave "status" out.`,
    );
  }
  for (const kept of ["localRun", "startTime"]) {
    if (fields[kept] !== undefined)
      throw badRequest(`A new job's ${kept} is the server's to set (it runs the job); leave "${kept}" out.`);
  }
  const projectId = referenceId(fields._project, "_project");
  const project =
    projectId === undefined
      ? await defaultProject(context, caller)
      : readable(context, context.collections.get("projects")!, caller, projectId);
  if (!project)
    throw badRequest(
      `_project names no project of yours (${quoted(projectId!)}); list them with GET /projects, or leave _project out for your default project.`,
    );
  if (projectId !== undefined && (project.owner as { _id?: unknown })._id !== caller._id) {
    throw forbidden(
      `_project ${quoted(projectId)} is not one of your projects; a job goes in a project of its own account.`,
    );
  }
  return {
    name: "New Job",
    tags: [],
    ...fields,
    status: "pre-submission",
    compute: completeCompute(fields.compute),
    _project: { _id: project._id, slug: project.slug, cls: "Project" },
    workflow: resolveWorkflow(context, caller, fields.workflow),
    ...materialReferences(context, caller, fields),
  };
}

function completeCompute(compute: unknown): Record<string, unknown> {
  if (compute === undefined || compute === null) return { ...DEFAULT_COMPUTE };
  if (typeof compute !== "object" || Array.isArray(compute))
    throw badRequest(`compute must be an object such as ${JSON.stringify(DEFAULT_COMPUTE)}.`);
  return { ...DEFAULT_COMPUTE, ...compute };
}

/** The workflow a job embeds: as sent when whole, the readable workflow it names by `_id`, or the default one. */
function resolveWorkflow(context: CollectionContext, caller: Caller, workflow: unknown): Record<string, unknown> {
  if (workflow === undefined || workflow === null) return defaultWorkflow(context, caller);
  if (typeof workflow !== "object" || Array.isArray(workflow))
    throw badRequest(`workflow must be an object: {"_id": "<workflow id>"} or a whole workflow.`);
  const sent = workflow as Record<string, unknown>;
  if (Array.isArray(sent.subworkflows) && Array.isArray(sent.units)) return emptyContextsAsObjects(sent);
  const id = referenceId(sent, "workflow");
  const found = readable(context, context.collections.get("workflows")!, caller, id!);
  if (!found)
    throw badRequest(
      `workflow names no workflow you can read (${quoted(id!)}); list them with GET /workflows or GET /bank-workflows.`,
    );
  return found;
}

/** `_material` (or `_materials`) as sent, each naming a material the caller can read; else the default material. */
function materialReferences(
  context: CollectionContext,
  caller: Caller,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  const check = (value: unknown, where: string) => {
    const id = referenceId(value, where)!;
    if (!findMaterial(context, caller, id)) {
      throw badRequest(
        `${where} names no material you can read (${quoted(id)}); list them with GET /materials or GET /bank-materials.`,
      );
    }
    return { ...(value as object), _id: id, cls: "Material" };
  };
  if (fields._materials !== undefined) {
    if (!Array.isArray(fields._materials) || fields._materials.length === 0 || fields._materials.length > 1000) {
      throw badRequest(`_materials must be a list of 1 to 1000 references {"_id": "<material id>"}.`);
    }
    const materials = fields._materials.map((value, i) => check(value, `_materials[${i}]`));
    return { _materials: materials, _material: materials[0], isMultiMaterial: true };
  }
  // The platform's qe_scf_calculation notebook sends the string "null" for "no material": the default one.
  if (fields._material !== undefined && fields._material !== null && fields._material !== "null")
    return { _material: check(fields._material, "_material") };
  const chosen = findDefault(context, caller, "materials") ?? defaultMaterialSource(context);
  if (!chosen) return {};
  return { _material: { _id: chosen._id, cls: "Material", slug: String(chosen.formula ?? "") } };
}

/** A material the caller can read by id: the served ones, their own, and the bank's. */
export function findMaterial(context: CollectionContext, caller: Caller, id: string): StoredRecord | undefined {
  return (
    readable(context, context.collections.get("materials")!, caller, id) ??
    context.collections.get("bank-materials")!.served.get(id)
  );
}
