// `matframe login` and `matframe logout`: a login saved once in the per-user credentials file
// (src/client/config/profile.ts), so scripts and notebooks need no password or token of their own.
import { parseFlags, wrapHelp, type FlagSpec } from "./cli-args";
import { Client } from "../client/client";
import { credentialsPath, DEFAULT_PROFILE, deleteProfile, saveProfile } from "../client/config/profile";
import { MatframeError } from "../errors";
import { reportError } from "./errors";
import { promptPassword, readPasswordFromStdin, UsageError } from "./password";
import { resolveAddress } from "../client/config/platform-source";
import { NAMES } from "./flag-names";

const LOGIN_HELP = `Usage: matframe login --base-url URL [--username NAME] [options]

Logs in once and saves the account id and token (never the password) in your credentials file
(${"$"}MATFRAME_CREDENTIALS_FILE, else ~/.config/matframe/credentials.json, readable by you only).
Client.fromEnv(), Client.fromProfile() and matframe export --profile then use it.

Options:
  --base-url URL      the platform's address (default: $MATFRAME_BASE_URL, else $API_HOST with
                      $API_PORT and $API_SECURE, as the platform's Python client reads them)
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
    const { values } = parse(argv, {
      "base-url": { type: "string" },
      username: { type: "string" },
      "password-stdin": { type: "boolean" },
      profile: { type: "string" },
      help: { type: "boolean", short: "h" },
    }, "login");
    if (values.help) {
      process.stdout.write(`${wrapHelp(LOGIN_HELP.trimEnd())}\n`);
      return 0;
    }
    const address = resolveAddress({ baseUrl: values["base-url"] as string | undefined }, env, NAMES);
    if (!address) throw new UsageError("--base-url is required: the address of the platform to log in to (or set MATFRAME_BASE_URL, or API_HOST as the platform's Python client reads it).");
    const baseUrl = address.baseUrl;
    const username = (values.username as string | undefined) || env.MATFRAME_USERNAME;
    if (!username) throw new UsageError("--username is required (or set MATFRAME_USERNAME).");
    const profile = (values.profile as string | undefined) ?? env.MATFRAME_PROFILE ?? DEFAULT_PROFILE;
    const password = values["password-stdin"]
      ? await readPasswordFromStdin("login")
      : env.MATFRAME_PASSWORD || (process.stdin.isTTY && process.stderr.isTTY ? await promptPassword(`Password for ${username} at ${hostOf(baseUrl)}: `) : undefined);
    if (!password) throw new UsageError("no password: type it at the prompt on a terminal, pass --password-stdin, or set MATFRAME_PASSWORD.");
    const client = await Client.login({ baseUrl, username, password });
    try {
      const file = saveProfile(profile, { ...client.savedCredentials(), username }, env);
      // Where the address came from, when the command line did not give it (never a secret).
      const from = address.from === NAMES.baseUrl ? "" : ` (address from ${address.from})`;
      process.stderr.write(`Logged in to ${hostOf(client.baseUrl)}${from} as ${username}; saved as profile "${profile}" in ${file}.\n`);
    } finally {
      await client.close(); // the token stays valid: it is what was saved
    }
    return 0;
  } catch (error) {
    return fail("login", error);
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
      process.stderr.write(`matframe logout: no saved login named "${profile}" in ${credentialsPath(env)}; nothing to do.\n`);
      return 0;
    }
    let revoked = "revoked its token";
    try {
      await new Client({ baseUrl: saved.baseUrl, accountId: saved.accountId, authToken: saved.authToken, maxRetries: 1 }).logout();
    } catch (error) {
      // Removed here all the same: the file no longer holds it.
      revoked = `could not revoke its token (${error instanceof MatframeError ? error.message.replace(/\.$/, "") : String(error)}); it stays valid on the platform until it expires`;
    }
    process.stderr.write(`Logged out of ${hostOf(saved.baseUrl)}: removed profile "${profile}" from ${credentialsPath(env)} and ${revoked}.\n`);
    return 0;
  } catch (error) {
    return fail("logout", error);
  }
}

function parse(argv: string[], options: FlagSpec, command: string): { values: Record<string, string | boolean | undefined> } {
  if (argv.some((arg) => arg === "--password" || arg.startsWith("--password="))) {
    throw new UsageError("--password is not accepted: a password on the command line shows in the process list and shell history. Use the prompt, --password-stdin or MATFRAME_PASSWORD.");
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
