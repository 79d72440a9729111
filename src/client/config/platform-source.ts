// Which platform and which credentials: decided in one place, so that `Client.fromEnv` and every
// CLI command that talks to a platform read the same sources in the same order and can say which
// one they used. Before, the CLI read only MATFRAME_BASE_URL and exported the built-in demo data
// with the platform's own variables (API_HOST, OIDC_ACCESS_TOKEN) set, exiting 0.
import { ValidationError } from "../../errors";
import { credentialsPath, DEFAULT_PROFILE, readProfile, type SavedCredentials } from "./profile";
import { withoutUrlCredentials } from "../transport/redact";
import { API_VERSION } from "../../schemas";
import { normaliseBaseUrl } from "./validate-options";
import {
  MATFRAME_CREDENTIALS,
  OFFICIAL_CREDENTIALS,
  sameBase,
  withheldFrom,
  withheldSentence,
  withoutWithheld,
  type CredentialFamily,
  type Withheld,
} from "./credential-binding";

/** What the caller itself says (a command's flags, or the options of `Client.fromEnv`): wins over the environment. */
export interface PlatformChoice {
  baseUrl?: string;
  accountId?: string;
  authToken?: string;
  accessToken?: string;
  username?: string;
  password?: string;
  /** A saved login named by the caller (`--profile`): its platform and credentials. */
  profile?: string;
}

/** How the client proves who it is. */
export type PlatformCredentials =
  | { readonly kind: "token"; readonly accountId: string; readonly authToken: string }
  | {
      readonly kind: "bearer";
      readonly accessToken: string;
      readonly accountId?: string;
      /** A saved device sign-in: refreshed (and saved again) when its access token has expired. */
      readonly refresh?: {
        readonly profile: string;
        readonly credentialsFile: string;
        readonly refreshToken: string;
        readonly expiresAt?: string;
      };
    }
  | { readonly kind: "login"; readonly username: string; readonly password: string };

/** The outcome: a platform with its credentials and where each came from, or nothing named at all. */
export type ResolvedPlatform =
  | { readonly kind: "none" }
  | {
      readonly kind: "platform";
      /** The normalised versioned base URL. */
      readonly baseUrl: string;
      readonly credentials: PlatformCredentials;
      /** Where the address came from, e.g. `"API_HOST, API_PORT, API_SECURE"`; never a value. */
      readonly addressFrom: string;
      /** Where the credentials came from, e.g. `"OIDC_ACCESS_TOKEN"`; never a value. */
      readonly credentialsFrom: string;
    };

/** The names a caller's own settings go by in messages: the CLI's flags, or the options of `fromEnv`. */
export interface ChoiceNames {
  baseUrl: string;
  username: string;
  password: string;
  profile: string;
}

const OPTION_NAMES: ChoiceNames = {
  baseUrl: "baseUrl",
  username: "username",
  password: "password",
  profile: "profile",
};

/** The platform's Python client (mat3ra-api-client, `APIEnv`) reads these for the address. */
const OFFICIAL_ADDRESS = ["API_HOST", "API_PORT", "API_SECURE", "API_VERSION"] as const;

/** Pydantic's spellings of a boolean, which the Python client's `API_SECURE` accepts. */
const TRUE = /^(1|on|t|true|y|yes)$/i;
const FALSE = /^(0|off|f|false|n|no)$/i;

const set = (value: string | undefined): value is string => value !== undefined && value !== "";

/**
 * The platform and credentials to use, from (first wins): the caller's own settings (flags or
 * options), then `MATFRAME_*` variables, then the platform's Python client's variables
 * (`API_HOST`/`API_PORT`/`API_SECURE`/`API_VERSION`, `OIDC_ACCESS_TOKEN`, `ACCOUNT_ID` +
 * `AUTH_TOKEN`), then the login saved by `matframe login` (`MATFRAME_PROFILE`, default
 * `"default"`). `{ kind: "none" }` only when none of them names a platform; a half setting (an
 * address without credentials, credentials without an address, one of a pair) throws a
 * `ValidationError` that says what is missing.
 */
