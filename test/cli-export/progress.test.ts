import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { CLI, cleanEnv } from "./run-cli";

const run = promisify(execFile);

// util-linux `script` runs a command on a pseudo-terminal, as a user's shell does.
function hasScript(): boolean {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const tty = hasScript();
if (!tty) console.log("progress.test.ts: util-linux `script` is not installed, so the terminal cases cannot run");

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "matframe-tty-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function onTerminal(args: string): Promise<string> {
  const command = `"${process.execPath}" "${CLI}" export ${args}`;
  const { stdout } = await run("script", ["-qec", command, "/dev/null"], { cwd: dir, env: cleanEnv() });
  return stdout;
}

describe.skipIf(!tty)("progress on a terminal", () => {
  it("draws a progress line on stderr, then clears it for the summary", async () => {
    const out = await onTerminal("--output tty.csv --page-size 1");
    expect(out).toContain("\r\x1b[Kexporting: ");
    expect(out).toMatch(/Exported 29 materials \(29 pages\) in \d+\.\d s to .*tty\.csv\./);
    expect(readFileSync(join(dir, "tty.csv"), "utf8").split("\n")).toHaveLength(31);
  });

  it("draws nothing with --quiet", async () => {
    const out = await onTerminal("--output quiet.csv --page-size 1 --quiet");
    expect(out).toBe("");
  });
});
