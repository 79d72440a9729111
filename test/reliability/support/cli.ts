import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import * as path from "node:path";
// Environment for a child: ours without anything that names a platform, plus `extra`.
import { cleanEnv } from "../../cli-export/run-cli";
export { cleanEnv };

// The CLI as users run it: the built bin entry (npm test builds first), spawned as a process.
export const ROOT = path.join(__dirname, "..", "..", "..");
export const BIN = path.join(ROOT, "dist", "cli", "main.js");

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcessWithoutNullStreams;
  done: Promise<Finished>;
  /** Output so far. */
  readonly stdout: string;
  readonly stderr: string;
}

/** Starts `matframe <args>`; `input` is written to stdin, which is then closed. */
export function startCli(
  args: string[],
  options: { env?: Record<string, string>; input?: string; cwd?: string } = {},
): Running {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first.`);
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? ROOT, env: cleanEnv(options.env) });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const done = new Promise<Finished>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  child.stdin.end(options.input ?? "");
  return {
    child,
    done,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
  };
}

export function runCli(
  args: string[],
  options: { env?: Record<string, string>; input?: string; cwd?: string } = {},
): Promise<Finished> {
  return startCli(args, options).done;
}

/** A `matframe serve` child process and the base URL it printed. */
export interface ServeProcess extends Running {
  baseUrl: string;
  port: number;
  /** Stops it with SIGTERM (SIGKILL if it does not stop) and returns its output. */
  stop(): Promise<Finished>;
}

/** Starts `matframe serve --port 0 <args>` and waits for the base URL on its first line. */
export async function startServe(args: string[] = [], env: Record<string, string> = {}): Promise<ServeProcess> {
  const running = startCli(["serve", "--port", "0", ...args], { env });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const end = text.indexOf("\n");
      if (end !== -1) {
        running.child.stdout.off("data", onData);
        resolve(text.slice(0, end));
      }
    };
    running.child.stdout.on("data", onData);
    void running.done.then((f) =>
      reject(new Error(`matframe serve exited (${f.code ?? f.signal}) before printing its URL: ${f.stderr}`)),
    );
  });
  const port = Number(new URL(baseUrl).port);
  const stop = async () => {
    if (running.child.exitCode === null && running.child.signalCode === null) {
      running.child.kill("SIGTERM");
      const killer = setTimeout(() => running.child.kill("SIGKILL"), 5_000);
      const finished = await running.done;
      clearTimeout(killer);
      return finished;
    }
    return running.done;
  };
  return Object.assign(running, { baseUrl, port, stop });
}
