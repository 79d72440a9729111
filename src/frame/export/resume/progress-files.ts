// The files a resumable export keeps beside its target (all hidden): the partial output (a file,
// or a folder for a dataset or structure export), the sealed state file, and the lock. One lock
// per target, taken before any of the others is read, made or removed: a second run of the same
// export is refused before it can change anything of the first.
import * as fs from "node:fs";
import * as path from "node:path";
import { OutputError, ResumeError } from "../../../errors";
import { describeOwner, releasePidLock, takePidLock } from "../../../pid-lock";
import { describeWriteError, removeAtomicFile } from "../atomic/atomic-file";

/** Names of the hidden files beside a target. */
export function resumePaths(target: string): { partial: string; state: string; lock: string } {
  const file = path.resolve(target);
  const dir = path.dirname(file);
  const base = path.basename(file);
  return {
    partial: path.join(dir, `.${base}.matframe-partial`),
    state: path.join(dir, `.${base}.matframe-resume.json`),
    lock: path.join(dir, `.${base}.matframe-lock`),
  };
}

/**
 * The lock of one resumable output (a file, a dataset folder or a structure folder): a file beside
 * the target holding this process's id, created exclusively. Two runs continuing the same export
 * would write over each other, and a run with `restart` would delete the other's progress. A lock
 * whose process has ended (killed) is taken over.
 */
export class OutputLock {
  private released = false;

  private constructor(
    /** The lock file. */
    readonly path: string,
  ) {}

  /**
   * Takes the lock of `target` (the final path, not a part inside it).
   * @throws ResumeError naming the process that holds it; OutputError when the folder is unusable.
   */
  static take(target: string, label: string): OutputLock {
    const file = path.resolve(target);
    const { lock } = resumePaths(file);
    let held: ReturnType<typeof takePidLock>;
    try {
      held = takePidLock(lock);
    } catch (error) {
      throw new OutputError(`Cannot write ${label}: ${describeWriteError(error, path.dirname(file))}`, file, {
        cause: error,
      });
    }
    if (!held.taken) {
      throw new ResumeError(
        `Another export (${describeOwner(held.owner)}) is writing ${label}; nothing of it was changed. Wait for it to finish, or stop it, then run this again.`,
        file,
        // Not restart: a run in progress keeps its output whatever this one is given.
        null,
      );
    }
    return new OutputLock(lock);
  }

  /** Removes the lock; safe to call more than once. */
  release(): void {
    if (this.released) return;
    this.released = true;
    releasePidLock(this.path);
  }
}

/** Runs `work` holding the lock of `target`, released however it ends. */
export async function withOutputLock<T>(
  target: string,
  label: string,
  work: (lock: OutputLock) => Promise<T>,
): Promise<T> {
  const lock = OutputLock.take(target, label);
  try {
    return await work(lock);
  } finally {
    lock.release();
  }
}

/**
 * Checks that a saved export's progress directory is one matframe made: a real directory (not a
 * symbolic link someone planted, which would send the parts' files, and their clean-up, into a
 * folder of their choosing), owned by this user.
 *
 * @throws ResumeError when it is missing, a link, not a directory or another user's.
 */
export async function checkProgressDirectory(dir: string, target: string, file: string): Promise<void> {
  const stat = await fs.promises.lstat(dir).catch(() => undefined);
  if (!stat)
    throw new ResumeError(`The saved progress of ${target} has lost its directory ${dir}.`, file, {
      to: "to start over",
    });
  const uid = process.getuid?.();
  if (stat.isSymbolicLink() || !stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) {
    const what = stat.isSymbolicLink()
      ? "a symbolic link"
      : !stat.isDirectory()
        ? "not a directory"
        : "owned by another user";
    throw new ResumeError(
      `The progress directory ${dir} of ${target} is ${what}, not one matframe made; matframe will not write through it. ` +
        "Remove it.",
      file,
      { to: "to start over" },
    );
  }
}

/**
 * Removes the saved progress of `target` (partial file or folder, and state file), if any. Only
 * under the target's own lock (`_lock`, asked for so that no caller can forget it): no other run
 * is writing them then.
 */
export async function discardProgress(target: string, _lock: OutputLock): Promise<void> {
  const { partial, state } = resumePaths(target);
  await removeAtomicFile(state);
  await fs.promises.rm(partial, { force: true, recursive: true });
}

/** What the saved progress of an export holds, for the message a resumed run starts with. */
export interface SavedSummary {
  /** Records already written. */
  readonly items: number;
  /** A file export: the pages those records came in (the walk continues with the next one). */
  readonly pages?: number;
  /** A directory export: the part files that hold some of them (each continues where it stopped). */
  readonly parts?: number;
}

/**
 * How many records the saved progress of `target` holds (a file, a partitioned dataset or a
 * structure directory), or undefined when nothing is saved.
 */
export async function savedRecords(target: string): Promise<number | undefined> {
  return (await savedProgress(target))?.items;
}

/**
 * What the saved progress of `target` holds: records, and the pages (a file) or the part files (a
 * directory) they are in; undefined when nothing is saved. Read without the lock, for messages only.
 */
export async function savedProgress(target: string): Promise<SavedSummary | undefined> {
  const { partial, state } = resumePaths(target);
  const text = await fs.promises.readFile(state, "utf8").catch(() => undefined);
  const top =
    text === undefined
      ? undefined
      : (JSON.parse(text) as {
          progress?: { items?: number; pages?: number };
          finished?: Record<string, number>;
        });
  if (typeof top?.progress?.items === "number") return { items: top.progress.items, pages: top.progress.pages ?? 0 };
  const entries = await fs.promises.readdir(partial).catch(() => undefined);
  if (!entries) return undefined;
  // A directory export: its parts' (or its index's) state files, and the parts already finished;
  // a hive-partitioned dataset keeps them one folder down, in each value's folder.
  const finished = Object.values(top?.finished ?? {});
  let items = finished.reduce((sum, n) => sum + n, 0);
  let parts = finished.filter((n) => n > 0).length;
  const stateFiles = entries.filter((entry) => entry.endsWith(".matframe-resume.json"));
  for (const folder of entries.filter((entry) => entry.includes("="))) {
    const inner = await fs.promises.readdir(path.join(partial, folder)).catch(() => []);
    stateFiles.push(
      ...inner.filter((entry) => entry.endsWith(".matframe-resume.json")).map((entry) => path.join(folder, entry)),
    );
  }
  for (const name of stateFiles) {
    const part = JSON.parse(await fs.promises.readFile(path.join(partial, name), "utf8")) as {
      progress?: { items?: number };
    };
    const n = part.progress?.items ?? 0;
    items += n;
    if (n > 0) parts++;
  }
  return { items, parts };
}
