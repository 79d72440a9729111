import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, cleanEnv } from "./run-cli";

// `matframe --help` used to load the whole local platform (its dataset, store and router) before
// printing a few lines: each command's code now loads only when that command runs.

/** The files of dist/ that `matframe <args>` loaded, as a preload script sees them at exit. */
function loadedBy(args: string[]): { code: number | null; stdout: string; loaded: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "matframe-lazy-"));
  try {
    const preload = join(dir, "report-loaded.js");
    writeFileSync(
      preload,
      `process.on("exit", () => process.stderr.write("LOADED " + JSON.stringify(Object.keys(require.cache).filter((f) => f.includes("/dist/")).map((f) => f.slice(f.lastIndexOf("/dist/") + 6))) + "\\n"));`,
    );
    const run = spawnSync(process.execPath, ["-r", preload, CLI, ...args], { encoding: "utf8", env: cleanEnv() });
    const line = run.stderr.split("\n").find((l) => l.startsWith("LOADED "));
    if (!line) throw new Error(`no report from the preload script: ${run.stderr}`);
    return { code: run.status, stdout: run.stdout, loaded: JSON.parse(line.slice(7)) as string[] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the CLI loads a command's code only when it runs", () => {
  it("matframe --help and --version load nothing but the dispatcher and its flag layer", () => {
    for (const args of [["--help"], ["--version"]]) {
      const { code, stdout, loaded } = loadedBy(args);
      expect(code).toBe(0);
      expect(stdout).not.toBe("");
      // The help formatter, "did you mean", the error tree its UsageError is part of and the
      // escaper the error line goes through, nothing else.
      expect([...loaded].sort()).toEqual([
        "cli/cli-args.js",
        "cli/errors.js",
        "cli/main.js",
        "cli/printable.js",
        "edit-distance.js",
        "errors.js",
      ]);
    }
  });

  it("matframe export --help does not load the local platform", () => {
    const { code, stdout, loaded } = loadedBy(["export", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: matframe export");
    expect(loaded).toContain("cli/export-command.js");
    expect(loaded.filter((file) => file.startsWith("server/"))).toEqual([]);
  });

  it("the local platform still loads when it is used", () => {
    const { code, loaded } = loadedBy(["export", "--output", "-", "--max-items", "1", "--quiet"]);
    expect(code).toBe(0);
    expect(loaded).toContain("server/index.js");
  });
});
