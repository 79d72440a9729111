import { badRequest } from "../http/http-errors";
import { owned, quoted, readableOr404 } from "../collections/collection";
import { requireSession } from "./auth-handlers";
import type { Reply, RequestInfo, ServerState } from "./reply";
import { success } from "./reply";

/** Statuses a job can be terminated from: it is waiting or running. */
const RUNNING = ["queued", "submitted", "active"];

function jobs(state: ServerState) {
  return state.collections.get("jobs")!;
}

/** POST /jobs/<id>/submit: a job in `pre-submission` becomes `submitted`, and finishes within seconds. */
export async function handleSubmit(info: RequestInfo, state: ServerState, id: string): Promise<Reply> {
  const caller = requireSession(info, state);
  const submitted = await state.written.write(() => {
    const job = owned(state, jobs(state), caller, id);
    if (job.status !== "pre-submission") {
      throw badRequest(
        `The job ${quoted(id)} is ${String(job.status)}; only a job in pre-submission can be submitted (copy it with POST /jobs/<id>/copy to run it again).`,
      );
    }
    const next = { ...job, status: "submitted", startTime: new Date().toISOString() };
    return { put: next, result: next, collection: "jobs" };
  });
  state.jobs.start(id);
  return success(submitted);
}

/** POST /jobs/<id>/terminate: a job waiting or running becomes `terminated`, with no results. */
export async function handleTerminate(info: RequestInfo, state: ServerState, id: string): Promise<Reply> {
  const caller = requireSession(info, state);
  const terminated = await state.written.write(() => {
    const job = owned(state, jobs(state), caller, id);
    if (!RUNNING.includes(String(job.status))) {
      throw badRequest(
        `The job ${quoted(id)} is ${String(job.status)}; only a queued, submitted or active job can be terminated.`,
      );
    }
    state.jobs.stop(id);
    const next = { ...job, status: "terminated" };
    return { put: next, result: next, collection: "jobs" };
  });
  return success(terminated);
}

/**
 * POST /jobs/<id>/purge: removes a job's files from the compute cluster. The local platform runs
 * no code and keeps no job files, so there is nothing to remove; a job still running is refused
 * as the platform refuses it.
 */
export async function handlePurge(info: RequestInfo, state: ServerState, id: string): Promise<Reply> {
  const caller = requireSession(info, state);
  const job = owned(state, jobs(state), caller, id);
  if (RUNNING.includes(String(job.status)))
    throw badRequest(
      `The job ${quoted(id)} is ${String(job.status)}; terminate it (POST /jobs/<id>/terminate) before purging its files.`,
    );
  return success({ _id: job._id, files: [] });
}

/** GET /jobs/<id>/files: the job's files; the local platform runs no code, so a job has none. */
export async function handleJobFiles(info: RequestInfo, state: ServerState, id: string): Promise<Reply> {
  const caller = requireSession(info, state);
  readableOr404(state, jobs(state), caller, id);
  return success([]);
}
