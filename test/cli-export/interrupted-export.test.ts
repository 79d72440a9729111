import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, watch } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import { startCli, startServeProcess } from "./run-cli";

// Keyset paging one record per request makes the export thousands of sequential requests long,
// so the test can act while it is surely in the middle.
const SLOW_EXPORT = ["--paging", "keyset", "--page-size", "1", "--quiet", "--username", "demo"];

let dir: string;
let serve: ChildProcess | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "matframe-atomic-"));
});

afterEach(() => {
  if (serve && serve.exitCode === null && serve.signalCode === null) serve.kill("SIGKILL");
  serve = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Resolves with the name of the export's temporary file beside the target once it has data in
 * it, looked at on each change the folder reports (fs.watch), not on a timer; with "" if the
 * export ends first.
 */
function temporaryFileAppears(ended: Promise<unknown>): Promise<string> {
  return new Promise((resolve) => {
    const settle = (name: string): void => {
      watcher.close();
      resolve(name);
    };
    const look = (): void => {
      const temp = readdirSync(dir).find((file) => file.endsWith(".tmp"));
      if (temp && statSync(join(dir, temp), { throwIfNoEntry: false })?.size) settle(temp);
    };
    const watcher = watch(dir, look);
    void ended.then(() => settle(""));
    look();
  });
}

describe("an interrupted export leaves no file at the target", () => {
  it("when the server is killed mid-export: exit 3, no target, no temporary file", async () => {
    const server = await startServeProcess(["--synthetic", "5000"]);
    serve = server.child;
    const cli = startCli(["export", "--base-url", server.baseUrl, ...SLOW_EXPORT, "--output", "big.csv"], {
      cwd: dir,
      env: { MATFRAME_PASSWORD: "demo" },
    });
    const temp = await temporaryFileAppears(cli.done);
    expect(temp).toMatch(/^\.big\.csv\.\d+\.[0-9a-f]+\.tmp$/);
    server.child.kill("SIGKILL");
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^matframe export: GET \S+\/materials .*failed/);
    expect(existsSync(join(dir, "big.csv"))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)("when the CLI gets %s: exit %i, no target, no temporary file", async (signal, code) => {
    const server = await startServeProcess(["--synthetic", "5000"]);
    serve = server.child;
    const cli = startCli(["export", "--base-url", server.baseUrl, ...SLOW_EXPORT, "--output", "big.csv"], {
      cwd: dir,
      env: { MATFRAME_PASSWORD: "demo" },
    });
    expect(await temporaryFileAppears(cli.done)).not.toBe("");
    cli.child.kill(signal);
    const result = await cli.done;
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(`matframe export: interrupted by ${signal}; big.csv was not written.`);
    expect(readdirSync(dir)).toEqual([]);
  });
});
