// Saved credentials: `matframe login` keeps the account id and token (never the
// password) of each platform in a per-user file, as `gh auth login` or Materials Project's
// ~/.pmgrc.yaml do, so notebooks and scripts need no secrets in their code or environment.
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { CredentialsFileError } from "../../errors";

/** One saved login. */
export interface SavedCredentials {
  /** The platform's versioned base URL. */
  readonly baseUrl: string;
  readonly accountId: string;
  /** Never printed; the file holding it is readable by its owner only. */
  readonly authToken: string;
  /** Who logged in, for `matframe login --status` style messages. */
  readonly username?: string;
  readonly savedAt: string;
  /**
   * `"bearer"` for a device sign-in (`matframe login --device`): `authToken` is then an OIDC
   * access token, sent as `Authorization: Bearer`.
   */
  readonly tokenType?: "bearer";
  /** A device sign-in's refresh token, exchanged for a new access token when that expires. */
  readonly refreshToken?: string;
  /** When the access token expires (ISO 8601), when the platform said. */
  readonly expiresAt?: string;
}

interface CredentialsFile {
  readonly matframeCredentials: 1;
  readonly profiles: Record<string, SavedCredentials>;
}

/** The profile used when none is named (`--profile`, `MATFRAME_PROFILE`). */
export const DEFAULT_PROFILE = "default";

/**
 * Where the credentials live: `MATFRAME_CREDENTIALS_FILE`, else
 * `$XDG_CONFIG_HOME/matframe/credentials.json`, else `~/.config/matframe/credentials.json`.
 */
export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MATFRAME_CREDENTIALS_FILE) return path.resolve(env.MATFRAME_CREDENTIALS_FILE);
  const config = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), ".config");
  return path.join(config, "matframe", "credentials.json");
}

/** A profile's name: letters, digits, `.`, `_`, `-`. */
export function checkProfileName(name: unknown): string {
  if (typeof name !== "string" || !/^[A-Za-z0-9._-]{1,64}$/.test(name)) {
    throw new CredentialsFileError(
      `A profile name is 1 to 64 letters, digits, ".", "_" or "-"; got ${JSON.stringify(name)}.`,
    );
  }
  return name;
}

/** @param forDeletion read even a file others can read: removing a profile is how to fix one. */
function readFile(file: string, forDeletion = false): CredentialsFile | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CredentialsFileError(`Cannot read the credentials file ${file}: ${(error as Error).message}.`);
  }
  if (!forDeletion) checkFolder(file);
  // As ssh refuses a private key others can read: the token in it is as good as a password.
  if (!forDeletion && process.platform !== "win32" && (stat.mode & 0o077) !== 0) {
    throw new CredentialsFileError(
      `The credentials file ${file} can be read by other users (mode ${(stat.mode & 0o777).toString(8)}); ` +
        `matframe will not use it. Run \`chmod 600 ${file}\`, or \`matframe logout\` and log in again.`,
    );
  }
  try {
    const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as CredentialsFile;
    if (parsed?.matframeCredentials !== 1 || typeof parsed.profiles !== "object" || parsed.profiles === null)
      throw new CredentialsFileError("layout");
    return parsed;
  } catch {
    throw new CredentialsFileError(
      `The credentials file ${file} is not one matframe wrote; move it away, then \`matframe login\` again.`,
    );
  }
}

/**
 * Throws the error `saveProfile` would (a folder others can write, a file others can read, one
 * matframe did not write), so a login can be refused before it opens a session it cannot keep.
 */
export function checkCredentialsFile(env: NodeJS.ProcessEnv = process.env): void {
  const file = credentialsPath(env);
  readFile(file);
  checkFolder(file);
}

/** The saved login of `profile`, or undefined when there is none. */
export function readProfile(
  profile: string = DEFAULT_PROFILE,
  env: NodeJS.ProcessEnv = process.env,
): SavedCredentials | undefined {
  checkProfileName(profile);
  const saved = readFile(credentialsPath(env))?.profiles[profile];
  if (!saved) return undefined;
  if (typeof saved.baseUrl !== "string" || typeof saved.accountId !== "string" || typeof saved.authToken !== "string") {
    throw new CredentialsFileError(
      `The profile "${profile}" in ${credentialsPath(env)} is incomplete; run \`matframe login --profile ${profile}\` again.`,
    );
  }
  return saved;
}

/** Every saved profile's name and platform (no tokens). */
export function listProfiles(
  env: NodeJS.ProcessEnv = process.env,
): { name: string; baseUrl: string; username?: string }[] {
  const profiles = readFile(credentialsPath(env))?.profiles ?? {};
  return Object.entries(profiles).map(([name, p]) => ({
    name,
    baseUrl: p.baseUrl,
    ...(p.username ? { username: p.username } : {}),
  }));
}

/**
 * Saves a login under `profile` (replacing one of that name). The file is created readable by
 * its owner only (0600, in a 0700 directory) and replaced atomically.
 */
export function saveProfile(
  profile: string,
  credentials: Omit<SavedCredentials, "savedAt">,
  env: NodeJS.ProcessEnv = process.env,
): string {
  checkProfileName(profile);
  const file = credentialsPath(env);
  const current = readFile(file);
  const next: CredentialsFile = {
    matframeCredentials: 1,
    profiles: { ...(current?.profiles ?? {}), [profile]: { ...credentials, savedAt: new Date().toISOString() } },
  };
  writePrivate(file, next);
  return file;
}

/** Removes `profile`; returns what it held (to revoke its token), or undefined when there was none. */
export function deleteProfile(
  profile: string = DEFAULT_PROFILE,
  env: NodeJS.ProcessEnv = process.env,
): SavedCredentials | undefined {
  checkProfileName(profile);
  const file = credentialsPath(env);
  const current = readFile(file, true);
  const saved = current?.profiles[profile];
  if (!current || !saved) return undefined;
  const { [profile]: _gone, ...rest } = current.profiles;
  if (Object.keys(rest).length === 0) fs.rmSync(file, { force: true });
  else writePrivate(file, { ...current, profiles: rest });
  return saved;
}

function writePrivate(file: string, content: CredentialsFile): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  checkFolder(file);
  // A random name created exclusively ("wx" never opens through a symlink planted there), 0600
  // from the start (never briefly readable), then renamed over the old file.
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(8).toString("hex")}.tmp`);
  const fd = fs.openSync(temp, "wx", 0o600);
  try {
    fs.writeFileSync(fd, `${JSON.stringify(content, null, 2)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(temp, 0o600); // whatever the umask did
  fs.renameSync(temp, file);
}

/**
 * Refuses a credentials folder other users can write, as ssh refuses a ~/.ssh others can write:
 * they could replace the file, or plant a link where matframe writes the token.
 */
function checkFolder(file: string): void {
  if (process.platform === "win32") return;
  const dir = path.dirname(file);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    return; // no folder: nothing to read, and writePrivate creates it 0700
  }
  if ((stat.mode & 0o022) !== 0) {
    throw new CredentialsFileError(
      `The folder ${dir} of the credentials file can be written by other users (mode ${(stat.mode & 0o777).toString(8)}); matframe will not keep or read a token there. ` +
        `Run \`chmod 700 ${dir}\`, or set MATFRAME_CREDENTIALS_FILE to a file in a folder of your own.`,
    );
  }
}
