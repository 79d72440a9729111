// Small fake OPTIMADE providers on 127.0.0.1, port 0: each quirk a client meets in the wild, one
// option each (how `next` is written, what it drops, where paging stops, an index meta-database).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { at } from "./checked";

/** A structure as a fake provider serves it: NaCl-like rock salt cells of growing size, seeded by index. */
export function fakeStructure(i: number): { id: string; type: "structures"; attributes: Record<string, unknown> } {
  const a = 4 + i / 10;
  const binary = i % 2 === 0;
  return {
    id: `fake-${String(i).padStart(4, "0")}`,
    type: "structures",
    attributes: {
      chemical_formula_reduced: binary ? "ClNa" : "Si",
      elements: binary ? ["Cl", "Na"] : ["Si"],
      nelements: binary ? 2 : 1,
      nsites: 2,
      lattice_vectors: [
        [a, 0, 0],
        [0, a, 0],
        [0, 0, a],
      ],
      cartesian_site_positions: [
        [0, 0, 0],
        [a / 2, a / 2, a / 2],
      ],
      species_at_sites: binary ? ["Na", "Cl"] : ["Si", "Si"],
      species: (binary ? ["Na", "Cl"] : ["Si"]).map((name) => ({
        name,
        chemical_symbols: [name],
        concentration: [1],
      })),
      _fake_energy: -1 - i,
    },
  };
}

export interface FakeProviderOptions {
  /** Structures served (`fakeStructure(0..count-1)`). */
  count: number;
  /**
   * How `links.next` is written; "loop" writes every page's next link as the first page's own
   * (a provider whose paging loops). @default "string"
   */
  next?: "string" | "object" | "next_page" | "relative" | "loop";
  /** Next links leave out `response_fields` (COD did), and pages then hold every property. */
  dropResponseFields?: boolean;
  /** Pages starting at or beyond this offset answer 400 (NOMAD stops at 10,000). */
  offsetLimit?: number;
  /** The provider's own page size when no page_limit is sent. @default 10 */
  defaultPageSize?: number;
  /** Answers 503 to this many requests of /structures before serving them. */
  failFirst?: number;
  /** Served under this path prefix, e.g. "/optimade". @default "" */
  prefix?: string;
  /** Indexes of the structures whose first site is a 50:50 mixture of Na and K (a disordered site). */
  mixedSites?: readonly number[];
  /** Request targets longer than this answer 414, as a front end with an 8 KB limit does. */
  maxTarget?: number;
  /** The elements of the two sites of some structures, by index, e.g. `{ 1: ["Tc", "Tc"] }`. */
  elements?: Readonly<Record<number, readonly [string, string]>>;
  /** Properties that replace or add to some structures' own, by index, e.g. `{ 3: { nsites: 2.5 } }` (off-spec values). */
  attributes?: Readonly<Record<number, Readonly<Record<string, unknown>>>>;
}

/** `fakeStructure(i)` with the elements `[first, second]` at its two sites. */
function withElements(
  s: ReturnType<typeof fakeStructure>,
  [first, second]: readonly [string, string],
): ReturnType<typeof fakeStructure> {
  const distinct = [...new Set([first, second])];
  return {
    ...s,
    attributes: {
      ...s.attributes,
      chemical_formula_reduced: distinct.sort().join(""),
      elements: [...distinct].sort(),
      nelements: distinct.length,
      species_at_sites: [first, second],
      species: distinct.map((name) => ({ name, chemical_symbols: [name], concentration: [1] })),
    },
  };
}

/** `fakeStructure(i)` with its first site a 50:50 Na/K mixture, as a disordered alloy is described. */
function withMixedSite(s: ReturnType<typeof fakeStructure>): ReturnType<typeof fakeStructure> {
  const species = s.attributes.species_at_sites as string[];
  return {
    ...s,
    attributes: {
      ...s.attributes,
      species_at_sites: ["NaK", ...species.slice(1)],
      species: [
        { name: "NaK", chemical_symbols: ["Na", "K"], concentration: [0.5, 0.5] },
        ...(s.attributes.species as { name: string }[]).filter((sp) => species.slice(1).includes(sp.name)),
      ],
    },
  };
}

export interface FakeProvider {
  /** The unversioned base, e.g. `http://127.0.0.1:4321/optimade`. */
  readonly base: string;
  /** Every request's path and query, in order. */
  readonly requests: URL[];
  close(): Promise<void>;
}

/** The filters a fake provider understands; anything else is a 400 with a parser's message. */
const FILTERS: Record<string, (attributes: Record<string, unknown>) => boolean> = {
  "": () => true,
  "nelements=2": (a) => a.nelements === 2,
  'elements HAS "Xe"': () => false,
};