export function resolvePlatform(
  choice: PlatformChoice = {},
  env: NodeJS.ProcessEnv = process.env,
  names: ChoiceNames = OPTION_NAMES,
): ResolvedPlatform {
  if (set(choice.profile)) return fromNamedProfile(choice, env, names);
  const address = addressOf(choice, env, names);
  // Credentials set beside another platform's address are not read at all for this one.
  const withheld = address ? withheldFrom(address.baseUrl, families(env), env) : [];
  const credentials = credentialsWithout(withheld, address, choice, env, names);
  if (address && credentials)
    return {
      kind: "platform",
      baseUrl: address.baseUrl,
      credentials: credentials.credentials,
      addressFrom: address.from,
      credentialsFrom: credentials.from,
    };
  if (credentials) {
    const plural = credentials.from.includes(" + ");
    throw new ValidationError(
      "platform",
      `${credentials.from} ${plural ? "are" : "is"} set, but nothing names the platform to send ${plural ? "them" : "it"} to: ` +
        `set ${names.baseUrl}, MATFRAME_BASE_URL, or API_HOST (with API_PORT and API_SECURE, as the platform's Python client reads them).`,
    );
  }
  // No credentials named: the saved login, for this address or its own.
  const profileName = env.MATFRAME_PROFILE || DEFAULT_PROFILE;
  const saved = readProfile(profileName, env);
  if (env.MATFRAME_PROFILE && !saved) {
    throw new ValidationError(
      "profile",
      `MATFRAME_PROFILE names a saved login "${profileName}", but ${credentialsPath(env)} has none of that name; run \`matframe login --profile ${profileName}\` first, or unset MATFRAME_PROFILE.`,
    );
  }
  if (saved && (!address || sameBase(saved.baseUrl, address.baseUrl)))
    return profilePlatform(saved, profileName, env, address?.from);
  if (!address) return { kind: "none" };
  const other = saved ? ` (the saved profile "${profileName}" is for ${saved.baseUrl})` : "";
  if (withheld.length > 0) {
    throw new ValidationError(
      "credentials",
      `${address.from} names the platform ${withoutUrlCredentials(address.baseUrl)}, but no credentials for it are set${other}. ${withheldSentence(address, withheld)}`,
    );
  }
  throw new ValidationError(
    "credentials",
    `${address.from} names the platform ${withoutUrlCredentials(address.baseUrl)}, but no credentials for it are set: set MATFRAME_ACCOUNT_ID and MATFRAME_AUTH_TOKEN ` +
      `(from the account preferences), or MATFRAME_USERNAME and MATFRAME_PASSWORD, or OIDC_ACCESS_TOKEN, or ACCOUNT_ID and AUTH_TOKEN, ` +
      `or run \`matframe login --base-url ${withoutUrlCredentials(address.baseUrl)}\` once to save a login${other}.`,
  );
}

/**
 * The credentials of the environment that may go to `address`, read as `credentialsOf` reads
 * them; a half pair left by the binding (a `--username` whose MATFRAME_PASSWORD is another
 * platform's) is refused with the reason.
 */
function credentialsWithout(
  withheld: readonly Withheld[],
  address: { baseUrl: string; from: string } | undefined,
  choice: PlatformChoice,
  env: NodeJS.ProcessEnv,
  names: ChoiceNames,
) {
  try {
    return credentialsOf(choice, withoutWithheld(env, withheld), names);
  } catch (error) {
    if (withheld.length === 0 || !address || !(error instanceof ValidationError)) throw error;
    throw new ValidationError(error.option, `${error.message} ${withheldSentence(address, withheld)}`);
  }
}

