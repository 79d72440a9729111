import { z } from "zod";
import { MAX_LIMIT } from "./constants";

/** `{ path: 1 }` includes, `{ path: 0 }` excludes; `_id` is kept unless `_id: 0`. */
export const Fields = z.record(z.string(), z.union([z.literal(0), z.literal(1)]));
export type Fields = z.infer<typeof Fields>;

/** `{ path: 1 | -1 }`, keys in priority order; ties are broken by `_id`. */
export const Sort = z.record(z.string(), z.union([z.literal(1), z.literal(-1)]));
export type Sort = z.infer<typeof Sort>;

/** The `projection` query parameter of a list request. */
export const Projection = z.strictObject({
  fields: Fields.optional(),
  sort: Sort.optional(),
  skip: z.number().int().min(0).optional(),
  limit: z.number().int().min(1).max(MAX_LIMIT).optional(),
});
export type Projection = z.infer<typeof Projection>;

/** A MongoDB-style query document. */
export type Query = Record<string, unknown>;
