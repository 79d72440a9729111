import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface, type Interface } from "node:readline";
import { quoteForTerminal, readCommandArgument } from "../terminal-text";

/** What the teacher can type into a running `matframe serve`. */
export const SERVE_COMMANDS =
  'unlock NAME or unlock "NAME" as the lockout notice writes it (let a locked-out account log in again now)';

/** How often the parent process is looked for; a second is soon enough to free the port. */
const PARENT_CHECK_MS = 1_000;

/**
 * Whether this process may read its terminal now: a job in the background (`matframe serve &` in
 * an interactive shell) that reads it is stopped by the kernel (SIGTTIN), server and all. Linux
 * says so in /proc; elsewhere `ps` marks a foreground process with "+"; when neither answers, the
 * terminal is not read.
 */
function inForeground(): boolean {
  if (process.platform === "win32") return true;
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After the command: state, ppid, pgrp, session, tty, tpgid (the terminal's foreground group).
    return fields[2] === fields[5];
  } catch {
    try {
      return execFileSync("ps", ["-o", "stat=", "-p", String(process.pid)], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).includes("+");
    } catch {
      return false;
    }
  }
}

/** How often a terminal's foreground is checked, to read it only while in the foreground. */
const FOREGROUND_CHECK_MS = 1_000;

/**
 * Reads commands typed on serve's standard input, one per line, and answers on stderr. Input that
 * ends (a pipe closed, `< /dev/null`, a job in the background) ends only the commands, never the
 * server. A terminal is read only while serve runs in the foreground. Returns a function that
 * stops reading.
 */
export function readCommands(unlock: (username: string) => number, write: (line: string) => void): () => void {
  const cleanups: (() => void)[] = [];
  if (process.stdin.isTTY) {
    // Paused before anything reads it; then read only while in the foreground.
    process.stdin.pause();
    const follow = () => {
      if (inForeground()) process.stdin.resume();
      else process.stdin.pause();
    };
    const timer = setInterval(follow, FOREGROUND_CHECK_MS);
    timer.unref();
    cleanups.push(() => clearInterval(timer));
  }
  const input: Interface = createInterface({ input: process.stdin, terminal: false });
  if (process.stdin.isTTY && !inForeground()) input.pause();
  input.on("line", (line) => {
    const text = line.trim();
    if (text === "") return;
    const match = /^unlock\s+(.+)$/.exec(text);
    if (!match) {
      write(`matframe serve: commands: ${SERVE_COMMANDS}`);
      return;
    }
    const name = readCommandArgument(match[1]!);
    if (name === undefined) {
      write(`matframe serve: a quoted name must be written as the lockout notice shows it, e.g. unlock "a\\u001bb"`);
      return;
    }
    const locked = unlock(name);
    const shown = quoteForTerminal(name);
    write(
      locked > 0
        ? `matframe serve: unlocked ${shown}: it can log in again now`
        : `matframe serve: ${shown} was not locked out; its failed logins are forgotten`,
    );
  });
  // stdin that errors (closed terminal) is as good as ended.
  process.stdin.on("error", () => input.close());
  return () => {
    for (const cleanup of cleanups) cleanup();
    input.close();
    process.stdin.destroy();
  };
}

/** The parent of process `pid` and its command name, from Linux's /proc; undefined elsewhere or once it is gone. */
function processInfo(pid: number): { ppid: number; command: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (command) state ppid ...": the command may itself hold spaces and parentheses.
    const close = stat.lastIndexOf(")");
    return { command: stat.slice(stat.indexOf("(") + 1, close), ppid: Number(stat.slice(close + 2).split(" ")[1]) };
  } catch {
    return undefined;
  }
}

const SHELLS = new Set(["sh", "dash", "bash", "zsh", "ash"]);

/**
 * Calls `stop` when the npm process that started this one ends. npm (`npx matframe serve`,
 * `npm run ...`) runs the command through `sh -c`, and killed itself (SIGKILL, or a notebook
 * kernel's process group torn down) leaves the shell and this server running and holding the
 * port. An orphan is given to another parent, which `process.ppid` shows, and a shell in between
 * is given one too, which Linux's /proc shows. Only done when npm started it: `matframe serve`
 * run from a shell, possibly under nohup, keeps running as asked. A parent that forked with an IPC
 * channel is followed through the channel.
 */
export function stopWithParent(stop: (reason: string) => void): () => void {
  const cleanups: (() => void)[] = [];
  if (process.send !== undefined) {
    const onDisconnect = () => stop("its parent closed the IPC channel");
    process.once("disconnect", onDisconnect);
    cleanups.push(() => process.off("disconnect", onDisconnect));
  }
  if (process.env.npm_command !== undefined || process.env.npm_lifecycle_event !== undefined) {
    const parent = process.ppid;
    const shell = processInfo(parent);
    // npm -> sh -c -> matframe: the shell outlives npm, so npm is the one to follow.
    const npm = shell !== undefined && SHELLS.has(shell.command) ? shell.ppid : undefined;
    const timer = setInterval(() => {
      if (process.ppid !== parent) stop("the process that started it ended");
      else if (npm !== undefined && processInfo(parent)?.ppid !== npm) stop("npm, which started it, ended");
    }, PARENT_CHECK_MS);
    timer.unref();
    cleanups.push(() => clearInterval(timer));
  }
  return () => {
    for (const cleanup of cleanups) cleanup();
  };
}
