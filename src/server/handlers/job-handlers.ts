import { readFileSync } from "node:fs";
import { API_PREFIX } from "../../schemas";
import { badRequest, HttpError, notFound } from "../http/http-errors";
import { owned, quoted, readableOr404 } from "../collections/collection";
import { UNFINISHED } from "../collections/job-files";
import type { UrlRefusal } from "../http/signed-urls";
import { requireSession } from "./auth-handlers";
import type { Reply, RequestInfo, ServerState } from "./reply";
import { success } from "./reply";

function jobs(state: ServerState) {
  return state.collections.get("jobs")!;
}

/** POST /jobs/<id>/submit: a job in `pre-submission` becomes `submitted`, then `active` when the queue runs it. */
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

/** POST /jobs/<id>/terminate: a job waiting or running becomes `terminated`, with no results after it; its process ends at once. */
export async function handleTerminate(info: RequestInfo, state: ServerState, id: string): Promise<Reply> {
  const caller = requireSession(info, state);
  const terminated = await state.jobs.terminate(caller, id, (job) =>
    badRequest(
      `The job ${quoted(id)} is ${String(job.status)}; only a queued, submitted or active job can be terminated.`,
    ),
  );
  return success(terminated);
}

/** POST /jobs/<id>/purge: removes a job's files (its folder); a job still running is refused, as the platform refuses it. */
export async function handlePurge(info: RequestInfo, state: ServerState, id: string): Promise<Reply> {
  const caller = requireSession(info, state);
  const job = owned(state, jobs(state), caller, id);
  if (UNFINISHED.includes(String(job.status)))
    throw badRequest(
      `The job ${quoted(id)} is ${String(job.status)}; terminate it (POST /jobs/<id>/terminate) before purging its files.`,
    );
  const files = state.jobs.folders.list(job).map((file) => file.key);
  state.jobs.folders.remove(job._id);
  return success({ _id: job._id, files });
}

/**
 * GET /jobs/<id>/files: the job's input and output files as the platform lists them, each with
 * a `signedUrl` that downloads it with no other credential (for the job's account, for an hour).
 */
export async function handleJobFiles(info: RequestInfo, state: ServerState, id: string): Promise<Reply> {
  const caller = requireSession(info, state);
  const job = readableOr404(state, jobs(state), caller, id);
  const origin = `http://${info.req.headers.host ?? "127.0.0.1"}`;
  const files = state.jobs.folders.list(job).map((file) => {
    const path = filePath(job._id, file.key);
    const query = state.fileUrls.sign({ method: "GET", path, accountId: caller._id });
    return { ...file, signedUrl: `${origin}${path}?${query}`, provider: "local", bucket: "matframe-serve" };
  });
  return success(files);
}

/**
 * GET /jobs/<id>/files/<key>?account=&expires=&signature=: one file's bytes, authorised by the
 * URL alone (no session): signed by this server, not expired, for this path, and for the account
 * that owns the job now.
 */
export async function handleFileDownload(
  info: RequestInfo,
  state: ServerState,
  id: string,
  key: string,
): Promise<Reply> {
  const path = filePath(id, key);
  const checked = state.fileUrls.check("GET", path, info.params);
  if ("refused" in checked) throw new HttpError(403, refusalMessage(checked.refused));
  const job = state.written.get(id, "jobs");
  const ownerId = (job?.owner as { _id?: unknown } | undefined)?._id;
  if (!job || ownerId !== checked.accountId)
    throw new HttpError(403, "This file URL is refused: its job is no longer the signing account's.");
  const file = state.jobs.folders.fileOf(job, key);
  const missing = () =>
    notFound(`The job ${quoted(id)} has no file ${quoted(key)} (purged?); list its files with GET /jobs/<id>/files.`);
  if (!file) throw missing();
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    throw missing();
  }
  return {
    status: 200,
    body: undefined,
    json: bytes,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Content-Disposition": `attachment; filename="${key.replace(/[^\w.-]/g, "_")}"`,
    },
  };
}

/** Why a file URL is refused, in words that say what to do. */
export function refusalMessage(refused: UrlRefusal): string {
  const why = {
    missing: "it has no signature; list the job's files (GET /jobs/<id>/files) for a signed URL",
    expired: "it has expired; list the job's files again (GET /jobs/<id>/files) for a fresh one",
    forged: "its signature does not match this path (or this server, which signs anew on every start)",
  }[refused];
  return `This file URL is refused: ${why}.`;
}

/** The URL path of a job's file, each segment escaped: what a signature covers. */
export function filePath(jobId: string, key: string): string {
  return `${API_PREFIX}/jobs/${encodeURIComponent(jobId)}/files/${key.split("/").map(encodeURIComponent).join("/")}`;
}
