import { z } from "zod";

/**
 * A computational method, after the platform's ESSE schema `method.json`
 * (@mat3ra/esse, Apache-2.0): `type` and `subtype` are required strings,
 * `precision` and `data` optional objects. Unknown keys are kept.
 */
export const Method = z.looseObject({
  type: z.string(),
  subtype: z.string(),
  precision: z.record(z.string(), z.unknown()).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});
export type Method = z.infer<typeof Method>;