/** The two families of credential variables, each with the address the environment sets beside it. */
function families(env: NodeJS.ProcessEnv): CredentialFamily[] {
  // An address variable that does not make an address binds its credentials to no platform at all.
  const home = (read: () => string, raw: string | undefined): string => {
    try {
      return read();
    } catch {
      return `${raw ?? ""} (not a valid address)`;
    }
  };
  const matframe: CredentialFamily = {
    variables: MATFRAME_CREDENTIALS,
    ...(set(env.MATFRAME_BASE_URL)
      ? {
          address: {
            baseUrl: home(() => normalised("MATFRAME_BASE_URL", env.MATFRAME_BASE_URL!), env.MATFRAME_BASE_URL),
            from: "MATFRAME_BASE_URL",
          },
        }
      : {}),
  };
  const given = OFFICIAL_ADDRESS.filter((name) => set(env[name]));
  const official: CredentialFamily = {
    variables: OFFICIAL_CREDENTIALS,
    ...(given.length > 0
      ? { address: { baseUrl: home(() => officialBaseUrl(env, given), env.API_HOST), from: given.join(", ") } }
      : {}),
  };
  return [matframe, official];
}

/**
 * `MATFRAME_PASSWORD` for a login to `baseUrl` typed on the command line (`--username`), or
 * undefined with the reason when it was set beside another platform's `MATFRAME_BASE_URL`.
 */
export function environmentPassword(
  target: { baseUrl: string; from: string },
  env: NodeJS.ProcessEnv = process.env,
  remedy?: string,
): { password?: string; withheld?: string } {
  if (!set(env.MATFRAME_PASSWORD)) return {};
  const withheld = withheldFrom(target.baseUrl, [families(env)[0]!], { MATFRAME_PASSWORD: env.MATFRAME_PASSWORD });
  return withheld.length > 0
    ? { withheld: withheldSentence(target, withheld, remedy) }
    : { password: env.MATFRAME_PASSWORD };
}

/** One line for a person: which platform, and where its address and credentials came from (never a secret). */
export function describePlatform(resolved: Extract<ResolvedPlatform, { kind: "platform" }>): string {
  const from =
    resolved.addressFrom === resolved.credentialsFrom
      ? resolved.addressFrom
      : `address from ${resolved.addressFrom}; credentials from ${resolved.credentialsFrom}`;
  return `${resolved.baseUrl} (${from})`;
}

/** The address alone (for `matframe login`, whose credentials are typed): caller, MATFRAME_BASE_URL, then API_HOST. */
export function resolveAddress(
  choice: Pick<PlatformChoice, "baseUrl">,
  env: NodeJS.ProcessEnv = process.env,
  names: ChoiceNames = OPTION_NAMES,
): { baseUrl: string; from: string } | undefined {
  return addressOf(choice, env, names);
}

function fromNamedProfile(choice: PlatformChoice, env: NodeJS.ProcessEnv, names: ChoiceNames): ResolvedPlatform {
  const name = choice.profile!;
  for (const key of ["accountId", "authToken", "accessToken", "username"] as const) {
    if (set(choice[key])) {
      throw new ValidationError(
        "profile",
        `${names.profile} names a saved login and ${key === "username" ? names.username : key} gives other credentials: give one of them.`,
      );
    }
  }
  const saved = readProfile(name, env);
  if (!saved)
    throw new ValidationError(
      "profile",
      `No saved login named "${name}" in ${credentialsPath(env)}; run \`matframe login --profile ${name}\` first, or leave out ${names.profile}.`,
    );
  if (set(choice.baseUrl) && !sameBase(saved.baseUrl, choice.baseUrl)) {
    throw new ValidationError(
      "baseUrl",
      `${names.baseUrl} ${withoutUrlCredentials(choice.baseUrl)} is not the platform of the saved login "${name}" (${saved.baseUrl}); leave out one of them.`,
    );
  }
  return profilePlatform(saved, name, env, undefined, `${names.profile} ${name}`);
}

