// The pages of one OPTIMADE query: the first URL is built from the options, every later one is
// the provider's own `links.next`, followed as written (providers page by offset, cursor or
// token, and only they know which).
import { BadRequestError, OptimadeFilterError, ResponseValidationError } from "../../errors";
import { linkHref, OptimadeListAnswer, type OptimadeEntry } from "../../schemas/optimade";
import type { OptimadeHttp } from "./optimade-http";
import type { ResolvedOptimadeWalk } from "./optimade-options";

/** The URL of a query's first page. */
export function firstPageUrl(versionedBase: string, endpoint: string, walk: ResolvedOptimadeWalk): URL {
  const url = new URL(`${versionedBase}/${endpoint}`);
  if (walk.filter !== undefined) url.searchParams.set("filter", walk.filter);
  if (walk.fields !== undefined) url.searchParams.set("response_fields", walk.fields.join(","));
  const limit = Math.min(walk.pageSize ?? Infinity, walk.maxItems);
  if (limit !== Infinity) url.searchParams.set("page_limit", String(limit));
  return url;
}

/**
 * The next page's URL: `links.next` as a string (OQMD) or a links object (COD), or MPDS's
 * `links.next_page` (https://github.com/Materials-Consortia/optimade-python-tools/issues/1900).
 * Relative links resolve against the page that gave them.
 */
export function nextPageUrl(answer: OptimadeListAnswer, current: URL): URL | undefined {
  const href = linkHref(answer.links?.next) ?? linkHref(answer.links?.next_page);
  return href === undefined || href === "" ? undefined : new URL(href, current);
}

/**
 * An entry with only the asked-for properties. COD's next links dropped `response_fields`, so
 * its later pages held every property
 * (https://github.com/Materials-Consortia/optimade-python-tools/issues/2267): what a provider
 * sends beyond the fields never reaches a table.
 */
export function keepFields(entry: OptimadeEntry, fields: readonly string[] | undefined): OptimadeEntry {
  if (fields === undefined) return entry;
  const attributes: Record<string, unknown> = {};
  const given = entry.attributes ?? {};
  for (const field of fields)
    if (field !== "id" && field !== "type" && Object.hasOwn(given, field)) attributes[field] = given[field];
  return { id: entry.id, type: entry.type, attributes };
}

/**
 * Every page of a query, in the provider's order, cut at `maxItems`. A 400 to the first page is
 * the provider refusing the filter (`OptimadeFilterError`, its message first); a 400 later is a
 * provider's paging limit (NOMAD stops offset paging at 10,000 results), reported with how far
 * the walk came.
 */
export async function* entryPages(
  http: OptimadeHttp,
  first: URL,
  walk: ResolvedOptimadeWalk,
): AsyncGenerator<OptimadeEntry[], void, undefined> {
  const seen = new Set<string>();
  let items = 0;
  let pages = 0;
  let total: number | undefined;
  for (let url: URL | undefined = first; url; ) {
    seen.add(url.href);
    let answer: OptimadeListAnswer;
    try {
      answer = await http.get(url, OptimadeListAnswer, walk.signal);
    } catch (error) {
      throw pageError(error, pages, items, total, walk.filter);
    }
    total = answer.meta?.data_returned ?? total;
    const room = walk.maxItems - items;
    const page = answer.data.slice(0, room).map((entry) => keepFields(entry, walk.fields));
    items += page.length;
    pages++;
    walk.onProgress?.({ pages, items, ...(total !== undefined && total !== null ? { total } : {}) });
    yield page;
    if (items >= walk.maxItems || answer.data.length === 0) return;
    const next = nextPageUrl(answer, url);
    if (next && seen.has(next.href))
      throw new ResponseValidationError(
        `${url.pathname} gave page ${pages + 1} the link of an earlier page (${next.pathname}${next.search}); the provider's paging loops, so the walk stops here.`,
        {
          endpoint: `GET ${url.pathname}`,
          status: 200,
          issues: [{ code: "custom", path: ["links", "next"], message: "a page seen before", input: next.href }],
        },
      );
    url = next;
  }
}

function pageError(
  error: unknown,
  pages: number,
  items: number,
  total: number | undefined,
  filter: string | undefined,
): unknown {
  // Only a 400 is the provider refusing the filter; a 414 is a URL too long for its front end.
  if (!(error instanceof BadRequestError) || error.status !== 400) return error;
  const details = {
    status: error.status,
    endpoint: error.endpoint,
    serverMessage: error.serverMessage,
    headers: error.headers,
  };
  // The provider's sentence without its full stop: the message goes on after it.
  const said = error.serverMessage ? `: ${error.serverMessage.replace(/\.+$/, "")}` : "";
  if (pages === 0) {
    return new OptimadeFilterError(
      filter === undefined
        ? `The OPTIMADE provider refused the query${said}.`
        : `The OPTIMADE provider refused the filter ${JSON.stringify(filter)}${said}. Fix the filter (see https://www.optimade.org/optimade for the grammar) and try again.`,
      details,
      { cause: error },
    );
  }
  const of = total !== undefined ? ` of ${total}` : "";
  return new BadRequestError(
    `The OPTIMADE provider refused page ${pages + 1} after ${items}${of} entries${said}. ` +
      "Some providers stop paging at a fixed depth (NOMAD at 10,000 results): narrow the filter, or set maxItems below that.",
    details,
    { cause: error },
  );
}
