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
import type { Reply, RequestInfo, ServerState } from "./reply";
import { handleCreateSet, handleMoveToSet, handleSetDefault } from "./set-handlers";

/** The collections beyond materials, by path segment, as the platform's client names them. */
export const COLLECTION_NAMES = [
  "workflows",
  "bank-workflows",
  "jobs",
  "projects",
  "properties",
  "metaproperties",
  "bank-materials",
  "charges",
];

/** Collections whose records may be sets, and those with a default record. */
const WITH_SETS = ["materials", "jobs"];
const WITH_DEFAULT = ["materials", "workflows", "projects"];

/** Verbs after an id, each with its method, by the collections that have it. */
const RECORD_VERBS: Record<string, { method: string; collections: readonly string[] }> = {
  copy: { method: "POST", collections: ["workflows", "bank-workflows", "jobs", "projects", "bank-materials"] },
  "set-default": { method: "POST", collections: WITH_DEFAULT },
  "move-to-set": { method: "POST", collections: WITH_SETS },
  submit: { method: "POST", collections: ["jobs"] },
  terminate: { method: "POST", collections: ["jobs"] },
  purge: { method: "POST", collections: ["jobs"] },
  files: { method: "GET", collections: ["jobs"] },
  "presigned-urls": { method: "POST", collections: ["jobs"] },
  "output-files": { method: "POST", collections: ["jobs"] },
};

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
  const collection = state.collections.get(rest[0])!;
  const { method } = info;
  if (rest.length === 1) {
    allow("GET");
    return handleListRecords(info, state, collection);
  }
  const [, id, verb] = rest;
  // A job file's signed URL: authorised by its query string, not a session (see handleFileDownload).
  if (collection.name === "jobs" && rest.length >= 4 && verb === "files" && id !== "") {
    allow("GET", "PUT");
    const key = rest.slice(3).join("/");
    return method === "PUT" ? handleFileUpload(info, state, id, key) : handleFileDownload(info, state, id, key);
  }
  if (rest.length === 2 && id === "create" && method === "PUT") return handleCreateRecord(info, state, collection);
  if (rest.length === 2 && id === "create-set" && method === "PUT" && WITH_SETS.includes(collection.name))
    return handleCreateSet(info, state, collection);
  if (rest.length === 2 && id !== "") {
    allow("GET", "PATCH", "DELETE");
    if (method === "PATCH") return handleUpdateRecord(info, state, collection, id);
    if (method === "DELETE") return handleDeleteRecord(info, state, collection, id);
    return handleGetRecord(info, state, collection, id);
  }
  const known = rest.length === 3 && id !== "" ? RECORD_VERBS[verb] : undefined;
  if (!known?.collections.includes(collection.name)) {
    const verbs = Object.entries(RECORD_VERBS)
      .filter(([, v]) => v.collections.includes(collection.name))
      .map(([name, v]) => `${v.method} <id>/${name}`);
    throw notFound(
      `Unknown endpoint ${API_PREFIX}/${rest.join("/").slice(0, 200)}. ${collection.name} has GET, GET <id>, PUT create, PATCH|DELETE <id>${verbs.length ? `, ${verbs.join(", ")}` : ""}.`,
    );
  }
  allow(known.method);
  switch (verb) {
    case "copy":
      return handleCopyRecord(info, state, collection, id);
    case "set-default":
      return handleSetDefault(info, state, collection, id);
    case "move-to-set":
      return handleMoveToSet(info, state, collection, id);
    case "submit":
      return handleSubmit(info, state, id);
    case "terminate":
      return handleTerminate(info, state, id);
    case "purge":
      return handlePurge(info, state, id);
    case "presigned-urls":
      return handlePresignedUrls(info, state, id);
    case "output-files":
      return handleOutputFiles(info, state, id);
    default:
      return handleJobFiles(info, state, id);
  }
}
