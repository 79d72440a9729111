// `matframe login` and `matframe logout`: a login saved once in the per-user credentials file
// (src/client/config/profile.ts), so scripts and notebooks need no password or token of their own.
import { parseFlags, wrapHelp, type FlagSpec } from "./cli-args";
import { Client } from "../client/client";
import { internalsOf } from "../client/client-internals";
import {
  checkCredentialsFile,
  checkProfileName,
  credentialsPath,
  DEFAULT_PROFILE,
  deleteProfile,
  saveProfile,
} from "../client/config/profile";
import { deviceLogin, revokeDeviceToken, savedDeviceTokens, signedInUser } from "../client/device-login";
import { normaliseBaseUrl } from "../client/config/validate-options";
import { AbortError, MatframeError } from "../errors";
import { reportError } from "./errors";
import { promptPassword, readPasswordFromStdin } from "./password";
import { UsageError } from "./errors";
import { environmentPassword, resolveAddress } from "../client/config/platform-source";
import { NAMES } from "./flag-names";
import { printable } from "./printable";

const LOGIN_HELP = `Usage: matframe login --base-url URL [--username NAME] [options]
       matframe login --device --base-url URL [--profile NAME]

Logs in once and saves the account id and token (never the password) in your credentials file
(${"$"}MATFRAME_CREDENTIALS_FILE, else ~/.config/matframe/credentials.json, readable by you only).
Client.fromEnv(), Client.fromProfile() and matframe export --profile then use it.

With --device, signs in through the platform's OIDC device flow instead: prints a web address
and a code, and waits while you sign in and approve the code there in a browser (Ctrl-C stops
waiting). Saves the access token and its refresh token; Client.fromEnv() refreshes it once it
has expired.

Options:
  --base-url URL      the platform's address (default: $MATFRAME_BASE_URL, else $API_HOST with
                      $API_PORT and $API_SECURE, as the platform's Python client reads them)
  --device            sign in in a browser (OIDC device flow); no password here
  --username NAME     the account's username (default: $MATFRAME_USERNAME)
  --password-stdin    read the password from standard input; without it, $MATFRAME_PASSWORD,
                      else a prompt on the terminal (nothing is echoed)
  --profile NAME      save under this name, for several platforms or accounts (default: default)
  -h, --help          show this help
`;

const LOGOUT_HELP = `Usage: matframe logout [--profile NAME]

Revokes the saved token of a profile on its platform and removes it from your credentials file.

Options:
  --profile NAME      the profile to log out (default: default)
  -h, --help          show this help
`;

/** `matframe login ...`: returns the exit code. */
export async function runLogin(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const { values } = parse(
      argv,
      {
        "base-url": { type: "string" },
        username: { type: "string" },
        "password-stdin": { type: "boolean" },
        profile: { type: "string" },
        device: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      "login",
    );
    if (values.help) {
      process.stdout.write(`${wrapHelp(LOGIN_HELP.trimEnd())}\n`);
      return 0;
    }
    const address = resolveAddress({ baseUrl: values["base-url"] as string | undefined }, env, NAMES);
    if (!address)
      throw new UsageError(
        "--base-url is required: the address of the platform to log in to (or set MATFRAME_BASE_URL, or API_HOST as the platform's Python client reads it).",
      );
    const baseUrl = address.baseUrl;
    if (values.device) {
      if (values.username !== undefined || values["password-stdin"])
        throw new UsageError("--device signs in in a browser: leave out --username and --password-stdin.");
      const profile = (values.profile as string | undefined) ?? env.MATFRAME_PROFILE ?? DEFAULT_PROFILE;
      checkProfileName(profile); // before the person signs in, not after
      checkCredentialsFile(env);
      return await runDeviceLogin(
        baseUrl,
        profile,
        address.from === NAMES.baseUrl ? "" : ` (address from ${address.from})`,
        env,
      );
    }
    const username = (values.username as string | undefined) || env.MATFRAME_USERNAME;
    if (!username) throw new UsageError("--username is required (or set MATFRAME_USERNAME).");
    const profile = (values.profile as string | undefined) ?? env.MATFRAME_PROFILE ?? DEFAULT_PROFILE;
    // A login that could not be saved would leave a session open on the platform: said first.
    checkProfileName(profile);
    checkCredentialsFile(env);
    // MATFRAME_PASSWORD set beside another platform's MATFRAME_BASE_URL is not that platform's to send here.
    const fromEnv = environmentPassword(
      address,
      env,
      "(type its password at the prompt on a terminal, or pass --password-stdin)",
    );
    const password = values["password-stdin"]
      ? await readPasswordFromStdin("login")
      : fromEnv.password ||
        (process.stdin.isTTY && process.stderr.isTTY
          ? await promptPassword(`Password for ${printable(username)} at ${hostOf(baseUrl)}: `)
          : undefined);
    if (!password)
      throw new UsageError(
        fromEnv.withheld ??
          "no password: type it at the prompt on a terminal, pass --password-stdin, or set MATFRAME_PASSWORD.",
      );
    const client = await Client.login({ baseUrl, username, password });
    try {
      const file = saveProfile(profile, { ...internalsOf(client).savedCredentials(), username }, env);
      // Where the address came from, when the command line did not give it (never a secret).
      const from = address.from === NAMES.baseUrl ? "" : ` (address from ${address.from})`;
      process.stderr.write(
        `Logged in to ${hostOf(client.baseUrl)}${from} as ${printable(username)}; saved as profile "${profile}" in ${file}.\n`,
      );
    } finally {
      await client.close(); // the token stays valid: it is what was saved
    }
    return 0;
  } catch (error) {
    return fail("login", error);
  }
}