export async function startFakeProvider(o: FakeProviderOptions): Promise<FakeProvider> {
  const prefix = o.prefix ?? "";
  const requests: URL[] = [];
  let failures = o.failFirst ?? 0;
  const all = Array.from({ length: o.count }, (_, i) => {
    const elements = o.elements?.[i];
    const s = elements
      ? withElements(fakeStructure(i), elements)
      : o.mixedSites?.includes(i)
        ? withMixedSite(fakeStructure(i))
        : fakeStructure(i);
    return { ...s, attributes: { ...s.attributes, ...o.attributes?.[i] } };
  });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    requests.push(url);
    if (o.maxTarget !== undefined && (req.url ?? "").length > o.maxTarget)
      return json(res, 414, errors("414", "URI Too Long", "The request URL is too long."));
    const path = url.pathname.slice(prefix.length);
    if (path === "/v1/info") return json(res, 200, info(false));
    if (path === "/v1/structures") {
      if (failures > 0) {
        failures--;
        return json(res, 503, errors("503", "Service Unavailable", "try again"));
      }
      const filter = url.searchParams.get("filter") ?? "";
      const match = FILTERS[filter.trim()];
      if (!match)
        return json(
          res,
          400,
          errors("400", "Bad Request", `Unable to parse filter "${filter}".\nLark failed at line 1, column 3.`),
        );
      const offset = Number(url.searchParams.get("page_offset") ?? 0);
      if (o.offsetLimit !== undefined && offset >= o.offsetLimit)
        return json(
          res,
          400,
          errors(
            "400",
            "Bad Request",
            `page_offset ${offset} is beyond the limit of ${o.offsetLimit}; refine the query`,
          ),
        );
      const limit = Number(url.searchParams.get("page_limit") ?? o.defaultPageSize ?? 10);
      const fields = url.searchParams.get("response_fields")?.split(",");
      const matched = all.filter((s) => match(s.attributes));
      const data = matched.slice(offset, offset + limit).map((s) => ({
        ...s,
        attributes: fields ? Object.fromEntries(fields.map((f) => [f, s.attributes[f] ?? null])) : s.attributes,
      }));
      const more = offset + limit < matched.length;
      const nextQuery = new URLSearchParams(url.searchParams);
      nextQuery.set("page_offset", String(offset + limit));
      if (o.dropResponseFields) nextQuery.delete("response_fields");
      const href = `${url.origin}${url.pathname}?${nextQuery}`;
      const links: Record<string, unknown> = !more
        ? { next: null }
        : o.next === "object"
          ? { next: { href, meta: {} } }
          : o.next === "next_page"
            ? { next_page: href }
            : o.next === "relative"
              ? { next: `structures?${nextQuery}` }
              : o.next === "loop"
                ? {
                    next: `${url.origin}${url.pathname}?${new URLSearchParams({ ...Object.fromEntries(url.searchParams), page_offset: "0" })}`,
                  }
                : { next: href };
      return json(res, 200, {
        data,
        links,
        meta: { api_version: "1.2.0", data_returned: matched.length, more_data_available: more },
      });
    }
    const one = /^\/v1\/structures\/([^/]+)$/.exec(path);
    if (one) {
      const found = all.find((s) => s.id === decodeURIComponent(one[1]!));
      return json(res, found ? 200 : 404, found ? { data: found, meta: {} } : errors("404", "Not Found", "no such id"));
    }
    return json(res, 404, errors("404", "Not Found", `${url.pathname} is not served`));
  });
  return listen(server, prefix, requests);
}

/**
 * An index meta-database whose `/links` name the given databases (the first as its default when
 * `withDefault`). A child's `attributes` replace or add to the ones written for it, e.g.
 * `{ aggregate: null }` as the reference server sends them.
 */
export async function startIndexProvider(
  children: readonly { id: string; base: string; attributes?: Record<string, unknown> }[],
  o: { withDefault?: boolean } = {},
): Promise<FakeProvider> {
  const requests: URL[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    requests.push(url);
    if (url.pathname === "/v1/info") {
      const body = info(true);
      if (o.withDefault)
        Object.assign(body.data, {
          relationships: { default: { data: { type: "links", id: at(children, 0, "a database").id } } },
        });
      return json(res, 200, body);
    }
    if (url.pathname === "/v1/links")
      return json(res, 200, {
        data: [
          ...children.map((c) => ({
            id: c.id,
            type: "links",
            attributes: {
              name: `Database ${c.id}`,
              description: "",
              base_url: { href: c.base },
              link_type: "child",
              ...c.attributes,
            },
          })),
          {
            id: "index",
            type: "links",
            attributes: { name: "Index", description: "", base_url: url.origin, link_type: "root" },
          },
        ],
        links: { next: null },
        meta: { api_version: "1.2.0", data_returned: children.length + 1 },
      });
    return json(res, 404, errors("404", "Not Found", "not here"));
  });
  return listen(server, "", requests);
}

function info(isIndex: boolean) {
  return {
    data: {
      id: "/",
      type: "info",
      attributes: {
        api_version: "1.2.0",
        available_api_versions: [{ url: "http://example.org/v1", version: "1.2.0" }],
        formats: ["json"],
        available_endpoints: isIndex ? ["info", "links"] : ["info", "links", "structures"],
        entry_types_by_format: { json: isIndex ? [] : ["structures"] },
        is_index: isIndex,
      },
    },
    meta: { api_version: "1.2.0" },
  };
}

function errors(status: string, title: string, detail: string) {
  return { errors: [{ status, title, detail }], meta: { api_version: "1.2.0" } };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/vnd.api+json" });
  res.end(JSON.stringify(body));
}

async function listen(server: Server, prefix: string, requests: URL[]): Promise<FakeProvider> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}${prefix}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
