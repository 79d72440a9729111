import { API_PREFIX, API_VERSION } from "../../schemas";
import { handleLogin, handleLogout, handleUsersMe } from "./auth-handlers";
import { routeOidc } from "./oidc-handlers";
import { routeTeacher } from "./teacher-handlers";
import { badRequest, HttpError, methodNotAllowed, notFound, uriTooLong } from "../http/http-errors";
import { handleGetMaterial, handleListMaterials } from "./materials-handlers";
import { success, type Reply, type RequestInfo, type ServerState } from "./reply";
import { handleCopy, handleCreate, handleDelete, handleImport, handleUpdate } from "./write-handlers";
import { MAX_URL_LENGTH, parseParams } from "../http/request-input";
import type { IncomingMessage } from "node:http";
import { recordVerbsOf, routeCollection } from "./collection-routes";
import type { Collection } from "../collections/collection";
import { handleListClusters } from "./cluster-handlers";
import { routeOptimade } from "../optimade/optimade-routes";

/** The endpoints, for the API root and the messages of unknown paths; the collections' part from their records. */
function endpoints(collections: ReadonlyMap<string, Collection>): string {
  const others = [...collections.values()].filter((collection) => collection.name !== "materials");
  const extras = others
    .filter((collection) => collection.verbs.length > 0)
    .map((collection) => {
      const verbs = recordVerbsOf({ ...collection, copyTo: null, sets: false, defaults: false });
      const of = (method: string) =>
        verbs.filter((verb) => verb.startsWith(`${method} `)).map((verb) => verb.slice(`${method} <id>/`.length));
      const parts = [`POST <id>/${of("POST").join("|")}`, ...of("GET").map((verb) => `GET <id>/${verb}`)];
      if (collection.verbs.includes("files")) parts.push("GET|PUT <id>/files/<key> by signed URL");
      return ` (${collection.name} also ${parts.join(", ")})`;
    });
  return (
    `POST ${API_PREFIX}/login, GET|POST ${API_PREFIX}/logout, GET ${API_PREFIX}/materials, ` +
    `GET|PATCH|DELETE ${API_PREFIX}/materials/<id>, PUT ${API_PREFIX}/materials/create, ` +
    `POST ${API_PREFIX}/materials/<id>/copy, POST ${API_PREFIX}/materials/import, ` +
    `PUT ${API_PREFIX}/materials/create-set, POST ${API_PREFIX}/materials/<id>/set-default|move-to-set, ` +
    `and GET (list), GET <id>, PUT create, PATCH|DELETE <id>, POST <id>/copy of ${others.map((c) => c.name).join(", ")}` +
    `${extras.join("")}; GET ${API_PREFIX}/other/clusters; ` +
    `GET /api/v1/users/me; the sign-in: POST /oidc/device/auth, POST /oidc/token, GET|POST /oidc/device; ` +
    `see docs/local-platform.md`
  );
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest("The request path has a malformed percent-escape.");
  }
}

