import { z } from "zod";

/** Credentials as the platform names them in the login result and request headers. */
export const ACCOUNT_ID_HEADER = "X-Account-Id";
export const AUTH_TOKEN_HEADER = "X-Auth-Token";

/**
 * An account id or token as it must be to travel in a request header: visible ASCII, no spaces,
 * no CR/LF/NUL. A token that is not is a bad login response, not a network problem.
 */
export const HeaderValue = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[\x21-\x7e]+$/, "must be visible ASCII characters without spaces or line breaks (it is sent as a header)");

/** The login result as the platform sends it inside JSend `data`, and as its documentation shows it bare. */
export const HeaderCredentials = z.object({
  [ACCOUNT_ID_HEADER]: HeaderValue,
  [AUTH_TOKEN_HEADER]: HeaderValue,
});

/** The camel-case spelling some clients and examples use. */
export const CamelCredentials = z.object({
  accountId: HeaderValue,
  authToken: HeaderValue,
});

/** Normalised credentials, whichever spelling the server used. */
export const Credentials = z
  .union([HeaderCredentials, CamelCredentials])
  .transform((c) =>
    "accountId" in c
      ? { accountId: c.accountId, authToken: c.authToken }
      : { accountId: c[ACCOUNT_ID_HEADER], authToken: c[AUTH_TOKEN_HEADER] },
  );
export type Credentials = z.output<typeof Credentials>;

/** A login response body: JSend-wrapped (what the platform sends) or bare (what its docs show). */
export const LoginResult = z.union([
  z.object({ status: z.literal("success"), data: Credentials }).transform((r) => r.data),
  Credentials,
]);
export type LoginResult = z.output<typeof LoginResult>;

/** The logout response's data. */
export const LogoutResult = z.object({ message: z.string() });
export type LogoutResult = z.infer<typeof LogoutResult>;
