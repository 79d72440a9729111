import { readFileSync, statSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { DatasetError, MatframeError, MissingDependencyError, ServerOptionsError } from "../errors";
import { startServer, type Lockout, type ServerHandle } from "../server";
import { formatWait } from "../server/handlers/auth-handlers";
import { parseFlags, wrapHelp } from "./cli-args";
import { planColumns } from "../frame/table/column-spec";
import { planResults } from "../frame/results/results-plan";
import { PROPERTY_FIELDS } from "../frame/results/results-rows";
import type { Fields } from "../schemas";
import { describeError, UsageError } from "./errors";
import { readCommands, SERVE_COMMANDS, stopWithParent } from "./serve-console";
import { commandArgument, escapeForTerminal, quoteForTerminal } from "../terminal-text";
import { isWildcardHost } from "../loopback";

export const SERVE_USAGE = `Usage: matframe serve [options]

Serves the Materials Platform API (2018-10-01) on this machine, with real materials.

Options:
  --host HOST            address to listen on (default 127.0.0.1; the demo account
                         only allows loopback addresses)
  --port PORT            TCP port, 0 for any free port (default 4000)
  --data FILE            serve your own records: a JSON array or NDJSON file
  --user NAME:PASSWORD   an account (repeatable); without any, the account is demo/demo
  --users-file FILE      accounts from a file, one NAME:PASSWORD per line (# comments):
                         unlike --user, the passwords stay out of the process list
  --synthetic N          add N synthetic materials (strained copies), for scale
  --max-connections N    open connections at most (default 512); idle ones are closed first
  --send-timeout SECONDS close a connection that does not read an answer in time (default 30)
  --max-failed-logins N  failed logins per user and address before a lockout (default 5)
  --lockout DURATION     how long failures count and lock out, e.g. 15m, 90s, 1h (default 15m)
  --compression MODE     off, gzip, br or auto (default auto: the coding the client prefers)
  --store DIR            keep records written through the API (create, update, delete,
                         copy, import) in an LMDB database in DIR, so they survive a
                         restart; without it they live in memory (needs the package lmdb)
  --quota-records N      records one account may keep (default 10000)
  --quota-mib N          MiB one account's records may take together (default 256)
  --max-running-jobs N   jobs computing at once, at most (default: cores less one, at
                         least 1); the others wait, accounts taking turns
  --job-time-limit TIME  how long one job may compute before it ends in error,
                         e.g. 10m, 90s, 2h (default 10m)
  --no-account-defaults  give accounts no default material and workflow (every account
                         still has its default project): the materials are the served
                         ones alone, as benchmarks that count them expect
  --no-warm-up           do not warm up after starting: the server's own first reads
                         (which build its indexes) and the JSON of toDataFrame()'s
                         default columns for every served material (a first walk is
                         then 2-3 times slower; the warm-up takes about 2 s and
                         80 MiB for 100,000 materials)
  --quiet                do not log requests to stderr
  -h, --help             show this help

The first line printed on stdout is the base URL, e.g. http://127.0.0.1:4000/api/2018-10-01.
Failed logins are logged with the username; a lockout is announced on stderr. While it runs,
type on its input: ${SERVE_COMMANDS}. The address of the teacher's page (every
account's sessions, requests, writes, jobs and lockouts, with Unlock buttons) is printed
on stderr at start, with a key made anew at each start: keep it to yourself.
Stop with Ctrl-C (SIGINT) or SIGTERM; started by npx or npm, it also stops when that ends.`;

function parseCount(text: string | undefined, flag: string, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) > max) {
    throw new UsageError(`${flag} takes a whole number from 0 to ${max}, not "${text}".`);
  }
  return Number(text);
}

/**
 * The accounts of `--user` and `--users-file`. A file's line is never quoted in a message: it
 * holds a password.
 */
function usersOf(given: string[] | undefined, file: string | undefined, warnings: string[]): string[] | undefined {
  if (file === undefined) return given;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`--users-file ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? "error"}).`);
  }
  // It holds passwords: a file every local user can read gives them away (as a command line would).
  if ((statSync(file).mode & 0o004) !== 0)
    warnings.push(`--users-file ${file} can be read by every user of this machine; chmod 600 it.`);
  const users: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const entry = line.trim();
    if (entry === "" || entry.startsWith("#")) return;
    if (!/^[^:]+:.+$/.test(entry))
      throw new UsageError(
        `--users-file ${file}, line ${i + 1}: expected NAME:PASSWORD (a name, a colon, a password).`,
      );
    // "alice : wonderland" would make the name "alice " and the password " wonderland": no student could log in.
    const colon = entry.indexOf(":");
    if (/\s$/.test(entry.slice(0, colon)) || /^\s/.test(entry.slice(colon + 1)) || /\s$/.test(line)) {
      throw new UsageError(
        `--users-file ${file}, line ${i + 1}: a space around the name, the colon or the password would be part of them; write NAME:PASSWORD with none.`,
      );
    }
    users.push(entry);
  });
  if (users.length === 0)
    throw new UsageError(`--users-file ${file} names no account: write one NAME:PASSWORD per line.`);
  return [...(given ?? []), ...users];
}