function profilePlatform(
  saved: SavedCredentials,
  name: string,
  env: NodeJS.ProcessEnv,
  addressFrom: string | undefined,
  label = `the saved login "${name}"`,
): ResolvedPlatform {
  return {
    kind: "platform",
    baseUrl: normaliseBaseUrl(saved.baseUrl).href,
    credentials:
      saved.tokenType === "bearer"
        ? {
            kind: "bearer",
            accessToken: saved.authToken,
            accountId: saved.accountId,
            ...(saved.refreshToken
              ? {
                  refresh: {
                    profile: name,
                    credentialsFile: credentialsPath(env),
                    refreshToken: saved.refreshToken,
                    ...(saved.expiresAt ? { expiresAt: saved.expiresAt } : {}),
                  },
                }
              : {}),
          }
        : { kind: "token", accountId: saved.accountId, authToken: saved.authToken },
    addressFrom: addressFrom ?? label,
    credentialsFrom: label,
  };
}

function addressOf(
  choice: Pick<PlatformChoice, "baseUrl">,
  env: NodeJS.ProcessEnv,
  names: ChoiceNames,
): { baseUrl: string; from: string } | undefined {
  // Checked as it is read, so that a mistyped address is named before anything else.
  if (set(choice.baseUrl)) return { baseUrl: normaliseBaseUrl(choice.baseUrl).href, from: names.baseUrl };
  if (set(env.MATFRAME_BASE_URL))
    return { baseUrl: normalised("MATFRAME_BASE_URL", env.MATFRAME_BASE_URL), from: "MATFRAME_BASE_URL" };
  const given = OFFICIAL_ADDRESS.filter((name) => set(env[name]));
  if (given.length === 0) return undefined;
  return { baseUrl: officialBaseUrl(env, given), from: given.join(", ") };
}

/**
 * The Python client's address: `{https if API_SECURE else http}://API_HOST:API_PORT/api/API_VERSION`,
 * with its defaults (port 443, secure, version 2018-10-01), except that a host is never assumed.
 */
function officialBaseUrl(env: NodeJS.ProcessEnv, given: readonly string[]): string {
  const host = env.API_HOST;
  if (!set(host)) {
    throw new ValidationError(
      "API_HOST",
      `${given.join(", ")} ${given.length > 1 ? "are" : "is"} set, but API_HOST is not: set API_HOST to the platform's host name (e.g. platform.mat3ra.com), or unset ${given.join(", ")}.`,
    );
  }
  if (/[/@\s]/.test(host)) {
    throw new ValidationError(
      "API_HOST",
      `API_HOST must be a host name such as platform.mat3ra.com, not a URL; to give a URL, set MATFRAME_BASE_URL instead.`,
    );
  }
  // "host:port" (one colon: an IPv6 address has several) is a habit from other tools.
  const withPort = /^([^:[\]]+):(\d*)$/.exec(host);
  if (withPort) {
    throw new ValidationError(
      "API_HOST",
      `API_HOST must be a host name without a port; got ${JSON.stringify(host.slice(0, 60))}: set API_HOST=${withPort[1]} and API_PORT=${withPort[2] || "<port>"}.`,
    );
  }
  const secureText = env.API_SECURE ?? "true";
  if (!TRUE.test(secureText) && !FALSE.test(secureText)) {
    throw new ValidationError(
      "API_SECURE",
      `API_SECURE must be true or false (https or http); got ${JSON.stringify(secureText.slice(0, 20))}.`,
    );
  }
  const portText = env.API_PORT || "443";
  const port = Number(portText);
  if (!/^[0-9]{1,5}$/.test(portText) || port < 1 || port > 65535) {
    throw new ValidationError(
      "API_PORT",
      `API_PORT must be a port number from 1 to 65535; got ${JSON.stringify(portText.slice(0, 20))}.`,
    );
  }
  if (set(env.API_VERSION) && env.API_VERSION !== API_VERSION) {
    throw new ValidationError(
      "API_VERSION",
      `API_VERSION is ${JSON.stringify(env.API_VERSION.slice(0, 20))}, but matframe speaks the API version ${API_VERSION}; unset API_VERSION or set it to ${API_VERSION}.`,
    );
  }
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return normalised("API_HOST", `${TRUE.test(secureText) ? "https" : "http"}://${bracketed}:${port}`);
}

function normalised(variable: string, value: string): string {
  try {
    return normaliseBaseUrl(value).href;
  } catch (error) {
    if (error instanceof ValidationError)
      throw new ValidationError(variable, error.message.replace(/^baseUrl\b/, variable));
    throw error;
  }
}

