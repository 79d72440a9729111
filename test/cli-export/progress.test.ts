import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { CLI, cleanEnv } from "./run-cli";
import { startServer, type ServerHandle } from "../../src/server";

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
    // The built-in platform says how many it holds: a total, a share and a bar.
    expect(out).toMatch(/exporting: \[[#-]{24}\] \d+ of 29 materials \(\d+%\)/);
    expect(out).toMatch(/Exported 29 materials \(29 pages\) in \d+\.\d s to .*tty\.csv\./);
    expect(readFileSync(join(dir, "tty.csv"), "utf8").split("\n")).toHaveLength(31);
  });

  it("draws nothing with --quiet", async () => {
    const out = await onTerminal("--output quiet.csv --page-size 1 --quiet");
    expect(out).toBe("");
  });
});

describe.skipIf(!tty)("the terminal as the output, and as the password's source", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await startServer({ port: 0, users: ["alice:s3cret-horse"] });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("draws no progress into the rows when the data goes to the terminal", async () => {
    const out = await onTerminal("--page-size 1 --columns formula");
    expect(out).not.toContain("exporting:");
    expect(out).not.toContain("\x1b[K");
    const rows = out
      .split("\r\n")
      .filter((line) => line !== "" && !line.startsWith("No platform named") && !line.startsWith("Exported"));
    expect(rows[0]).toBe("_id,formula");
    expect(rows).toHaveLength(30);
  });

  it("asks for the password without echoing it when --username has no other source", async () => {
    const command = `"${process.execPath}" "${CLI}" export --base-url ${server.baseUrl} --username alice --output prompted.csv --quiet`;
    const child = spawn("script", ["-qec", command, "/dev/null"], { cwd: dir, env: cleanEnv() });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      // Typed only once the prompt is up (raw mode, no echo), as a person would.
      if (out.includes("Password for alice at ") && !child.stdin.writableEnded) child.stdin.end("s3cret-horse\r");
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(out).toContain(`Password for alice at ${new URL(server.baseUrl).host}: `);
    expect(out).not.toContain("s3cret");
    expect(code).toBe(0);
    expect(readFileSync(join(dir, "prompted.csv"), "utf8").split("\n").length).toBeGreaterThan(29);
  });
});