function mebibytes(count: number | undefined): number | undefined {
  return count === undefined ? undefined : count * 1024 * 1024;
}

/** "15m", "90s", "1h", "2h30m" or (unless `unit` is required) a number of seconds, as milliseconds. */
function parseDuration(text: string | undefined, flag: string, requireUnit = false): number | undefined {
  if (text === undefined) return undefined;
  // "--lockout 15" could mean minutes as well as seconds: say which.
  if (requireUnit && /^\s*\d+\s*$/.test(text))
    throw new UsageError(`${flag} needs a unit: ${text.trim()}s, ${text.trim()}m or ${text.trim()}h.`);
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s?)?$/.exec(text.trim());
  if (!match || text.trim() === "" || !match.slice(1).some(Boolean)) {
    throw new UsageError(`${flag} takes a duration such as 15m, 90s or 1h, not "${text}".`);
  }
  const [, h, m, sec] = match;
  const ms = ((Number(h ?? 0) * 60 + Number(m ?? 0)) * 60 + Number(sec ?? 0)) * 1000;
  if (ms === 0 || ms > 7 * 24 * 3600 * 1000)
    throw new UsageError(`${flag} must be above 0 and at most a week (168h), not "${text}".`);
  return ms;
}

function parseCompression(text: string | undefined): "off" | "gzip" | "br" | "auto" | undefined {
  if (text === undefined) return undefined;
  if (text === "off" || text === "gzip" || text === "br" || text === "auto") return text;
  throw new UsageError(`--compression takes off, gzip, br or auto, not "${text}".`);
}

function positive(value: number | undefined, flag: string): number | undefined {
  if (value === 0) throw new UsageError(`${flag} must be at least 1.`);
  return value;
}

const SERVE_FLAGS = {
  host: { type: "string" },
  port: { type: "string" },
  data: { type: "string" },
  user: { type: "string", multiple: true },
  "users-file": { type: "string" },
  synthetic: { type: "string" },
  "max-connections": { type: "string" },
  "send-timeout": { type: "string" },
  "quota-records": { type: "string" },
  "quota-mib": { type: "string" },
  "max-failed-logins": { type: "string" },
  lockout: { type: "string" },
  compression: { type: "string" },
  store: { type: "string" },
  "max-running-jobs": { type: "string" },
  "job-time-limit": { type: "string" },
  quiet: { type: "boolean" },
  "no-account-defaults": { type: "boolean" },
  "no-warm-up": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function parseServeArgs(argv: string[]) {
  return parseFlags("serve", argv, SERVE_FLAGS);
}

/** The projections a results table reads with (its property kinds do not change them). */
function resultsFields(): { properties: Fields; jobs: Fields; materials: Fields } {
  const plan = planResults({ properties: ["band_gaps"] });
  return { properties: { ...PROPERTY_FIELDS }, jobs: plan.jobFields, materials: plan.material.fields };
}

/**
 * For a server on a wildcard address (`0.0.0.0`, `::`), the base URL at each of this machine's
 * network addresses: the one printed names no address another machine can use.
 */
function reachableUrls(baseUrl: string): string[] {
  const url = new URL(baseUrl);
  if (!isWildcardHost(url.hostname)) return [];
  const addresses = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.internal && a.family === "IPv4")
    .map((a) => a!.address);
  return addresses
    .slice(0, 3)
    .map((address) => Object.assign(new URL(baseUrl), { hostname: address }).href.replace(/\/$/, ""));
}

/** Resolves with the reason when SIGINT or SIGTERM arrives, or the npm process that started it ends. */
function untilStopped(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (reason: string) => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      stopWatching();
      resolve(reason);
    };
    const stopWatching = stopWithParent(stop);
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/** Longest name the notice offers to type back: longer ones can log in to no account anyway. */
const MAX_TYPED_NAME = 1024;

/** The notice a teacher sees when a student is locked out; the name is a remote user's, so escaped. */
export function lockoutNotice({ username, address, failures, retryAfterSeconds }: Lockout): string {
  const hint =
    username.length <= MAX_TYPED_NAME
      ? `to let them in now, type: unlock ${commandArgument(username)}`
      : "no account has so long a name, so there is nobody to unlock";
  return `matframe serve: ${quoteForTerminal(username)} is locked out at ${escapeForTerminal(address)} for ${formatWait(retryAfterSeconds)} after ${failures} failed logins; ${hint}\n`;
}

