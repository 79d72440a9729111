// `matframe serve` as an OPTIMADE provider (spec v1.2): the served materials as structures under
// /optimade/v1, read without a login (they are the platform's public materials; what accounts
// wrote stays theirs). Every answer, errors included, is in OPTIMADE's format.
import type { IncomingMessage } from "node:http";
import { MatframeError } from "../../errors";
import { OPTIMADE_API_VERSION } from "../../schemas/optimade";
import type { Reply, ServerState } from "../handlers/reply";
import { parseFilter, type FilterNode } from "./filter-grammar";
import { filterProperties, matchesFilter } from "./filter-match";
import { PROVIDER_PREFIX, STRUCTURE_PROPERTIES, structureAttributes } from "./structure-entry";

/** Entries per page when the request names no `page_limit`, and the most it may name. */
export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 1000;

const PACKAGE_VERSION = (require("../../../package.json") as { version: string }).version;
const JSON_API = { "Content-Type": "application/vnd.api+json" } as const;

/** The query parameters the spec defines for entry listings (section 5.1); anything else is refused. */
const LIST_PARAMS = new Set([
  "filter",
  "response_format",
  "email_address",
  "response_fields",
  "sort",
  "page_limit",
  "page_offset",
  "include",
  "api_hint",
]);

/**
 * An answer in OPTIMADE's error format (spec section 4.1.2, JSON:API errors): thrown by the
 * OPTIMADE routes and answered there.
 */
class OptimadeHttpError extends MatframeError {
  override readonly code: string = "ERR_OPTIMADE_ANSWER";
  override readonly name: string = "OptimadeHttpError";

  constructor(
    readonly status: number,
    readonly title: string,
    detail: string,
  ) {
    super(detail);
  }
}

/**
 * Answers `GET /optimade/...`: `versions` at the unversioned base; `info`, `info/structures`,
 * `links`, `structures` and `structures/{id}` under `/v1` (and `/v1.2`, `/v1.2.0`).
 */
export function routeOptimade(
  req: IncomingMessage,
  segments: readonly string[],
  method: string,
  search: string,
  state: ServerState,
): Reply {
  const origin = `http://${req.headers.host ?? "127.0.0.1"}`;
  const params = new URLSearchParams(search);
  try {
    if (method !== "GET" && method !== "HEAD")
      throw new OptimadeHttpError(
        405,
        "Method Not Allowed",
        `${method} is not served: an OPTIMADE provider answers GET only.`,
      );
    if (segments.length === 1 && segments[0] === "versions")
      return {
        status: 200,
        body: undefined,
        json: Buffer.from("version\n1\n"),
        headers: { "Content-Type": "text/csv; header=present" },
      };
    // The unversioned base answers as /v1 does (spec section 3.1: "The unversioned base URL"),
    // which is where optimade-validator starts.
    const version = segments[0] !== undefined && /^v\d/.test(segments[0]) ? segments[0] : undefined;
    if (version !== undefined && !/^v1(\.2(\.0)?)?$/.test(version))
      throw new OptimadeHttpError(
        553,
        "Version Not Supported",
        `/optimade/${version.slice(0, 40)} is not served; this provider speaks OPTIMADE ${OPTIMADE_API_VERSION} under /optimade/v1.`,
      );
    const base = version === undefined ? `${origin}/optimade` : `${origin}/optimade/${version}`;
    const rest = version === undefined ? segments : segments.slice(1);
    const route = rest.join("/");
    const representation = `/${route}${search ? `?${search}` : ""}`;
    const answer = (body: Record<string, unknown>, extraMeta: Record<string, unknown> = {}): Reply => ({
      status: 200,
      body: { ...body, meta: meta(origin, representation, extraMeta) },
      headers: JSON_API,
    });
    if (route === "info") return answer({ data: info(origin) });
    if (route === "info/structures") return answer({ data: structuresInfo() });
    if (route === "links") {
      checkParams(params);
      return answer(
        { data: [], links: { next: null } },
        { data_returned: 0, data_available: 0, more_data_available: false },
      );
    }
    if (route === "structures") return listStructures(params, state, base, origin, representation);
    const [head, id] = rest;
    if (rest.length === 2 && head === "structures" && id !== undefined) {
      checkParams(params);
      const fields = responseFields(params);
      const record = state.store.get(id);
      const attributes = record && structureAttributes(record);
      if (!record || !attributes)
        throw new OptimadeHttpError(404, "Not Found", `No structure has the id "${id.slice(0, 100)}".`);
      return answer(
        {
          data: entry(record._id, attributes, fields),
          links: { self: `${base}/structures/${encodeURIComponent(record._id)}` },
        },
        { data_returned: 1, data_available: state.store.size, more_data_available: false },
      );
    }
    throw new OptimadeHttpError(
      404,
      "Not Found",
      `/optimade/${segments.join("/").slice(0, 200)} is not served; the endpoints are info, info/structures, links, structures and structures/{id}.`,
    );
  } catch (error) {
    if (!(error instanceof OptimadeHttpError)) throw error;
    return {
      status: error.status,
      body: {
        errors: [{ status: String(error.status), title: error.title, detail: error.message }],
        meta: meta(origin, `/${segments.join("/")}${search ? `?${search}` : ""}`, {}),
      },
      headers: JSON_API,
    };
  }
}

