import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../src/server";
import { captured } from "../support/checked";

// The client guide's example (docs/client.md) is run as written (against the built package), so it cannot go stale.

const root = resolve(__dirname, "../..");
const dist = join(root, "dist/index.js");

function clientExample(): string {
  const guide = readFileSync(join(root, "docs/client.md"), "utf8");
  return captured(
    /```js\n(\/\/ example\.js\n[\s\S]*?)```/,
    guide,
    "docs/client.md's ```js block starting with // example.js",
  );
}

describe("README client example", () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let dir: string;
  beforeAll(async () => {
    server = await startServer({ port: 0, synthetic: 500 });
    dir = mkdtempSync(join(tmpdir(), "matframe-readme-"));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("runs against matframe serve and prints what it promises", async () => {
    if (!existsSync(dist)) throw new Error("dist/ is missing: run `npm run build` first (npm test does)");
    const file = join(dir, "example.js");
    writeFileSync(file, clientExample().replace('require("matframe")', `require(${JSON.stringify(dist)})`));
    const { stdout } = await promisify(execFile)(process.execPath, [file], {
      env: { ...process.env, MATFRAME_BASE_URL: server.baseUrl },
    });
    expect(stdout).toMatch(/^Si: \[/m);
    expect(stdout).toContain(`${server.materialCount} materials,`);
    expect(stdout).toMatch(/^Si \{/m);
  });
});
