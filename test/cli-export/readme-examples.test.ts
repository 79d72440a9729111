import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startServer, type ServerHandle } from "../../src/server";
import { CLI, cleanEnv } from "./run-cli";
import { docFiles } from "../support/docs";
import { capturedAll } from "../support/checked";

// The README and the guides are a contract: every export command in them runs here, against a local platform
// standing in for platform.example.org (its code blocks run in test/readme/readme-contract.test.ts).

const run = promisify(execFile);
const root = join(__dirname, "../..");
const readme = docFiles()
  .map((file) => readFileSync(join(root, file), "utf8"))
  .join("\n");

function blocks(text: string, lang: string): string[] {
  return capturedAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, "g"), text);
}

const exportCommands = blocks(readme, "sh")
  .flatMap((block) => block.split("\n"))
  .map((line) => line.replace(/\s+#.*$/, "").trim())
  .filter((line) => /\bnpx matframe export\b/.test(line));

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
      // The local platform is the OPTIMADE provider of docs/optimade.md's examples.
      .replaceAll("https://platform.example.org/optimade", `${new URL(server.baseUrl).origin}/optimade`)
      .replaceAll("https://platform.example.org", server.baseUrl)
      // npx resolution is covered by readme-quickstart.test.ts; here the commands run in a scratch directory.
      .replace("npx matframe", `"${process.execPath}" "${CLI}"`);
    const { stdout } = await run("sh", ["-c", `${shell} --force`], { cwd: dir, env: cleanEnv({ PASSWORD: "s3cret" }) });
    if (command.includes("--output -")) expect(stdout.length).toBeGreaterThan(0);
  });
});