function listStructures(
  params: URLSearchParams,
  state: ServerState,
  base: string,
  origin: string,
  representation: string,
): Reply {
  checkParams(params);
  const format = params.get("response_format");
  if (format !== null && format !== "json")
    throw new OptimadeHttpError(
      400,
      "Bad Request",
      `response_format "${format.slice(0, 40)}" is not served; this provider answers json.`,
    );
  const fields = responseFields(params);
  const limit = integerParam(params, "page_limit", DEFAULT_PAGE_LIMIT);
  if (limit > MAX_PAGE_LIMIT)
    throw new OptimadeHttpError(
      403,
      "Forbidden",
      `page_limit ${limit} is above this provider's largest page, ${MAX_PAGE_LIMIT}.`,
    );
  const offset = integerParam(params, "page_offset", 0);
  const filter = readFilter(params.get("filter"));
  const matched: { id: string; attributes: Record<string, unknown> }[] = [];
  for (let i = 0; i < state.store.size; i++) {
    const record = state.store.at(i)!;
    const attributes = structureAttributes(record);
    if (!attributes) continue;
    if (filter && !matchesFilter(filter, { ...attributes, id: record._id, type: "structures" })) continue;
    matched.push({ id: record._id, attributes });
  }
  sortEntries(matched, params.get("sort"));
  const page = matched.slice(offset, offset + limit);
  const more = offset + page.length < matched.length;
  let next: string | null = null;
  if (more) {
    const query = new URLSearchParams(params);
    query.set("page_offset", String(offset + page.length));
    query.set("page_limit", String(limit));
    next = `${base}/structures?${query}`;
  }
  return {
    status: 200,
    body: {
      data: page.map((e) => entry(e.id, e.attributes, fields)),
      links: { next },
      meta: meta(origin, representation, {
        data_returned: matched.length,
        data_available: state.store.size,
        more_data_available: more,
      }),
    },
    headers: JSON_API,
  };
}

/** The parsed filter, or a 400 whose detail's first line says where it failed. */
function readFilter(text: string | null): FilterNode | undefined {
  if (text === null || text.trim() === "") return undefined;
  let node: FilterNode;
  try {
    node = parseFilter(text);
  } catch (error) {
    const at = (error as { location?: { start?: { column?: number } } }).location?.start?.column;
    throw new OptimadeHttpError(
      400,
      "Bad Request",
      `The filter ${JSON.stringify(text.slice(0, 200))} does not parse${at !== undefined ? ` at column ${at}` : ""}: ${(error as Error).message}`,
    );
  }
  // A property path has at least one part; an empty name is unknown like any other.
  for (const [name = ""] of filterProperties(node)) {
    // Another provider's properties are unknown here (null), as the spec says (section 5.2); an unprefixed one must be known.
    if (!name.startsWith("_") && !Object.hasOwn(STRUCTURE_PROPERTIES, name))
      throw new OptimadeHttpError(
        400,
        "Bad Request",
        `The filter names "${name}", which is not a property of structures here; /info/structures lists them.`,
      );
  }
  return node;
}