/** The device flow: prints where to approve, waits (Ctrl-C or SIGTERM stop it), saves the tokens. */
async function runDeviceLogin(baseUrl: string, profile: string, from: string, env: NodeJS.ProcessEnv): Promise<number> {
  const stop = new AbortController();
  const onSignal = () => stop.abort(new AbortError("Interrupted by a signal."));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const tokens = await deviceLogin({
      baseUrl,
      signal: stop.signal,
      onCode: ({ verificationUri, verificationUriComplete, userCode, expiresInSeconds }) => {
        process.stderr.write(
          `To sign in, open ${printable(verificationUriComplete ?? verificationUri)} in a browser and approve the code ${printable(userCode)}\n` +
            `(or open ${printable(verificationUri)} and type it). Waiting up to ${Math.round(expiresInSeconds / 60)} minutes; Ctrl-C stops.\n`,
        );
      },
    });
    const user = await signedInUser({ baseUrl, accessToken: tokens.accessToken, signal: stop.signal });
    const file = saveProfile(
      profile,
      {
        baseUrl: normaliseBaseUrl(baseUrl).href,
        accountId: user.accountId,
        ...(user.username ? { username: user.username } : {}),
        ...savedDeviceTokens(tokens),
      },
      env,
    );
    process.stderr.write(
      `Signed in to ${hostOf(baseUrl)}${from}${user.username ? ` as ${printable(user.username)}` : ""}; saved as profile "${profile}" in ${file}.\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof AbortError && stop.signal.aborted) {
      process.stderr.write("matframe login: stopped waiting for the sign-in; nothing was saved.\n");
      return 130;
    }
    throw error;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/** `matframe logout ...`: returns the exit code. */
export async function runLogout(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const { values } = parse(argv, { profile: { type: "string" }, help: { type: "boolean", short: "h" } }, "logout");
    if (values.help) {
      process.stdout.write(`${wrapHelp(LOGOUT_HELP.trimEnd())}\n`);
      return 0;
    }
    const profile = (values.profile as string | undefined) ?? env.MATFRAME_PROFILE ?? DEFAULT_PROFILE;
    const saved = deleteProfile(profile, env);
    if (!saved) {
      process.stderr.write(
        `matframe logout: no saved login named "${profile}" in ${credentialsPath(env)}; nothing to do.\n`,
      );
      return 0;
    }
    let revoked = "revoked its token";
    try {
      if (saved.tokenType === "bearer") {
        if (saved.refreshToken) await revokeDeviceToken({ baseUrl: saved.baseUrl, token: saved.refreshToken });
        await new Client({
          baseUrl: saved.baseUrl,
          accountId: saved.accountId,
          accessToken: saved.authToken,
          maxRetries: 1,
        }).logout();
      } else {
        await new Client({
          baseUrl: saved.baseUrl,
          accountId: saved.accountId,
          authToken: saved.authToken,
          maxRetries: 1,
        }).logout();
      }
    } catch (error) {
      // Removed here all the same: the file no longer holds it.
      revoked = `could not revoke its token (${error instanceof MatframeError ? error.message.replace(/\.$/, "") : String(error)}); it stays valid on the platform until it expires`;
    }
    process.stderr.write(
      `Logged out of ${hostOf(saved.baseUrl)}: removed profile "${profile}" from ${credentialsPath(env)} and ${revoked}.\n`,
    );
    return 0;
  } catch (error) {
    return fail("logout", error);
  }
}

function parse(
  argv: string[],
  options: FlagSpec,
  command: string,
): { values: Record<string, string | boolean | undefined> } {
  if (argv.some((arg) => arg === "--password" || arg.startsWith("--password="))) {
    throw new UsageError(
      "--password is not accepted: a password on the command line shows in the process list and shell history. Use the prompt, --password-stdin or MATFRAME_PASSWORD.",
    );
  }
  return { values: parseFlags(command, argv, options) as Record<string, string | boolean | undefined> };
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

/** One line for `error`, in the words of login's flags, and the exit code every command uses. */
function fail(command: string, error: unknown): number {
  return reportError(command, error, { flags: { baseUrl: "--base-url", profile: "--profile" } });
}
