import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { tmpdir } from "node:os";

/** The built CLI, as `npx matframe` runs it (tests run after `npm run build`). */
export const CLI = join(__dirname, "../../dist/cli/main.js");

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Variables that name a platform, credentials or a proxy for the CLI, besides MATFRAME_*. */
const PLATFORM_VARIABLES =
  /^(API_HOST|API_PORT|API_SECURE|API_VERSION|ACCOUNT_ID|AUTH_TOKEN|OIDC_ACCESS_TOKEN|https?_proxy|no_proxy)$/i;

/**
 * The environment without anything of the machine running the tests that would name a platform
 * for the CLI: no MATFRAME_* variable, none of the platform client's names, no proxy, and a
 * credentials file that does not exist (so a login saved on the machine is not used).
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith("MATFRAME_") && !PLATFORM_VARIABLES.test(key)) env[key] = value;
  return {
    ...env,
    MATFRAME_CREDENTIALS_FILE: join(tmpdir(), `matframe-no-credentials-${process.pid}`, "credentials.json"),
    ...extra,
  };
}

/** Starts `matframe <args>`; `done` resolves when it exits. */
export function startCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; stdin?: string } = {},
): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: cleanEnv(options.env),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  else child.stdin!.end();
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** Runs `matframe <args>` to completion. */
export function runCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; stdin?: string } = {},
): Promise<CliResult> {
  return startCli(args, options).done;
}

/** Starts `matframe serve` in its own process; resolves with its base URL once it listens. */
export async function startServeProcess(args: string[]): Promise<{ child: ChildProcess; baseUrl: string }> {
  const { child } = startCli(["serve", "--port", "0", "--quiet", ...args]);
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("\n")) resolve(out.slice(0, out.indexOf("\n")).trim());
    });
    child.on("exit", (code) => reject(new Error(`matframe serve exited with ${code} before listening`)));
  });
  return { child, baseUrl };
}

/** The last non-empty line of `text`. */
export function lastLine(text: string): string {
  const trimmed = text.trimEnd();
  return trimmed.slice(trimmed.lastIndexOf("\n") + 1);
}
