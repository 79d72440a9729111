import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { cleanEnv, type CliResult } from "./run-cli";
import { at } from "../support/checked";

const root = join(__dirname, "../..");

function npx(args: string[]): Promise<CliResult> {
  // Offline: npx must find this package's own bin, never fetch a package of the same name.
  const child = spawn("npx", args, { cwd: root, env: cleanEnv({ npm_config_offline: "true" }) });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe("the README's quick start", () => {
  it("npx matframe export --output FILE works with no account and no base URL", async () => {
    const dir = mkdtempSync(join(tmpdir(), "matframe-readme-"));
    try {
      const target = join(dir, "materials.csv");
      const result = await npx(["matframe", "export", "--output", target]);
      expect(result.code, result.stderr).toBe(0);
      const rows = parse(readFileSync(target, "utf8"), { columns: true }) as Record<string, string>[];
      expect(rows).toHaveLength(29);
      expect(rows.find((r) => r.formula === "Si")).toBeDefined();
      expect(result.stderr).toMatch(/Exported 29 materials \(1 page\) in \d+\.\d s to .*materials\.csv\./);
      // The README shows the first line as the command prints it.
      expect(readFileSync(join(root, "README.md"), "utf8")).toContain(
        result.stderr.split("\n").find((line) => !line.startsWith("npm "))!,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("npx matframe export --output - writes CSV to stdout", async () => {
    const result = await npx(["matframe", "export", "--output", "-", "--columns", "formula,derivedProperties.density"]);
    expect(result.code, result.stderr).toBe(0);
    const rows = parse(result.stdout, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(29);
    expect(Number(at(rows, 0, "a CSV row")["derivedProperties.density"])).toBeGreaterThan(0);
  });
});
