// Credentials from the environment belong to the platform named beside them, as a saved login
// belongs to the platform it was saved for: a token set with MATFRAME_BASE_URL=A (or with the
// platform client's API_HOST=A) is never sent to another address that a flag, an option or
// another variable names. Without this, `--base-url http://elsewhere` in a shared script or a
// notebook sent the token of the user's real platform to "elsewhere" in every request.
import { withoutUrlCredentials } from "../transport/redact";
import { normaliseBaseUrl } from "./validate-options";

/** A family of variables: credentials and the address that may be set beside them. */
export interface CredentialFamily {
  /** The variables holding credentials (or their halves), in the order messages name them. */
  readonly variables: readonly string[];
  /** The family's own address when the environment sets one; undefined when it sets none. */
  readonly address?: { readonly baseUrl: string; readonly from: string };
}

/** matframe's own variables: bound to MATFRAME_BASE_URL. */
export const MATFRAME_CREDENTIALS = [
  "MATFRAME_ACCOUNT_ID",
  "MATFRAME_AUTH_TOKEN",
  "MATFRAME_USERNAME",
  "MATFRAME_PASSWORD",
] as const;
/** The platform's Python client's variables: bound to API_HOST (with API_PORT, API_SECURE). */
export const OFFICIAL_CREDENTIALS = ["OIDC_ACCESS_TOKEN", "ACCOUNT_ID", "AUTH_TOKEN"] as const;

/** Credentials of the environment held back from an address that is not their own. */
export interface Withheld {
  /** The variables held back that are set, e.g. `["OIDC_ACCESS_TOKEN"]`. */
  readonly variables: readonly string[];
  /** Their own platform and where its address came from. */
  readonly home: { readonly baseUrl: string; readonly from: string };
}

const set = (value: string | undefined): boolean => value !== undefined && value !== "";

/**
 * The families whose credentials must not go to `target`: those whose own address is set and is
 * another platform than `target`. A family that names no address of its own is not held back:
 * its credentials go where the caller's address (or the other family's) says, as before.
 */
export function withheldFrom(
  target: string,
  families: readonly CredentialFamily[],
  env: NodeJS.ProcessEnv,
): Withheld[] {
  const withheld: Withheld[] = [];
  for (const family of families) {
    const variables = family.variables.filter((name) => set(env[name]));
    if (variables.length === 0 || !family.address || sameBase(family.address.baseUrl, target)) continue;
    withheld.push({ variables, home: family.address });
  }
  return withheld;
}

/** The environment without the variables held back: what the credential resolver may read. */
export function withoutWithheld(env: NodeJS.ProcessEnv, withheld: readonly Withheld[]): NodeJS.ProcessEnv {
  if (withheld.length === 0) return env;
  const visible = { ...env };
  for (const group of withheld) for (const name of group.variables) delete visible[name];
  return visible;
}

/**
 * The sentence that says which credentials were not sent to `target`, and what to do. Names
 * variables and addresses only, never a value.
 */
export function withheldSentence(
  target: { baseUrl: string; from: string },
  withheld: readonly Withheld[],
  remedy = `(or run \`matframe login --base-url ${withoutUrlCredentials(target.baseUrl)}\` once)`,
): string {
  return withheld
    .map(({ variables, home }) => {
      const plural = variables.length > 1;
      return (
        `${variables.join(", ")} ${plural ? "are" : "is"} set for the platform ${home.from} names (${withoutUrlCredentials(home.baseUrl)}) ` +
        `and ${plural ? "were" : "was"} not sent to ${withoutUrlCredentials(target.baseUrl)}, which ${target.from} names: matframe sends credentials ` +
        `from the environment only to the platform named beside them. To use ${withoutUrlCredentials(target.baseUrl)}, give its own credentials ` +
        `${remedy}; to use ${withoutUrlCredentials(home.baseUrl)}, leave out ${target.from}.`
      );
    })
    .join(" ");
}

/** Whether two addresses are the same platform once normalised (scheme, host, port, API path). */
export function sameBase(a: string, b: string): boolean {
  try {
    return normaliseBaseUrl(a).href === normaliseBaseUrl(b).href;
  } catch {
    return false;
  }
}
