import * as fs from "node:fs";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { finished } from "node:stream/promises";
import { promisify } from "node:util";
import { TargetExistsError } from "../../../errors";
import { OutputError } from "../../../errors";
import { type SweepResult, sweepStaleTempFiles } from "./stale-partials";

const open = promisify(fs.open);
const fsync = promisify(fs.fsync);
const close = promisify(fs.close);

/** A file being written under a temporary name, which takes the target's name only on commit. */
export interface AtomicFile {
  /** The absolute target path. */
  readonly path: string;
  /** The temporary file beside it, e.g. `dir/.materials.csv.1234.9f2c.tmp`. */
  readonly tempPath: string;
  readonly stream: fs.WriteStream;
  /** Flushes, fsyncs and renames the temporary file to the target. */
  commit(): Promise<void>;
  /** Discards the temporary file; safe to call more than once and after a failed commit. */
  abort(): Promise<void>;
  /** Temporary files of earlier, killed exports to the same target, removed before this one began. */
  readonly swept: SweepResult;
}

/** Options of {@link openAtomicFile}. */
export interface AtomicFileOptions {
  /**
   * Replace an existing target. Without it an existing target is an error, checked before
   * anything is written and again at the rename.
   * @default false
   */
  force?: boolean;
}

// Temporary files still open, removed synchronously if the process exits before commit or
// abort (e.g. process.exit from a signal handler).
const live = new Set<string>();
let exitHookInstalled = false;

function track(tempPath: string): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const file of live) {
        try {
          fs.unlinkSync(file);
        } catch {
          // Already gone.
        }
      }
    });
  }
  live.add(tempPath);
}

/**
 * Refuses a target that is a directory, or that exists when `force` is not set; resolves to its
 * absolute path. Callers may run it early, before any work, to fail fast.
 *
 * @throws TargetExistsError, OutputError
 */
export async function checkTarget(target: string, force = false): Promise<string> {
  const file = path.resolve(target);
  const existing = await fs.promises.lstat(file).catch(() => undefined);
  if (existing?.isDirectory()) throw new OutputError(`${target} is a directory; give a file path to write to.`, file);
  if (existing && !force) throw new TargetExistsError(target);
  await checkParent(target, "write");
  return file;
}

/**
 * Checks that the folder `target` goes in exists, is a folder and may be written in: said now,
 * before any work, not after the login (`verb`: what the message says could not be done).
 * @throws OutputError saying why not.
 */
export async function checkParent(target: string, verb: "write" | "create"): Promise<void> {
  const file = path.resolve(target);
  const dir = path.dirname(file);
  const refused = (error: NodeJS.ErrnoException | { code: string }) =>
    new OutputError(`Cannot ${verb} ${target}: ${describeWriteError(error, dir)}`, file, { cause: error });
  const parent = await fs.promises.stat(dir).catch((error: unknown) => error as NodeJS.ErrnoException);
  if (parent instanceof Error) throw refused(parent);
  if (!parent.isDirectory()) throw refused({ code: "ENOTDIR" });
  const denied = await fs.promises
    .access(dir, fs.constants.W_OK)
    .then(() => undefined)
    .catch((error: unknown) => error as NodeJS.ErrnoException);
  if (denied) throw refused(denied);
}

/**
 * Opens a temporary file in the target's directory (so the final rename stays on one file
 * system and is atomic). A failed or interrupted write therefore never leaves a file at the
 * target that looks complete.
 *
 * @throws TargetExistsError when the target exists and `force` is not set; OutputError when the
 *   directory is missing or not writable.
 */