function sortEntries(entries: { id: string; attributes: Record<string, unknown> }[], sort: string | null): void {
  if (sort === null || sort === "") return;
  const keys = sort.split(",").map((key) => ({ name: key.replace(/^-/, ""), direction: key.startsWith("-") ? -1 : 1 }));
  for (const key of keys) {
    const type = STRUCTURE_PROPERTIES[key.name]?.type;
    if (!type || !["string", "integer", "float", "timestamp"].includes(type))
      throw new OptimadeHttpError(
        400,
        "Bad Request",
        `sort "${key.name}" is not a sortable property here; sort by a string or number property, e.g. sort=nsites,-id.`,
      );
  }
  const value = (e: { id: string; attributes: Record<string, unknown> }, name: string) =>
    name === "id" ? e.id : e.attributes[name];
  entries.sort((a, b) => {
    for (const { name, direction } of keys) {
      const x = value(a, name) as number | string | null;
      const y = value(b, name) as number | string | null;
      if (x === y) continue;
      // Nulls last, whatever the direction.
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      return (x < y ? -1 : 1) * direction;
    }
    return 0;
  });
}

function checkParams(params: URLSearchParams): void {
  for (const name of params.keys())
    if (!LIST_PARAMS.has(name) && !name.startsWith("_") && !name.startsWith("page_"))
      throw new OptimadeHttpError(
        400,
        "Bad Request",
        `The query parameter "${name.slice(0, 40)}" is not one OPTIMADE defines (filter, response_fields, sort, page_limit, page_offset, ...).`,
      );
  const include = params.get("include");
  if (include !== null && include !== "")
    throw new OptimadeHttpError(
      400,
      "Bad Request",
      `include "${include.slice(0, 40)}" names relationships; structures here have none.`,
    );
}

function responseFields(params: URLSearchParams): Set<string> | undefined {
  const text = params.get("response_fields");
  if (text === null || text.trim() === "") return undefined;
  return new Set(
    text
      .split(",")
      .map((f) => f.trim())
      .filter(Boolean),
  );
}

function integerParam(params: URLSearchParams, name: string, fallback: number): number {
  const text = params.get(name);
  if (text === null || text === "") return fallback;
  if (!/^[0-9]+$/.test(text) || (name === "page_limit" && Number(text) === 0))
    throw new OptimadeHttpError(
      400,
      "Bad Request",
      `${name} must be a whole number${name === "page_limit" ? " above 0" : ""}; got "${text.slice(0, 40)}".`,
    );
  return Number(text);
}

function entry(
  id: string,
  attributes: Record<string, unknown>,
  fields: Set<string> | undefined,
): Record<string, unknown> {
  if (!fields) return { id, type: "structures", attributes };
  const kept: Record<string, unknown> = {};
  // A field this provider does not have is answered as null (spec section 5.1, response_fields).
  for (const field of fields)
    if (field !== "id" && field !== "type") kept[field] = Object.hasOwn(attributes, field) ? attributes[field] : null;
  return { id, type: "structures", attributes: kept };
}

function meta(origin: string, representation: string, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    query: { representation },
    api_version: OPTIMADE_API_VERSION,
    schema: "https://schemas.optimade.org/openapi/v1.2/optimade.json",
    time_stamp: new Date().toISOString(),
    // Required in every answer's meta by the reference models, not only in lists'.
    more_data_available: false,
    ...extra,
    provider: {
      name: "matframe",
      description: "The local Mat3ra platform of matframe serve",
      prefix: PROVIDER_PREFIX,
      homepage: origin,
    },
    implementation: { name: "matframe", version: PACKAGE_VERSION },
  };
}

function info(origin: string): Record<string, unknown> {
  return {
    type: "info",
    id: "/",
    attributes: {
      api_version: OPTIMADE_API_VERSION,
      available_api_versions: [{ url: `${origin}/optimade/v1`, version: OPTIMADE_API_VERSION }],
      formats: ["json"],
      available_endpoints: ["info", "links", "structures"],
      entry_types_by_format: { json: ["structures"] },
      is_index: false,
    },
  };
}

function structuresInfo(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(STRUCTURE_PROPERTIES)) {
    properties[name] = {
      description: p.description,
      type: p.type,
      ...(p.unit ? { unit: p.unit } : {}),
      sortable: ["string", "integer", "float", "timestamp"].includes(p.type),
    };
  }
  return {
    id: "structures",
    type: "info",
    description: "The platform's materials as crystal structures.",
    properties,
    formats: ["json"],
    output_fields_by_format: { json: Object.keys(STRUCTURE_PROPERTIES) },
  };
}
