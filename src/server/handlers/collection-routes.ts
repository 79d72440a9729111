import { notFound } from "../http/http-errors";
import { API_PREFIX } from "../../schemas";
import {
  handleCopyRecord,
  handleCreateRecord,
  handleDeleteRecord,
  handleGetRecord,
  handleListRecords,
  handleUpdateRecord,
} from "./collection-handlers";
import { handleFileDownload, handleJobFiles, handlePurge, handleSubmit, handleTerminate } from "./job-handlers";
import { handleFileUpload, handleOutputFiles, handlePresignedUrls } from "./job-upload-handlers";
import type { Collection, RecordVerb } from "../collections/collection";
import type { Reply, RequestInfo, ServerState } from "./reply";
import { handleCreateSet, handleMoveToSet, handleSetDefault } from "./set-handlers";

/** How each verb after an id is answered; which collections answer it, each collection declares (collection.ts). */
interface VerbRoute {
  readonly method: "GET" | "POST";
  readonly answers: (collection: Collection) => boolean;
  readonly handle: (info: RequestInfo, state: ServerState, collection: Collection, id: string) => Promise<Reply>;
}

/** A verb of the jobs' lifecycle and files, answered for the collections that list it in `verbs`. */
function declared(
  verb: RecordVerb,
  method: VerbRoute["method"],
  handle: (info: RequestInfo, state: ServerState, id: string) => Promise<Reply>,
): VerbRoute {
  return { method, answers: (c) => c.verbs.includes(verb), handle: (info, state, _c, id) => handle(info, state, id) };
}

/** Verbs after an id, in the order an unknown endpoint's message lists them (a Map: a verb from a URL is no object key). */
const RECORD_VERBS: ReadonlyMap<string, VerbRoute> = new Map(
  Object.entries({
    copy: { method: "POST", answers: (c) => c.copyTo !== null, handle: handleCopyRecord },
    "set-default": { method: "POST", answers: (c) => c.defaults, handle: handleSetDefault },
    "move-to-set": { method: "POST", answers: (c) => c.sets, handle: handleMoveToSet },
    submit: declared("submit", "POST", handleSubmit),
    terminate: declared("terminate", "POST", handleTerminate),
    purge: declared("purge", "POST", handlePurge),
    files: declared("files", "GET", handleJobFiles),
    "presigned-urls": declared("presigned-urls", "POST", handlePresignedUrls),
    "output-files": declared("output-files", "POST", handleOutputFiles),
  } satisfies Record<string, VerbRoute>),
);

/** `POST <id>/copy, POST <id>/set-default, ...`: the verbs after an id a collection answers. */
export function recordVerbsOf(collection: Collection): string[] {
  return [...RECORD_VERBS]
    .filter(([, route]) => route.answers(collection))
    .map(([name, route]) => `${route.method} <id>/${name}`);
}

/**
 * Answers `/<collection>`, `/<collection>/<id>` and `/<collection>/<id>/<verb>` for every
 * collection but the materials' own endpoints (which router.ts answers), with the platform's
 * verbs: `create` and `create-set` are verbs only with PUT, so `GET /jobs/create` is an id.
 */
export async function routeCollection(
  info: RequestInfo,
  state: ServerState,
  rest: string[],
  allow: (...methods: string[]) => void,
): Promise<Reply> {
  const [name = "", id = "", verb = ""] = rest;
  const collection = state.collections.get(name)!;
  const { method } = info;
  if (rest.length === 1) {
    allow("GET");
    return handleListRecords(info, state, collection);
  }
  // A job file's signed URL: authorised by its query string, not a session (see handleFileDownload).
  if (collection.verbs.includes("files") && rest.length >= 4 && verb === "files" && id !== "") {
    allow("GET", "PUT");
    const key = rest.slice(3).join("/");
    return method === "PUT" ? handleFileUpload(info, state, id, key) : handleFileDownload(info, state, id, key);
  }
  if (rest.length === 2 && id === "create" && method === "PUT") return handleCreateRecord(info, state, collection);
  if (rest.length === 2 && id === "create-set" && method === "PUT" && collection.sets)
    return handleCreateSet(info, state, collection);
  if (rest.length === 2 && id !== "") {
    allow("GET", "PATCH", "DELETE");
    if (method === "PATCH") return handleUpdateRecord(info, state, collection, id);
    if (method === "DELETE") return handleDeleteRecord(info, state, collection, id);
    return handleGetRecord(info, state, collection, id);
  }
  const route = rest.length === 3 && id !== "" ? RECORD_VERBS.get(verb) : undefined;
  if (!route?.answers(collection)) {
    const verbs = recordVerbsOf(collection);
    throw notFound(
      `Unknown endpoint ${API_PREFIX}/${rest.join("/").slice(0, 200)}. ${collection.name} has GET, GET <id>, PUT create, PATCH|DELETE <id>${verbs.length ? `, ${verbs.join(", ")}` : ""}.`,
    );
  }
  allow(route.method);
  return route.handle(info, state, collection, id);
}
