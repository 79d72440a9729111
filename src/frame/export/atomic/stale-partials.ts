// An export to a directory (partitioned, hive, structures) fills `.NAME.<hex>.partial` and renames
// it at the end. A writer killed with SIGKILL (the OOM killer, a CI timeout, `kill -9`) cannot
// remove it, and each run picks a new random name, so such folders piled up beside the target.
// pyarrow's write_dataset and Spark leave the same litter; a user expects the next run to clean
// it. Only a folder whose recorded writer has ended is removed: the owner file inside names the
// process (pid, boot, start time, as the resume lock does), so another export still writing the
// same target, on this host or another, keeps its folder.
import * as fs from "node:fs";
import * as path from "node:path";
import { lockHolderLive, processRunning } from "../../../pid-lock";
import type { FrameWarning } from "../../table/row-reader";

/** The owner file inside a temporary directory; removed just before the directory takes its name. */
export const OWNER_FILE = ".matframe-owner";

/** What a sweep found beside a target. */
export interface SweepResult {
  /** Folders removed: their writer has ended, so nothing will finish them. */
  readonly removed: readonly { readonly path: string; readonly pid: number }[];
  /** Folders without an owner file (made by an older matframe, or caught between two steps of a writer): left alone. */
  readonly unowned: readonly string[];
}

/** `.NAME.<8 hex>.partial`, as `openAtomicDir` names its temporary directories. */
function partialPattern(base: string): RegExp {
  const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^\\.${escaped}\\.[0-9a-f]{8}\\.partial$`);
}

/** The target's folder, its name and what the folder holds (nothing when it cannot be read). */
function besideTarget(target: string): { dir: string; base: string; names: string[] } {
  const final = path.resolve(target);
  const dir = path.dirname(final);
  try {
    return { dir, base: path.basename(final), names: fs.readdirSync(dir) };
  } catch {
    return { dir, base: path.basename(final), names: [] };
  }
}

/**
 * Removes the temporary directories of earlier exports to `target` whose writer has ended.
 * Never touches the target itself, a folder a live process owns, or a folder with no owner file.
 * Errors while removing one folder are skipped: a sweep never stops the export that runs it.
 */
export function sweepStalePartials(target: string): SweepResult {
  const { dir, base, names } = besideTarget(target);
  const pattern = partialPattern(base);
  const removed: { path: string; pid: number }[] = [];
  const unowned: string[] = [];
  for (const name of names) {
    if (!pattern.test(name)) continue;
    const folder = path.join(dir, name);
    // A symbolic link or a file with that name is none of ours to follow or delete.
    const stat = fs.lstatSync(folder, { throwIfNoEntry: false });
    if (!stat?.isDirectory()) continue;
    const owner = lockHolderLive(path.join(folder, OWNER_FILE));
    if (owner === undefined) {
      unowned.push(folder);
      continue;
    }
    if (owner.live) continue;
    try {
      fs.rmSync(folder, { recursive: true, force: true });
      removed.push({ path: folder, pid: owner.pid });
    } catch {
      // Another sweep got there first, or it is not ours to remove: left for the user.
    }
  }
  return { removed, unowned };
}

/**
 * Removes the temporary files (`.NAME.<pid>.<hex>.tmp`, as `openAtomicFile` names them) of earlier
 * exports to the file `target` whose process has ended. The pid in the name is the only owner
 * record a file has: a pid now reused by another process keeps its file (the safe side).
 */
export function sweepStaleTempFiles(target: string): SweepResult {
  const { dir, base, names } = besideTarget(target);
  const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`^\\.${escaped}\\.(\\d+)\\.[0-9a-f]{8}\\.tmp$`);
  const removed: { path: string; pid: number }[] = [];
  for (const name of names) {
    const pid = Number(pattern.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || processRunning(pid)) continue;
    const file = path.join(dir, name);
    if (!fs.lstatSync(file, { throwIfNoEntry: false })?.isFile()) continue;
    try {
      fs.rmSync(file, { force: true });
      removed.push({ path: file, pid });
    } catch {
      // Not ours to remove: left for the user.
    }
  }
  return { removed, unowned: [] };
}

/** What a sweep did, in the user's words: one warning per folder removed or left alone. */
export function sweepWarnings(swept: SweepResult, target: string): FrameWarning[] {
  const removed = swept.removed.map(
    (folder): FrameWarning => ({
      code: "STALE_PARTIAL",
      message: `removed ${folder.path}, the unfinished ${folder.path.endsWith(".tmp") ? "file" : "folder"} of an earlier export to ${target} whose process (${folder.pid}) was killed; nothing finished was in it.`,
      path: folder.path,
      rows: 0,
      ids: [],
    }),
  );
  const unowned = swept.unowned.map(
    (folder): FrameWarning => ({
      code: "STALE_PARTIAL",
      message: `left ${folder} alone: an unfinished export folder that names no writer (an older matframe made it); remove it if no other export to ${target} is running.`,
      path: folder,
      rows: 0,
      ids: [],
    }),
  );
  return [...removed, ...unowned];
}