/** Splits the URL, checks the version segment and dispatches to the endpoint's handler. */
export async function routeRequest(req: IncomingMessage, state: ServerState): Promise<Reply> {
  // HTTP/1.1 requires Host (RFC 9112, section 3.2); Node's own refusal is an empty 400 no client can explain.
  if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
    throw new HttpError(
      400,
      "The request has no Host header, which HTTP/1.1 requires; send Host: <address>:<port> (every HTTP client does).",
      {
        Connection: "close",
      },
    );
  }
  const url = req.url ?? "/";
  if (url.length > MAX_URL_LENGTH) throw uriTooLong(MAX_URL_LENGTH);
  const queryStart = url.indexOf("?");
  const rawPath = queryStart === -1 ? url : url.slice(0, queryStart);
  const search = queryStart === -1 ? "" : url.slice(queryStart + 1);
  const segments = rawPath.split("/").slice(1).map(decodeSegment);
  if (segments.length > 1 && segments[segments.length - 1] === "") segments.pop(); // trailing slash
  const requested = req.method ?? "GET";
  if (segments[0] === "oidc") return routeOidc(req, segments.slice(1), requested, search, state);
  if (segments[0] === "teacher") return routeTeacher(req, segments.slice(1), requested, search, state);
  // HEAD answers like GET without the body (Node drops it), so a reader's HEAD sees the GET's headers.
  const method = requested === "HEAD" ? "GET" : requested;
  // The platform's user service, which its Python client reads for the signed-in user's accounts.
  if (
    segments.length === 4 &&
    segments[0] === "api" &&
    segments[1] === "v1" &&
    segments[2] === "users" &&
    segments[3] === "me"
  ) {
    if (method !== "GET") throw methodNotAllowed(requested, "/api/v1/users/me", ["GET", "HEAD"]);
    return handleUsersMe({ req, method, route: "/users/me", params: parseParams(search, "query string") }, state);
  }
  // The served materials as an OPTIMADE provider, answered in OPTIMADE's own format.
  if (segments[0] === "optimade") return routeOptimade(req, segments.slice(1), method, search, state);
  const [root, version = ""] = segments;
  if (root !== "api" || segments.length < 2) {
    throw notFound(
      `Unknown path ${rawPath.slice(0, 200)}. The API lives under ${API_PREFIX}: ${endpoints(state.collections)}.`,
    );
  }
  if (version !== API_VERSION) {
    throw notFound(
      `API version "${version.slice(0, 40)}" is not supported; this server speaks ${API_VERSION} (use ${API_PREFIX}/...).`,
    );
  }
  const rest = segments.slice(2);
  // The route's first segments (a collection, an id or verb, a verb), undefined past its end.
  const [head, second, third] = rest;
  const route = `/${rest.join("/")}`;
  const info = (): RequestInfo => ({ req, method, route, params: parseParams(search, "query string") });
  const allow = (...methods: string[]) => {
    const allowed = methods.flatMap((m) => (m === "GET" ? ["GET", "HEAD"] : [m]));
    if (!methods.includes(method)) throw methodNotAllowed(requested, `${API_PREFIX}${route}`, allowed);
  };
  // The API's root: what the client's first request after a login asks for to time the link. A
  // short answer, so the request log shows no 404 for every login.
  if (rest.length === 0) {
    allow("GET");
    return success({ apiVersion: API_VERSION, endpoints: endpoints(state.collections) });
  }
  if (rest.length === 1 && head === "login") {
    allow("POST");
    return handleLogin(info(), state);
  }
  if (rest.length === 1 && head === "logout") {
    // A HEAD must change nothing, so it does not log out.
    if (requested === "HEAD") throw methodNotAllowed(requested, `${API_PREFIX}${route}`, ["GET", "POST"]);
    allow("GET", "POST");
    return handleLogout(info(), state);
  }
  if (head === "materials" && rest.length === 1) {
    allow("GET");
    return handleListMaterials(info(), state);
  }
  // "create" and "import" are verbs only with their methods: GET /materials/create is still an id.
  if (head === "materials" && rest.length === 2 && second === "create" && method === "PUT") {
    return handleCreate(info(), state);
  }
  if (head === "materials" && rest.length === 2 && second === "import" && method === "POST") {
    return handleImport(info(), state);
  }
  // Sets and defaults of materials are answered as in the other collections.
  if (
    head === "materials" &&
    ((rest.length === 2 && second === "create-set" && method === "PUT") || (rest.length === 3 && third !== "copy"))
  ) {
    return routeCollection(info(), state, rest, allow);
  }
  if (head === "materials" && rest.length === 2 && second) {
    allow("GET", "PATCH", "DELETE");
    if (method === "PATCH") return handleUpdate(info(), state, second);
    if (method === "DELETE") return handleDelete(info(), state, second);
    return handleGetMaterial(info(), state, second);
  }
  if (head === "materials" && rest.length === 3 && second && third === "copy") {
    allow("POST");
    return handleCopy(info(), state, second);
  }
  if (rest.length === 2 && head === "other" && second === "clusters") {
    allow("GET");
    return handleListClusters(info(), state);
  }
  // Every other collection the server holds (the materials' own endpoints are answered above).
  if (head !== undefined && head !== "materials" && state.collections.has(head))
    return routeCollection(info(), state, rest, allow);
  throw notFound(`Unknown endpoint ${API_PREFIX}${route.slice(0, 200)}. Endpoints: ${endpoints(state.collections)}.`);
}