/**
 * `matframe serve`: parses the flags, starts the server, prints the base URL, and stops on
 * SIGINT/SIGTERM. Returns the exit code: 0 after a clean stop, 1 for a usage error.
 */
/** The flags that set each `startServer` option a ServerOptionsError can name. */
const OPTION_FLAGS: Readonly<Record<string, string>> = {
  users: "--user NAME:PASSWORD or --users-file FILE",
  port: "--port",
  host: "--host",
  store: "--store",
};

/** The library words a refused option by its name; here the user typed a flag, so name that too. */
function flagHint(error: Error): string {
  const option =
    error instanceof ServerOptionsError
      ? error.option
      : error instanceof MissingDependencyError && error.packageName === "lmdb"
        ? "store"
        : undefined;
  const flags = option === undefined ? undefined : OPTION_FLAGS[option];
  return flags ? ` (on the command line: ${flags})` : "";
}

export async function runServe(argv: string[]): Promise<number> {
  let handle: ServerHandle;
  const startWarnings: string[] = [];
  try {
    const flags = parseServeArgs(argv);
    if (flags.help) {
      process.stdout.write(`${wrapHelp(SERVE_USAGE)}\n`);
      return 0;
    }
    const quiet = flags.quiet === true;
    handle = await startServer({
      host: flags.host,
      port: parseCount(flags.port, "--port", 65535),
      data: flags.data,
      users: usersOf(flags.user, flags["users-file"], startWarnings),
      synthetic: parseCount(flags.synthetic, "--synthetic", 1_000_000),
      maxConnections: positive(
        parseCount(flags["max-connections"], "--max-connections", 1_000_000),
        "--max-connections",
      ),
      sendTimeoutMs: parseDuration(flags["send-timeout"], "--send-timeout"),
      compression: parseCompression(flags.compression),
      store: flags.store,
      quotaRecords: parseCount(flags["quota-records"], "--quota-records", 100_000_000),
      quotaBytes: mebibytes(parseCount(flags["quota-mib"], "--quota-mib", 1_000_000)),
      maxRunningJobs: positive(parseCount(flags["max-running-jobs"], "--max-running-jobs", 1024), "--max-running-jobs"),
      jobTimeLimitMs: parseDuration(flags["job-time-limit"], "--job-time-limit", true),
      // As on the platform, whose notebooks read them: every account's default material and workflow.
      accountDefaults: flags["no-account-defaults"] !== true,
      // What a first `toDataFrame()` asks for, made while the user starts a client.
      warmFields: flags["no-warm-up"] === true ? [] : [planColumns().fields],
      ...(flags["no-warm-up"] === true ? {} : { warmResults: resultsFields() }),
      teacherPage: true,
      loginThrottle: {
        maxFailures: positive(
          parseCount(flags["max-failed-logins"], "--max-failed-logins", 1_000_000),
          "--max-failed-logins",
        ),
        windowMs: parseDuration(flags.lockout, "--lockout", true),
        onLockout: (lockout) => process.stderr.write(lockoutNotice(lockout)),
      },
      log: (line) => {
        if (!quiet || !/^[A-Z]+ \//.test(line)) process.stderr.write(`${line}\n`);
      },
    });
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof ServerOptionsError ||
      error instanceof DatasetError ||
      error instanceof MissingDependencyError
    ) {
      // A remedy names the option to change, in the flag's words; without one, the flag is added.
      const line =
        describeError(error, { flags: OPTION_FLAGS }) +
        (error instanceof MatframeError && error.remedy ? "" : flagHint(error));
      process.stderr.write(`matframe serve: ${line}\n`);
      return 1;
    }
    throw error;
  }
  const stopped = untilStopped();
  process.stdout.write(`${handle.baseUrl}\n`);
  for (const warning of startWarnings) process.stderr.write(`matframe serve: warning: ${warning}\n`);
  // Its key is the teacher's alone: printed here once, never through the log.
  process.stderr.write(`matframe serve: the class at a glance, for you only (do not show it): ${handle.teacherUrl}\n`);
  const reachable = reachableUrls(handle.baseUrl);
  if (reachable.length > 0)
    process.stderr.write(
      `matframe serve: listening on every address of this machine; from others, use ${reachable.join(" or ")}\n`,
    );
  const server = handle;
  const stopReading = readCommands(
    (username) => server.unlock(username),
    (line) => process.stderr.write(`${line}\n`),
  );
  const reason = await stopped;
  stopReading();
  await handle.close();
  process.stderr.write(`matframe serve: stopped (${reason})\n`);
  return 0;
}
