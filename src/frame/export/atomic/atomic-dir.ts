import * as fs from "node:fs";
import * as path from "node:path";
import { describeWriteError } from "./atomic-file";
import { randomBytes } from "node:crypto";
import { OutputError, TargetExistsError } from "../../../errors";
import { releasePidLock, takePidLock } from "../../../pid-lock";
import { OWNER_FILE, type SweepResult, sweepStalePartials } from "./stale-partials";

/** A directory being filled under a temporary name, which takes the target's name only on commit. */
export interface AtomicDir {
  /** The absolute target path. */
  readonly path: string;
  /** The temporary directory beside it, e.g. `dir/.structures.9f2c1a0b.partial`. */
  readonly tempPath: string;
  /** Renames the temporary directory to the target (replacing an existing one only with `force`). */
  commit(): Promise<void>;
  /** Removes the temporary directory; safe to call more than once. */
  abort(): Promise<void>;
  /** The folders of earlier, killed exports to the same target that were removed before this one began. */
  readonly swept: SweepResult;
}

// Temporary directories still open, removed if the process exits before commit or abort
// (e.g. process.exit from a signal handler).
const live = new Set<string>();
let hooked = false;

function track(dir: string): void {
  if (!hooked) {
    hooked = true;
    process.once("exit", () => {
      for (const d of live) fs.rmSync(d, { recursive: true, force: true });
    });
  }
  live.add(dir);
}

/**
 * Creates a temporary directory beside `target` (one file system, so the rename is atomic): an
 * export that fails or is interrupted never leaves a directory at the target that looks complete.
 *
 * @throws TargetExistsError when the target exists and `force` is not set; OutputError when the
 *   parent directory is missing or not writable.
 */
export function openAtomicDir(target: string, options: { force?: boolean } = {}): AtomicDir {
  const final = path.resolve(target);
  if (fs.existsSync(final) && !options.force) throw new TargetExistsError(target);
  const swept = sweepStalePartials(final);
  const tempPath = path.join(path.dirname(final), `.${path.basename(final)}.${randomBytes(4).toString("hex")}.partial`);
  try {
    fs.mkdirSync(tempPath, { recursive: false });
  } catch (error) {
    throw new OutputError(`Cannot create ${target}: ${describeWriteError(error, path.dirname(final))}`, target, {
      cause: error,
    });
  }
  track(tempPath);
  // Names this process as the writer, so a later run can tell this folder from one left by a
  // killed export (stale-partials.ts).
  const owner = path.join(tempPath, OWNER_FILE);
  try {
    takePidLock(owner);
  } catch (error) {
    fs.rmSync(tempPath, { recursive: true, force: true });
    live.delete(tempPath);
    throw new OutputError(`Cannot create ${target}: ${describeWriteError(error, path.dirname(final))}`, target, {
      cause: error,
    });
  }
  let settled = false;
  return {
    path: final,
    tempPath,
    swept,
    async commit() {
      if (settled) throw new OutputError(`The write to ${target} was already finished or abandoned.`, final);
      settled = true;
      // Out before the rename, so the finished folder holds only the export's files. A sweep that
      // finds no owner file leaves the folder alone, so this gap is safe.
      releasePidLock(owner);
      try {
        await placeDir(tempPath, final, target, options.force ?? false);
      } catch (error) {
        await fs.promises.rm(tempPath, { recursive: true, force: true });
        live.delete(tempPath);
        throw error;
      }
      live.delete(tempPath);
    },
    async abort() {
      if (settled) return;
      settled = true;
      releasePidLock(owner);
      await fs.promises.rm(tempPath, { recursive: true, force: true });
      live.delete(tempPath);
    },
  };
}

/**
 * Moves a finished directory to its target: refused with TargetExistsError when the target exists
 * and `force` is not set, else the old one is replaced. The old directory is renamed aside first,
 * the new one renamed in, and only then is the old one deleted: at every moment one of the two
 * holds the target's name or the aside name, so a crash never loses both. If the new one cannot
 * be renamed in, the old one is put back. The source is left where it was on failure.
 * @throws TargetExistsError, OutputError
 */
export async function placeDir(from: string, final: string, target: string, force: boolean): Promise<void> {
  let aside: string | undefined;
  try {
    if (fs.existsSync(final)) {
      if (!force) throw new TargetExistsError(target);
      aside = path.join(path.dirname(final), `.${path.basename(final)}.${randomBytes(4).toString("hex")}.replaced`);
      await fs.promises.rename(final, aside);
    }
    await fs.promises.rename(from, final);
  } catch (error) {
    if (aside !== undefined && !fs.existsSync(final)) {
      await fs.promises.rename(aside, final).catch(() => undefined);
    }
    if (error instanceof TargetExistsError) throw error;
    throw new OutputError(`Cannot write ${target}: ${describeWriteError(error, path.dirname(final))}`, final, {
      cause: error,
    });
  }
  // The new directory is in place; a failure to delete the old one leaves it under the aside name,
  // never in the way.
  if (aside !== undefined) await fs.promises.rm(aside, { recursive: true, force: true }).catch(() => undefined);
}
