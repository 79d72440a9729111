// The check that src/ uses its dependencies through their public API only
// (scripts/check-public-deps.js, run by `npm run lint`): it passes on src/, and on a tree with
// each mistake it names every one, by file and line, and nothing else.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const script = join(__dirname, "../../scripts/check-public-deps.js");
let dir: string;

async function check(target?: string): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await run(process.execPath, [script, ...(target ? [target] : [])]);
    return { code: 0, stderr };
  } catch (error) {
    const { code, stderr } = error as { code: number; stderr: string };
    return { code, stderr };
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "matframe-public-deps-"));
  writeFileSync(
    join(dir, "private.ts"),
    [
      'const { writeColumn } = require("hyparquet-writer/src/column.js");',
      'import { frame } from "danfojs-node/dist/danfojs-base/core/frame";',
      'const zod = require("../node_modules/zod/index.js");',
      "Object.setPrototypeOf(made, proto);",
      "",
    ].join("\n"),
  );
  writeFileSync(
    join(dir, "patch.ts"),
    ['import * as danfo from "danfojs-node";', "danfo.DataFrame.prototype.sortValues = function () {};", ""].join("\n"),
  );
  writeFileSync(
    join(dir, "public.ts"),
    [
      'import { ParquetWriter } from "hyparquet-writer";',
      'import { Query } from "mingo/query";',
      'const { validate } = require("@mat3ra/esse/dist/js/utils/ajv");',
      'import { Client } from "./client";',
      "// matframe's own class may be given methods: it is not a dependency's.",
      'Object.defineProperty(Client.prototype, "results", { get() { return 1; } });',
      "class Frame extends ParquetWriter {}",
      "",
    ].join("\n"),
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("scripts/check-public-deps.js", () => {
  it("passes on src/", async () => {
    expect(await check()).toEqual({ code: 0, stderr: "" });
  });

  it("names each private import and prototype patch by file and line, and nothing public", async () => {
    const { code, stderr } = await check(dir);
    expect(code).toBe(1);
    const lines = stderr.trim().split("\n");
    expect(lines[0]).toBe("Dependencies used outside their public API (5):");
    const where = lines.slice(1).map((line) => line.replace(/^.*matframe-public-deps-[^/]+\//, "").split(": ")[0]);
    expect(where.sort()).toEqual(["patch.ts:2", "private.ts:1", "private.ts:2", "private.ts:3", "private.ts:4"]);
    expect(stderr).toContain(
      'imports "hyparquet-writer/src/column.js", a file of hyparquet-writer that is not one of its documented entries',
    );
    expect(stderr).toContain("by its node_modules path");
    expect(stderr).toContain("changes an object's prototype");
    expect(stderr).toContain("reaches into danfo.DataFrame.prototype");
    expect(stderr).not.toContain("public.ts");
  });
});
