import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startServer, type ServerHandle } from "../../src/server";
import { CLI, cleanEnv } from "./run-cli";

// The README is a contract: every export command and code example in its Quick start, DataFrames
// and Export sections runs here, against a local platform standing in for platform.example.org.

const run = promisify(execFile);
const root = join(__dirname, "../..");
const readme = readFileSync(join(root, "README.md"), "utf8");

function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  expect(start, `README section "${title}"`).toBeGreaterThan(-1);
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

function blocks(text: string, lang: string): string[] {
  return [...text.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]);
}

const exportCommands = [section("Quick start"), section("Export")]
  .flatMap((text) => blocks(text, "sh"))
  .flatMap((block) => block.split("\n"))
  .map((line) => line.replace(/\s+#.*$/, "").trim())
  .filter((line) => /\bnpx matframe export\b/.test(line));

const jsExamples = ["Quick start", "DataFrames", "Export"].flatMap((title) => blocks(section(title), "js").map((code) => [title, code] as const));

let server: ServerHandle;
let demo: ServerHandle;
let dir: string;

beforeAll(async () => {
  server = await startServer({ port: 0, users: ["alice:s3cret"] });
  demo = await startServer({ port: 0 });
  dir = mkdtempSync(join(tmpdir(), "matframe-readme-"));
});

afterAll(async () => {
  await server?.close();
  await demo?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("README export commands", () => {
  it("has some", () => {
    expect(exportCommands.length).toBeGreaterThanOrEqual(5);
  });

  it.each(exportCommands)("%s", async (command) => {
    const shell = command
      .replaceAll("https://platform.example.org", server.baseUrl)
      // npx resolution is covered by readme-quickstart.test.ts; here the commands run in a scratch directory.
      .replace("npx matframe", `"${process.execPath}" "${CLI}"`);
    const { stdout } = await run("sh", ["-c", `${shell} --force`], { cwd: dir, env: cleanEnv({ PASSWORD: "s3cret" }) });
    if (command.includes("--output -")) expect(stdout.length).toBeGreaterThan(0);
  });
});

describe("README code examples", () => {
  it.each(jsExamples)("%s example runs", async (_title, code) => {
    const file = join(dir, `example-${Math.random().toString(36).slice(2)}.js`);
    writeFileSync(file, code.replaceAll('require("matframe")', `require(${JSON.stringify(join(root, "dist", "index.js"))})`));
    const { stdout } = await run(process.execPath, [file], { cwd: dir, env: cleanEnv({ MATFRAME_BASE_URL: demo.baseUrl }) });
    expect(stdout.length).toBeGreaterThan(0);
  });
});
