import { badRequest, HttpError } from "../http/http-errors";
import { parseJsonObjectBody, readBody, readBytes } from "../http/request-input";
import { MAX_WRITE_BODY_BYTES } from "../records/record-rules";
import { owned, quoted } from "../collections/collection";
import { filesOf, MAX_UPLOADS, UNFINISHED, uploadKeyProblem } from "../collections/job-files";
import type { StoredRecord } from "../records/store";
import { requireSession } from "./auth-handlers";
import { filePath, refusalMessage } from "./job-handlers";
import type { Reply, RequestInfo, ServerState } from "./reply";
import { success } from "./reply";

/** Bytes one uploaded file may have. */
export const MAX_UPLOAD_BYTES = 16 * 1024 * 1024;

function jobs(state: ServerState) {
  return state.collections.get("jobs")!;
}

/** Refuses files for a job that is waiting or running: its folder belongs to the run then. */
function checkNotRunning(job: StoredRecord): void {
  if (UNFINISHED.includes(String(job.status)))
    throw badRequest(
      `The job ${quoted(job._id)} is ${String(job.status)}; files can be added before it is submitted or after it has ended.`,
    );
}

/** The `files` of a body: a list of 1 to 100 paths in the job's folder, each checked. */
function keysOf(body: Record<string, unknown>, example: string): string[] {
  const files = body.files;
  if (!Array.isArray(files) || files.length === 0 || files.length > MAX_UPLOADS)
    throw badRequest(`files must be a list of 1 to ${MAX_UPLOADS} paths in the job's folder, e.g. ${example}.`);
  return files.map((file, i) => {
    const key = typeof file === "string" ? file : (file as { key?: unknown } | null)?.key;
    if (typeof key !== "string") throw badRequest(`files[${i}] must be a path such as "pw.in" (or {"key": "pw.in"}).`);
    const problem = uploadKeyProblem(key);
    if (problem) throw badRequest(`files[${i}] (${quoted(key)}) is refused: ${problem}.`);
    return key;
  });
}

/**
 * POST /jobs/<id>/presigned-urls `{"files": ["pw.in"]}`: URLs to upload those files into the
 * job's folder with a plain PUT and no other credential, as the platform's client gets them
 * (`{"presignedURLs": [{"file", "URL"}]}`).
 */
export async function handlePresignedUrls(info: RequestInfo, state: ServerState, id: string): Promise<Reply> {
  const caller = requireSession(info, state);
  const body = parseJsonObjectBody(
    await readBody(info.req, MAX_WRITE_BODY_BYTES),
    "The files to upload",
    '{"files": ["pw.in"]}',
  );
  const job = owned(state, jobs(state), caller, id);
  checkNotRunning(job);
  const origin = `http://${info.req.headers.host ?? "127.0.0.1"}`;
  const presignedURLs = keysOf(body, '["pw.in"]').map((file) => {
    const path = filePath(job._id, file);
    return { file, URL: `${origin}${path}?${state.fileUrls.sign({ method: "PUT", path, accountId: caller._id })}` };
  });
  return success({ presignedURLs });
}

/**
 * PUT /jobs/<id>/files/<key>?account=&expires=&signature=: an upload by a presigned URL. The file
 * goes into the job's folder and is listed among its files as an input.
 */
export async function handleFileUpload(info: RequestInfo, state: ServerState, id: string, key: string): Promise<Reply> {
  const checked = state.fileUrls.check("PUT", filePath(id, key), info.params);
  if ("refused" in checked) throw new HttpError(403, refusalMessage(checked.refused));
  const bytes = await readBytes(info.req, MAX_UPLOAD_BYTES);
  const uploaded = await state.written.write(() => {
    const job = state.written.get(id, "jobs");
    if ((job?.owner as { _id?: unknown } | undefined)?._id !== checked.accountId)
      throw new HttpError(403, "This upload URL is refused: its job is no longer the signing account's.");
    checkNotRunning(job!);
    const run = (job!.localRun ?? {}) as { uploads?: unknown[] };
    const uploads = (run.uploads ?? []).filter((file) => (file as { relativePath?: unknown }).relativePath !== key);
    if (uploads.length >= MAX_UPLOADS)
      throw badRequest(`The job ${quoted(id)} has ${MAX_UPLOADS} uploaded files, as many as a job may have.`);
    state.jobs.folders.write(id, key, bytes);
    const name = key.split("/").at(-1)!;
    const next = {
      ...job!,
      localRun: { ...run, uploads: [...uploads, { name, relativePath: key, kind: "input", unitId: "" }] },
    };
    return { put: next, result: { key, size: bytes.length }, collection: "jobs" };
  });
  return success(uploaded);
}

/**
 * POST /jobs/<id>/output-files `{"files": ["results.txt"]}`: marks files already uploaded to the
 * job's folder (by presigned URL) as its outputs, as a job run elsewhere reports them.
 */
export async function handleOutputFiles(info: RequestInfo, state: ServerState, id: string): Promise<Reply> {
  const caller = requireSession(info, state);
  const body = parseJsonObjectBody(
    await readBody(info.req, MAX_WRITE_BODY_BYTES),
    "The output files",
    '{"files": ["pw.out"]}',
  );
  const keys = keysOf(body, '["pw.out"] (upload them first: POST /jobs/<id>/presigned-urls, then PUT each URL)');
  const updated = await state.written.write(() => {
    const job = owned(state, jobs(state), caller, id);
    checkNotRunning(job);
    const listed = new Set(state.jobs.folders.list(job).map((file) => file.key));
    const missing = keys.find((key) => !listed.has(key));
    if (missing !== undefined)
      throw badRequest(
        `The job ${quoted(id)} has no file ${quoted(missing)}; upload it first (POST /jobs/<id>/presigned-urls, then PUT the file to its URL).`,
      );
    const run = (job.localRun ?? {}) as { uploads?: unknown[] };
    const uploads = (run.uploads ?? []).map((file) =>
      keys.includes((file as { relativePath: string }).relativePath) ? { ...(file as object), kind: "output" } : file,
    );
    const next = { ...job, localRun: { ...run, uploads } };
    return { put: next, result: next, collection: "jobs" };
  });
  const outputs = filesOf(updated).filter((file) => file.kind === "output" && keys.includes(file.relativePath));
  return success(outputs.map((file) => ({ name: file.name, key: file.relativePath })));
}
