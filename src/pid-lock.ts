// A lock file naming the process that holds it: one writer per resumable export, one server per
// `--store`. Shared by the frame and server rooms, so it lives beside src/errors.ts.
//
// A process id alone cannot tell a live holder from a dead one whose id was reused: after a
// container restart the new server is PID 1 again, and so was the one that left the lock. So the
// lock also names the host, the boot, the holder's start time and a random token, and a lock is
// live only when all of them still describe a running process.
import { randomBytes } from "node:crypto";
import { linkSync, lstatSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import * as path from "node:path";
import { OutputError } from "./errors";

/** What a lock file holds. Older matframe versions wrote the bare process id. */
export interface LockOwner {
  readonly pid: number;
  readonly host?: string;
  /** Linux's boot id: a lock from before a reboot is stale whatever its pid. */
  readonly boot?: string;
  /** The holder's start time (clock ticks since boot, from /proc): tells a reused pid apart. */
  readonly start?: string;
  /** Random, per lock taken: tells this process's own locks from a former process with its pid. */
  readonly token?: string;
}

/** Locks this process holds, by absolute path, with the token written in each. */
const held = new Map<string, string>();

/**
 * Creates `file` exclusively, naming this process, taking over a lock whose holder has ended (a
 * writer killed with SIGKILL cannot remove its own; a restarted container reuses pids). Returns
 * `{ taken: true }`, or `{ taken: false, owner }` naming the live holder. Other file errors are
 * thrown.
 */
export function takePidLock(file: string): { taken: true } | { taken: false; pid: number; owner: LockOwner } {
  const absolute = path.resolve(file);
  const token = randomBytes(12).toString("hex");
  const mine: LockOwner = { pid: process.pid, host: hostname(), boot: bootId(), start: startTime(process.pid), token };
  for (let attempt = 0; ; attempt++) {
    if (createWithContent(absolute, `${JSON.stringify(mine)}\n`)) {
      held.set(absolute, token);
      return { taken: true };
    }
    const text = readLock(absolute);
    if (text === undefined) {
      // Removed meanwhile (try again), or a link to nowhere, which link() sees and a read does not.
      if (attempt > 0 && isLink(absolute))
        throw new OutputError(`${absolute} is a symbolic link, not a lock matframe made; remove it`);
      continue;
    }
    const owner = parseOwner(text);
    // A second race lost, or a live holder: the lock is not ours.
    if (attempt > 0 || holderLive(absolute, owner)) return { taken: false, pid: owner.pid, owner };
    takeAside(absolute, text);
  }
}

/** Removes a lock this process took (and only such a lock: never one another process took over). */
export function releasePidLock(file: string): void {
  const absolute = path.resolve(file);
  const token = held.get(absolute);
  if (token === undefined) return;
  held.delete(absolute);
  const text = readLock(absolute);
  if (text !== undefined && parseOwner(text).token === token) rmSync(absolute, { force: true });
}

/**
 * Reads a lock without taking it: whether its holder still runs, and its pid; undefined when there
 * is no lock at `file` (or it cannot be read). For a sweep that must never remove what a live
 * process is writing, yet must not create a lock where there was none.
 */
export function lockHolderLive(file: string): { live: boolean; pid: number } | undefined {
  const absolute = path.resolve(file);
  let text: string | undefined;
  try {
    text = readLock(absolute);
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  const owner = parseOwner(text);
  return { live: holderLive(absolute, owner), pid: owner.pid };
}

/** Whether a process with this id exists (EPERM: it does, but belongs to another user). */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A short description of a lock's holder for messages: "process 123" or "process 123 on host". */
export function describeOwner(owner: LockOwner): string {
  return owner.host !== undefined && owner.host !== hostname()
    ? `process ${owner.pid} on ${owner.host}`
    : `process ${owner.pid}`;
}

/**
 * Whether the lock's holder still runs. A lock of another host cannot be checked from here and
 * counts as live (its message names the host, so the user can remove it).
 */
function holderLive(file: string, owner: LockOwner): boolean {
  if (!Number.isInteger(owner.pid) || owner.pid <= 0) return false;
  if (owner.host !== undefined && owner.host !== hostname()) return true;
  // This process's id: live only if this process took it (a former process with the same pid,
  // such as PID 1 before a container restart, left it).
  if (owner.pid === process.pid) return owner.token !== undefined && held.get(file) === owner.token;
  const boot = bootId();
  if (owner.boot !== undefined && boot !== undefined && owner.boot !== boot) return false;
  if (!processRunning(owner.pid)) return false;
  const start = startTime(owner.pid);
  return owner.start === undefined || start === undefined || owner.start === start;
}

/**
 * Writes `text` to a private temporary file, then links it to `file`: the lock appears with its
 * content whole (a reader never sees it empty) and only if no lock is there (link fails on an
 * existing name, symlinks included). Returns false when `file` exists.
 */
function createWithContent(file: string, text: string): boolean {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(8).toString("hex")}.tmp`);
  writeFileSync(temp, text, { flag: "wx", mode: 0o600 });
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw error;
    // A file system without hard links: exclusive create (never through a symlink), then write.
    try {
      writeFileSync(file, text, { flag: "wx", mode: 0o600 });
      return true;
    } catch (inner) {
      if ((inner as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw inner;
    }
  } finally {
    rmSync(temp, { force: true });
  }
}

/**
 * Moves a stale lock out of the way. Renamed aside first and read back, so that a lock another
 * process took over in the meantime is put back rather than removed.
 */
function takeAside(file: string, staleText: string): void {
  const aside = `${file}.${randomBytes(8).toString("hex")}.stale`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (readLock(aside) !== staleText) {
    try {
      linkSync(aside, file);
    } catch {
      // Another lock is there now: it wins.
    }
  }
  rmSync(aside, { force: true });
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

function readLock(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function parseOwner(text: string): LockOwner {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { pid: Number(trimmed) };
  try {
    const parsed = JSON.parse(trimmed) as Partial<LockOwner>;
    const pid = typeof parsed.pid === "number" ? parsed.pid : Number.NaN;
    const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
    return {
      pid,
      host: text(parsed.host),
      boot: text(parsed.boot),
      start: text(parsed.start),
      token: text(parsed.token),
    };
  } catch {
    return { pid: Number.NaN };
  }
}

let cachedBoot: string | null | undefined;
function bootId(): string | undefined {
  if (cachedBoot === undefined) {
    try {
      cachedBoot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
      cachedBoot = null;
    }
  }
  return cachedBoot ?? undefined;
}

/** A process's start time from /proc/PID/stat (field 22), or undefined off Linux. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count from the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19];
  } catch {
    return undefined;
  }
}