export async function openAtomicFile(target: string, options: AtomicFileOptions = {}): Promise<AtomicFile> {
  const force = options.force ?? false;
  const file = await checkTarget(target, force);

  const dir = path.dirname(file);
  // A writer killed with SIGKILL leaves its temporary file; each run names a new one.
  const swept = sweepStaleTempFiles(file);
  const tempPath = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  let fd: number;
  try {
    fd = await open(tempPath, "wx", 0o666);
  } catch (error) {
    throw new OutputError(`Cannot write ${target}: ${describeWriteError(error, dir)}`, file, { cause: error });
  }
  track(tempPath);
  const stream = fs.createWriteStream("", { fd, autoClose: false });
  let closed = false;
  let settled = false;

  // The stream owns the fd: destroy() closes it whatever autoClose says, so closing it here as
  // well would close a number the process may already have reused for another file or socket.
  async function closeFd(): Promise<void> {
    if (closed) return;
    closed = true;
    if (stream.closed) return;
    const done = new Promise<void>((resolve) => stream.once("close", () => resolve()));
    stream.destroy();
    await done;
  }

  async function remove(): Promise<void> {
    await fs.promises.unlink(tempPath).catch(() => undefined);
    live.delete(tempPath);
  }

  async function abort(): Promise<void> {
    if (settled) return;
    settled = true;
    await closeFd().catch(() => undefined);
    await remove();
  }

  async function commit(): Promise<void> {
    if (settled) throw new OutputError(`The write to ${target} was already finished or abandoned.`, file);
    try {
      stream.end();
      await finished(stream);
      await fsync(fd);
      await closeFd();
      await placeFile(tempPath, file, target, force);
    } catch (error) {
      await abort();
      if (error instanceof TargetExistsError) throw error;
      throw new OutputError(`Cannot write ${target}: ${describeWriteError(error, dir)}`, file, { cause: error });
    }
    settled = true;
    live.delete(tempPath);
    await syncDirectory(dir);
  }

  return { path: file, tempPath, stream, commit, abort, swept };
}

/** Moves a finished file to its target; without `force`, never over a file that appeared meanwhile. */
export async function placeFile(tempPath: string, file: string, target: string, force: boolean): Promise<void> {
  if (force) {
    await fs.promises.rename(tempPath, file);
    return;
  }
  // link() fails if the target appeared meanwhile, where rename() would silently replace it.
  try {
    await fs.promises.link(tempPath, file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new TargetExistsError(target);
    // Some file systems have no hard links: fall back to check-then-rename.
    if (
      await fs.promises.lstat(file).then(
        () => true,
        () => false,
      )
    )
      throw new TargetExistsError(target);
    await fs.promises.rename(tempPath, file);
    return;
  }
  await fs.promises.unlink(tempPath);
}

/** Makes the rename durable; not every platform lets a directory be fsynced, so failures are ignored. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const fd = await open(dir, "r");
    await fsync(fd).finally(() => close(fd));
  } catch {
    // Best effort only.
  }
}

/** Why a file could not be made in `dir`, in words, never naming the temporary file. */
export function describeWriteError(error: unknown, dir: string): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  // /proc and the like: the directory is there, but no file can be created in it.
  if (code === "ENOENT")
    return fs.existsSync(dir) ? `no file can be created in ${dir}.` : `the directory ${dir} does not exist.`;
  if (code === "ENOTDIR") return `${dir} is not a directory (a part of that path is a file).`;
  if (code === "EACCES" || code === "EPERM") return `no permission to write in ${dir}.`;
  if (code === "EROFS") return `${dir} is on a read-only file system.`;
  if (code === "ENOSPC") return "the disk is full.";
  if (code === "EDQUOT") return "the disk quota is used up.";
  if (typeof code === "string") return `the system refused it (${code}).`;
  return (error as Error)?.message ?? String(error);
}

/**
 * Writes a small file (a resume state) under a temporary name, fsyncs it and renames it into
 * place. The temporary name is random and created exclusively, so a symlink planted beside the
 * target is never written through.
 */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const temp = `${file}.${randomBytes(8).toString("hex")}.tmp`;
  const handle = await fs.promises.open(temp, "wx", 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fs.promises.rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  await fs.promises.rename(temp, file);
}

/**
 * Removes a file written by `writeFileAtomic` and the temporary files a writer killed between
 * creating and renaming one (SIGKILL, a power cut) left beside it. Only for a file whose writers
 * are all stopped (the caller holds its output's lock).
 */
export async function removeAtomicFile(file: string): Promise<void> {
  await fs.promises.rm(file, { force: true });
  const dir = path.dirname(file);
  const base = path.basename(file);
  const names = await fs.promises.readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (
      name.length === base.length + 21 &&
      name.startsWith(base) &&
      /^\.[0-9a-f]{16}\.tmp$/.test(name.slice(base.length))
    )
      await fs.promises.rm(path.join(dir, name), { force: true });
  }
}
