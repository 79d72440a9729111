import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, ROOT } from "./support/cli";

// The CI-sized variant of `npm run load` (bench/load.js --small): a few clients walk a small
// collection while a burst of logins arrives. Only correctness is asserted: the script's exit
// code and its own checks (every walk complete and identical, no error but the expected 429).
// Its timings are reported, never asserted.

interface LoadSummary {
  materials: number;
  clients: number;
  walks: { completed: number; records: number };
  logins: { burst: number; succeeded: number; refused: number; throttled429: number };
  unexpectedErrors: number;
  correct: boolean;
  problems: string[];
}

function runLoad(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first.`);
    const child = spawn(process.execPath, [path.join(ROOT, "bench", "load.js"), "--small", "--json"], { cwd: ROOT });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("npm run load, small variant", () => {
  it("answers every walk and login correctly, with no error but throttling", { timeout: 240_000 }, async () => {
    const { code, stdout, stderr } = await runLoad();
    expect(code, stderr).toBe(0);
    const summary = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as LoadSummary;
    expect(summary.problems).toEqual([]);
    expect(summary.correct).toBe(true);
    expect(summary.unexpectedErrors).toBe(0);
    expect(summary.walks.completed).toBe(summary.clients);
    expect(summary.walks.records).toBe(summary.materials * summary.clients);
    expect(summary.logins.succeeded + summary.logins.refused + summary.logins.throttled429).toBe(summary.logins.burst);
  });
});
