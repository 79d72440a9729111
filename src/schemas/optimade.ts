// The OPTIMADE wire (https://github.com/Materials-Consortia/OPTIMADE/blob/v1.2.0/optimade.rst),
// shared by `OptimadeClient` and `matframe serve`'s provider. Providers differ in what they
// send beyond the spec's required members, so the shapes are loose (`looseObject`): a member
// matframe does not read is kept, never refused.
import { z } from "zod";

/** The API version matframe speaks and serves (the `/v1` segment of a versioned base URL). */
export const OPTIMADE_API_VERSION = "1.2.0";

/** A link: a URL, or a links object with `href` (both forms are allowed by the spec, section 4.1.3). */
export const OptimadeLink = z.union([z.string(), z.looseObject({ href: z.string() })]);
export type OptimadeLink = z.infer<typeof OptimadeLink>;

/** The `href` of a link in either form, or undefined for null or an absent one. */
export function linkHref(link: OptimadeLink | null | undefined): string | undefined {
  if (link === null || link === undefined) return undefined;
  return typeof link === "string" ? link : link.href;
}

/** One entry of any endpoint: `id`, `type` and the properties under `attributes`. */
export const OptimadeEntry = z.looseObject({
  id: z.string(),
  type: z.string(),
  attributes: z.record(z.string(), z.unknown()).optional(),
});
export type OptimadeEntry = z.infer<typeof OptimadeEntry>;

/** `meta` of every answer; `data_returned` is what the filter matched, over every page. */
export const OptimadeMeta = z.looseObject({
  api_version: z.string().optional(),
  data_returned: z.number().int().nonnegative().nullish(),
  data_available: z.number().int().nonnegative().nullish(),
  more_data_available: z.boolean().optional(),
});

/**
 * `links` of a list answer. `next` is the spec's; `next_page` is what MPDS sent
 * (https://github.com/Materials-Consortia/optimade-python-tools/issues/1900).
 */
export const OptimadeLinks = z.looseObject({
  next: OptimadeLink.nullish(),
  next_page: OptimadeLink.nullish(),
});

/** An answer of a list endpoint (`/structures`, `/links`). */
export const OptimadeListAnswer = z.looseObject({
  data: z.array(OptimadeEntry),
  meta: OptimadeMeta.optional(),
  links: OptimadeLinks.nullish(),
});
export type OptimadeListAnswer = z.infer<typeof OptimadeListAnswer>;

/** An answer of a single-entry endpoint (`/structures/{id}`); `data` is null when nothing has that id. */
export const OptimadeEntryAnswer = z.looseObject({
  data: OptimadeEntry.nullable(),
  meta: OptimadeMeta.optional(),
});

/** `/info` of a database or an index meta-database (`is_index: true`). */
export const OptimadeInfo = z.looseObject({
  data: z.looseObject({
    id: z.string(),
    type: z.literal("info"),
    attributes: z.looseObject({
      api_version: z.string(),
      available_api_versions: z.array(z.looseObject({ url: z.string(), version: z.string() })),
      formats: z.array(z.string()).optional(),
      available_endpoints: z.array(z.string()).optional(),
      entry_types_by_format: z.record(z.string(), z.array(z.string())).optional(),
      is_index: z.boolean().optional(),
    }),
    relationships: z
      .looseObject({
        default: z.looseObject({ data: z.looseObject({ id: z.string() }).nullish() }).optional(),
      })
      .optional(),
  }),
  meta: OptimadeMeta.optional(),
});
export type OptimadeInfo = z.infer<typeof OptimadeInfo>;

/**
 * The attributes of a `links` entry: a database an index meta-database names (`link_type: "child"`).
 * Only `name` and `link_type` are read as the spec requires them; every other member may be null
 * or absent, as the reference server (optimade-python-tools) sends `aggregate: null` and
 * `no_aggregate_reason: null` for a child it has nothing to say about (spec, "Links Endpoint JSON
 * Response Schema" and "Properties with an unknown value"). `aggregate` is any string: the spec
 * asks clients to accept values a later version may add.
 */
export const OptimadeLinkAttributes = z.looseObject({
  name: z.string(),
  description: z.string().nullish(),
  base_url: OptimadeLink.nullish(),
  homepage: OptimadeLink.nullish(),
  link_type: z.enum(["child", "root", "external", "providers"]),
  aggregate: z.string().nullish(),
  no_aggregate_reason: z.string().nullish(),
});

/** One error of an error answer (JSON:API); `detail` is the provider's own words. */
export const OptimadeError = z.looseObject({
  status: z.string().optional(),
  title: z.string().optional(),
  detail: z.string().optional(),
});

/** An error answer. */
export const OptimadeErrorAnswer = z.looseObject({
  errors: z.array(OptimadeError).min(1),
  meta: OptimadeMeta.optional(),
});