/** Credentials from the caller's settings over `MATFRAME_*` (field by field), else the Python client's names. */
function credentialsOf(
  choice: PlatformChoice,
  env: NodeJS.ProcessEnv,
  names: ChoiceNames,
): { credentials: PlatformCredentials; from: string } | undefined {
  const pick = (value: string | undefined, label: string, variable: string): { value?: string; from: string } =>
    set(value) ? { value, from: label } : { value: set(env[variable]) ? env[variable] : undefined, from: variable };
  const accountId = pick(choice.accountId, "accountId", "MATFRAME_ACCOUNT_ID");
  const authToken = pick(choice.authToken, "authToken", "MATFRAME_AUTH_TOKEN");
  const username = pick(choice.username, names.username, "MATFRAME_USERNAME");
  const password = pick(choice.password, names.password, "MATFRAME_PASSWORD");
  const tokenPair = (): { credentials: PlatformCredentials; from: string } => {
    if (!set(accountId.value) || !set(authToken.value)) throw halfPair(accountId, authToken, "credentials");
    return {
      credentials: { kind: "token", accountId: accountId.value, authToken: authToken.value },
      from: `${accountId.from} + ${authToken.from}`,
    };
  };
  const loginPair = (): { credentials: PlatformCredentials; from: string } => {
    if (!set(username.value) || !set(password.value)) throw halfPair(username, password, "credentials");
    return {
      credentials: { kind: "login", username: username.value, password: password.value },
      from: `${username.from} + ${password.from}`,
    };
  };
  // What the caller gave wins over any variable (its other half may come from MATFRAME_*).
  if (set(choice.accessToken)) {
    if (set(choice.authToken))
      throw new ValidationError(
        "accessToken",
        "Give accessToken (sent as Authorization: Bearer) or accountId with authToken, not both.",
      );
    return {
      credentials: {
        kind: "bearer",
        accessToken: choice.accessToken,
        ...(set(choice.accountId) ? { accountId: choice.accountId } : {}),
      },
      from: "accessToken",
    };
  }
  if (set(choice.accountId) || set(choice.authToken)) return tokenPair();
  if (set(choice.username) || set(choice.password)) return loginPair();
  if (set(accountId.value) || set(authToken.value)) return tokenPair();
  if (set(username.value) || set(password.value)) return loginPair();
  // The platform's Python client: a Bearer token wins over the id/token pair, as there.
  if (set(env.OIDC_ACCESS_TOKEN)) {
    return {
      credentials: {
        kind: "bearer",
        accessToken: env.OIDC_ACCESS_TOKEN,
        ...(set(env.ACCOUNT_ID) ? { accountId: env.ACCOUNT_ID } : {}),
      },
      from: set(env.ACCOUNT_ID) ? "OIDC_ACCESS_TOKEN + ACCOUNT_ID" : "OIDC_ACCESS_TOKEN",
    };
  }
  if (set(env.ACCOUNT_ID) || set(env.AUTH_TOKEN)) {
    const id = { value: env.ACCOUNT_ID, from: "ACCOUNT_ID" };
    const token = { value: env.AUTH_TOKEN, from: "AUTH_TOKEN" };
    if (!set(id.value) || !set(token.value))
      throw halfPair(id, token, "credentials", " (or set OIDC_ACCESS_TOKEN instead)");
    return {
      credentials: { kind: "token", accountId: id.value, authToken: token.value },
      from: "ACCOUNT_ID + AUTH_TOKEN",
    };
  }
  return undefined;
}

function halfPair(
  a: { value?: string; from: string },
  b: { value?: string; from: string },
  option: string,
  hint = "",
): ValidationError {
  const [given, missing] = set(a.value) ? [a, b] : [b, a];
  return new ValidationError(
    option,
    `${given.from} is set but ${missing.from} is not: the two go together${hint}. Set ${missing.from} as well, or unset ${given.from}.`,
  );
}
