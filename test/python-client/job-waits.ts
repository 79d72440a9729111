import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { ServerHandle } from "../../src/server";

// The REST API has no notice when a job ends, so a script that drives the platform's Python client
// would have to poll for it on a clock. Instead the script asks the test, which holds the server
// in-process (job_wait.py): it prints `{"wait": [jobId, ...]}` and blocks reading a line from its
// stdin; the test waits on the server's event for each job's end (`ServerHandle.jobEnded`) and
// answers `{"ended": {jobId: status, ...}}`. No clock on either side: the bound is the test's
// timeout, whose abort signal ends the script.

/** A wait request as job_wait.py prints it. */
interface WaitRequest {
  wait: string[];
}

function waitRequest(line: string): WaitRequest | undefined {
  if (!line.startsWith('{"wait"')) return undefined;
  const parsed = JSON.parse(line) as Partial<WaitRequest>;
  return Array.isArray(parsed.wait) ? { wait: parsed.wait.map(String) } : undefined;
}

/**
 * Runs `python script` with `env`, answering its job waits from `server`; resolves with its
 * stdout when it exits with 0, else rejects with its stdout and stderr. `signal` (the test's)
 * ends the script when the test times out.
 */
export function runWaitingScript(
  python: string,
  script: string,
  options: { env: NodeJS.ProcessEnv; server: ServerHandle; signal: AbortSignal },
): Promise<string> {
  const child = spawn(python, [script], { env: options.env, signal: options.signal, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  // A script that has exited cannot be answered; its exit code says why.
  child.stdin.on("error", () => undefined);
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  const failures: string[] = [];
  const pending = new Set<string>();
  // The test's timeout is the only bound: when it strikes, say which jobs never ended, since
  // vitest reports only the timeout and drops what this promise rejects with afterwards.
  options.signal.addEventListener(
    "abort",
    () => {
      if (pending.size > 0)
        process.stderr.write(`\n${script}: the test timed out waiting for jobs ${[...pending].join(", ")} to end.\n`);
    },
    { once: true },
  );
  createInterface({ input: child.stdout.setEncoding("utf8") }).on("line", (line) => {
    stdout += `${line}\n`;
    const request = waitRequest(line);
    if (!request) return;
    for (const id of request.wait) pending.add(id);
    const ends = request.wait.map(async (id) => {
      const end = await options.server.jobEnded(id);
      pending.delete(id);
      return [id, end] as const;
    });
    Promise.all(ends).then(
      (ended) => child.stdin.write(`${JSON.stringify({ ended: Object.fromEntries(ended) })}\n`),
      (error: Error) => {
        // No answer will come: the end of its stdin tells the script so, and it stops.
        failures.push(error.message);
        child.stdin.end();
      },
    );
  });
  return exited.then(
    (code) => {
      if (code === 0 && failures.length === 0) return stdout;
      const why = failures.length > 0 ? ` (its job waits failed: ${failures.join("; ")})` : "";
      throw new Error(`${script} exited with ${code}${why}:\n${stdout}\n${stderr}`);
    },
    (error: Error) => {
      throw new Error(`${script} did not run to its end: ${error.message}\n${stdout}\n${stderr}`);
    },
  );
}
