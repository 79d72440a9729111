// From the base URL a user has (providers.optimade.org lists unversioned bases, most of them index
// meta-databases) to the versioned base of the database whose entries are read.
import { NotFoundError, ValidationError } from "../../errors";
import { linkHref, OptimadeInfo, OptimadeLinkAttributes, OptimadeListAnswer } from "../../schemas/optimade";
import type { OptimadeHttp } from "./optimade-http";

/** A database an index meta-database names in its `/links` (`link_type: "child"`). */
export interface OptimadeDatabase {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  /** Its unversioned base URL. */
  readonly baseUrl: string;
}

/** What discovery found: the versioned base entries are read from, and that database's `/info`. */
export interface ResolvedProvider {
  /** e.g. `https://optimade.example.org/v1` (no trailing slash). */
  readonly versionedBase: string;
  readonly info: OptimadeInfo;
  /** Set when `baseUrl` was an index meta-database: the database it led to. */
  readonly database?: OptimadeDatabase;
}

/** A versioned base ends in its major version (`/v1`), or a full one (`/v1.2`, `/v1.2.0`). */
const VERSIONED = /\/v\d+(\.\d+){0,2}$/;

/** `base` checked and without trailing slashes. */
export function checkBaseUrl(base: unknown): string {
  if (typeof base !== "string" || base.trim() === "")
    throw new ValidationError(
      "baseUrl",
      'baseUrl is required: the provider\'s OPTIMADE base URL, e.g. "https://optimade.materialsproject.org".',
    );
  let url: URL;
  try {
    url = new URL(base.trim());
  } catch {
    throw new ValidationError(
      "baseUrl",
      `baseUrl ${JSON.stringify(base)} is not a URL; write it like "https://host/optimade".`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ValidationError("baseUrl", `baseUrl must start with http:// or https://; got ${url.protocol}//.`);
  if (url.username || url.password || url.search || url.hash)
    throw new ValidationError(
      "baseUrl",
      "baseUrl must be a plain address: no user name, password, query or #fragment.",
    );
  return url.href.replace(/\/+$/, "");
}

/** The versioned base of `base`: itself when it names a version, else `base/v1`. */
export function versionedBase(base: string): string {
  return VERSIONED.test(new URL(base).pathname) ? base : `${base}/v1`;
}

/**
 * Finds the database behind `base`: its `/v1/info`, and for an index meta-database the child
 * database named by `database`, else its default, else its only one (one level deep: an index
 * whose database is an index again is refused).
 */
export async function resolveProvider(
  http: OptimadeHttp,
  base: string,
  database: string | undefined,
  signal?: AbortSignal,
): Promise<ResolvedProvider> {
  const found = await readInfo(http, base, signal);
  if (found.info.data.attributes.is_index !== true) {
    if (database !== undefined)
      throw new ValidationError(
        "database",
        `${base} is a database, not an index meta-database; leave out database (${JSON.stringify(database)}).`,
      );
    return found;
  }
  const links = await readLinks(http, found.versionedBase, signal);
  const child = pickDatabase(base, links, database, found.info.data.relationships?.default?.data?.id ?? undefined);
  const inner = await readInfo(http, checkBaseUrl(child.baseUrl), signal);
  if (inner.info.data.attributes.is_index === true)
    throw new ValidationError(
      "baseUrl",
      `${base} names ${child.baseUrl} as database "${child.id}", but that is an index meta-database too; pass a database's own base URL.`,
    );
  return { ...inner, database: child };
}

async function readInfo(http: OptimadeHttp, base: string, signal?: AbortSignal): Promise<ResolvedProvider> {
  const versioned = versionedBase(base);
  try {
    const info = await http.get(new URL(`${versioned}/info`), OptimadeInfo, signal);
    return { versionedBase: versioned, info };
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    throw new NotFoundError(
      `${versioned}/info answered 404: ${base} is not an OPTIMADE base URL (an unversioned base has /v1/info below it). ` +
        "Check the address at https://providers.optimade.org.",
      { status: 404, endpoint: error.endpoint, serverMessage: error.serverMessage, headers: error.headers },
    );
  }
}

/** The child databases of an index meta-database, every page of its `/links` followed. */
export async function listDatabases(
  http: OptimadeHttp,
  versioned: string,
  signal?: AbortSignal,
): Promise<OptimadeDatabase[]> {
  return (await readLinks(http, versioned, signal)).databases;
}

/** What `/links` named: the databases, and the entries that may be databases but could not be read. */
interface LinksRead {
  readonly databases: OptimadeDatabase[];
  /** e.g. `"odbx" (link_type: Invalid option: expected one of ...)`, for the error that finds no database. */
  readonly unread: string[];
}

/** The link types that are never a database to read; an unreadable entry of these is no loss. */
const NOT_DATABASES: readonly unknown[] = ["root", "external", "providers"];

async function readLinks(http: OptimadeHttp, versioned: string, signal?: AbortSignal): Promise<LinksRead> {
  const databases: OptimadeDatabase[] = [];
  const unread: string[] = [];
  const seen = new Set<string>();
  for (let url: URL | undefined = new URL(`${versioned}/links`); url; ) {
    seen.add(url.href);
    const answer: OptimadeListAnswer = await http.get(url, OptimadeListAnswer, signal);
    for (const entry of answer.data) {
      const attributes = OptimadeLinkAttributes.safeParse(entry.attributes);
      if (!attributes.success) {
        // Skipped, but said in the error that finds no database: a silent skip reads as "no databases".
        if (!NOT_DATABASES.includes(entry.attributes?.link_type))
          unread.push(`${JSON.stringify(entry.id)} (${issueText(attributes.error.issues[0])})`);
        continue;
      }
      if (attributes.data.link_type !== "child") continue;
      const baseUrl = linkHref(attributes.data.base_url);
      // A child without a base URL is a database announced but not served.
      if (baseUrl === undefined) continue;
      databases.push({
        id: entry.id,
        name: attributes.data.name,
        baseUrl,
        ...(typeof attributes.data.description === "string" ? { description: attributes.data.description } : {}),
      });
    }
    const next = linkHref(answer.links?.next);
    url =
      next !== undefined && answer.data.length > 0 && !seen.has(new URL(next, url).href)
        ? new URL(next, url)
        : undefined;
  }
  return { databases, unread };
}

/** One schema issue as `path: message`, e.g. `aggregate: Invalid input: expected string, received number`. */
function issueText(issue: { path: readonly PropertyKey[]; message: string } | undefined): string {
  if (issue === undefined) return "unreadable attributes";
  return issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ${issue.message}` : issue.message;
}

function pickDatabase(
  base: string,
  { databases, unread }: LinksRead,
  wanted: string | undefined,
  defaultId: string | undefined,
): OptimadeDatabase {
  const names = databases.map((d) => `${d.id} (${d.name})`).join(", ");
  if (databases.length === 0)
    throw new ValidationError(
      "baseUrl",
      `${base} is an index meta-database whose /links name no database with a base URL` +
        (unread.length > 0
          ? `; matframe could not read ${unread.length === 1 ? "the entry" : `${unread.length} entries`} ${unread.join(", ")}. Pass a database's own base URL instead.`
          : "."),
    );
  if (wanted !== undefined) {
    const found = databases.find((d) => d.id === wanted) ?? databases.find((d) => d.name === wanted);
    if (!found)
      throw new ValidationError(
        "database",
        `${base} names no database ${JSON.stringify(wanted)}; its databases are ${names}.`,
      );
    return found;
  }
  const byDefault = defaultId === undefined ? undefined : databases.find((d) => d.id === defaultId);
  if (byDefault) return byDefault;
  if (databases.length === 1) return databases[0]!;
  throw new ValidationError(
    "database",
    `${base} is an index meta-database of ${databases.length} databases and names no default: ${names}. Pick one with database (its id).`,
  );
}
