import { z } from "zod";

/**
 * A JSend success envelope around `data`, as every platform endpoint answers.
 * See https://github.com/omniti-labs/jsend.
 */
export function jsendSuccess<T extends z.ZodType>(data: T) {
  return z.object({ status: z.literal("success"), data });
}

/** A JSend error or failure; the platform puts a human message and the HTTP status in it. */
export const JSendError = z.looseObject({
  status: z.enum(["error", "fail"]),
  message: z.string().optional(),
  code: z.number().int().optional(),
  data: z.unknown().optional(),
});
export type JSendError = z.infer<typeof JSendError>;

/** Any JSend envelope, before its data is checked. */
export const JSendEnvelope = z.union([jsendSuccess(z.unknown()), JSendError]);
export type JSendEnvelope = z.infer<typeof JSendEnvelope>;
