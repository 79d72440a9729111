// One QE executable run: spawned in its own process group (detached) so that an abort ends it
// and anything it started at once, with one thread (OMP_NUM_THREADS=1: the queue decides
// how many run side by side), stdin the input file, stdout and stderr to STEM.out.
import { spawn } from "node:child_process";
import { once } from "node:events";
import {
  accessSync,
  closeSync,
  constants,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
} from "node:fs";
import * as path from "node:path";
import { executableNames } from "./executables";

/** How one run ended. */
export type ExecutableResult =
  | { ended: "exited"; code: number | null; signal: NodeJS.Signals | null }
  | { ended: "aborted" }
  | { ended: "not-found" };

/** Process groups of the runs alive now, ended if this process exits while they run. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * A detached child outlives its parent; should the server's process exit without aborting its
 * jobs (an uncaught error, `process.exit`), this ends their groups on the way out.
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const group of liveGroups) killGroup(group);
  });
}

function killGroup(group: number): void {
  try {
    // The negative pid is the whole group: pw.x and anything it spawned.
    process.kill(-group, "SIGKILL");
  } catch {
    // already gone
  }
}

/** The executables runs start (the name a run's process has): the units' programs and ld1.x; see {@link endRunsIn}. */
const runNames = (): string[] => [...executableNames(), "ld1.x"];

/**
 * Ends the runs still working in `folder` (or below it), left by a server that was killed
 * (SIGKILL) while a job ran: a detached pw.x goes on computing, and would run beside the jobs the
 * next server starts, past the running limit. A process is taken for a run only when all of these
 * hold: its working folder is in `folder`, it runs one of the engine's executables (`pw.x`,
 * `bands.x` ..., `ld1.x`), and it leads a session of its own, as a run is started (detached); its whole group is
 * ended. A shell or an editor open in the folder is none of these. Linux only (`/proc`); elsewhere
 * nothing is found. Returns how many runs were ended.
 */
export function endRunsIn(folder: string): number {
  let real: string;
  let pids: string[];
  try {
    // /proc gives working folders absolute and with symlinks resolved: a relative or symlinked
    // store must be compared in the same form.
    real = realpathSync(path.resolve(folder));
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  let ended = 0;
  const names = runNames();
  for (const pid of pids) {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (cwd !== real && !cwd.startsWith(`${real}${path.sep}`)) continue;
      // stat: "pid (name) state ppid pgrp session ..."; the name may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const [, , group, session] = stat
        .slice(stat.lastIndexOf(")") + 2)
        .split(" ")
        .map(Number);
      if (!names.includes(name) || group !== Number(pid) || session !== group) continue;
      killGroup(group);
      ended += 1;
    } catch {
      // gone, or another user's
    }
  }
  return ended;
}

/** Where an executable is on PATH, or undefined. */
export function findOnPath(name: string, envPath = process.env.PATH ?? ""): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Runs `executable` in `cwd` with `inputFile` on stdin and `outputFile` as stdout and stderr. */
export async function runExecutable(options: {
  executable: string;
  cwd: string;
  inputFile: string;
  outputFile: string;
  signal: AbortSignal;
}): Promise<ExecutableResult> {
  const { signal } = options;
  if (signal.aborted) return { ended: "aborted" };
  const resolved = findOnPath(options.executable);
  if (!resolved) return { ended: "not-found" };
  const stdin = openSync(options.inputFile, "r");
  const stdout = openSync(options.outputFile, "w");
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(resolved, [], {
      cwd: options.cwd,
      detached: true,
      stdio: [stdin, stdout, stdout],
      // Debian's pw.x is built with Open MPI, which as a singleton starts an `orted` helper in a
      // session of its own, out of reach of the group's kill and outliving pw.x for a while;
      // `ess_singleton_isolated` makes the one process run alone.
      env: { ...process.env, OMP_NUM_THREADS: "1", OMPI_MCA_ess_singleton_isolated: "1" },
    });
  } finally {
    closeSync(stdin);
    closeSync(stdout);
  }
  const group = child.pid;
  const kill = () => {
    if (group !== undefined) killGroup(group);
  };
  if (group !== undefined) {
    installExitHook();
    liveGroups.add(group);
  }
  signal.addEventListener("abort", kill, { once: true });
  try {
    const [code, exitSignal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
    if (signal.aborted) return { ended: "aborted" };
    return { ended: "exited", code, signal: exitSignal };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { ended: "not-found" };
    throw error;
  } finally {
    signal.removeEventListener("abort", kill);
    if (group !== undefined) {
      liveGroups.delete(group);
      // Anything pw.x left in its group (an MPI helper) goes with it.
      killGroup(group);
    }
  }
}
