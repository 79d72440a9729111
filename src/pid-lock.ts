// A lock file holding the id of the process that holds it: one writer per resumable export, one
// server per `--store`. Shared by the frame and server rooms, so it lives beside src/errors.ts.
import { readFileSync, rmSync, writeFileSync } from "node:fs";

/**
 * Creates `file` exclusively with this process's id, taking over a lock whose process has ended
 * (a writer killed with SIGKILL cannot remove its own). Returns `{ taken: true }`, or
 * `{ taken: false, pid }` naming the live process that holds it. Other file errors are thrown.
 */
export function takePidLock(file: string): { taken: true } | { taken: false; pid: number } {
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: "wx", mode: 0o600 });
      return { taken: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      let pid = Number.NaN;
      try {
        pid = Number(readFileSync(file, "utf8"));
      } catch {
        // Removed meanwhile: try again.
      }
      // A second race lost, or a live holder: the lock is not ours.
      if (attempt > 0 || (Number.isInteger(pid) && pid > 0 && processRunning(pid))) return { taken: false, pid };
      rmSync(file, { force: true });
    }
  }
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
