// A data warning must reach the notebook when the read is the cell's last await, the usual case.
// A Node process warning is printed a tick later, after tslab has finished the cell, and was lost:
// a misspelt column then gave silent nulls. Run through Jupyter's nbconvert on the tslab kernel
// the machine has registered (as .ci/run registers it).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { at } from "./support/checked";

const dist = path.join(__dirname, "..", "dist", "index.js");
const distServer = path.join(__dirname, "..", "dist", "server", "index.js");
const dir = mkdtempSync(path.join(tmpdir(), "matframe-notebook-warnings-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tslabMissing(): string | undefined {
  const list = spawnSync("jupyter", ["kernelspec", "list", "--json"], { encoding: "utf8" });
  if (list.error || list.status !== 0) return "jupyter is not installed";
  const specs = (JSON.parse(list.stdout) as { kernelspecs: Record<string, unknown> }).kernelspecs;
  return "tslab" in specs ? undefined : "the tslab kernel is not registered";
}

const cell = (source: string) => ({ cell_type: "code", execution_count: null, metadata: {}, outputs: [], source });

describe("data warnings in a tslab notebook", () => {
  it("show under the cell whose last await read the data", { timeout: 180_000 }, (ctx) => {
    const missing = tslabMissing();
    if (missing) {
      if (process.env.MATFRAME_REQUIRE_JUPYTER === "1") throw new Error(`MATFRAME_REQUIRE_JUPYTER=1 but ${missing}`);
      ctx.skip(missing);
    }
    const notebook = {
      cells: [
        cell(
          `const { Client } = require(${JSON.stringify(dist)});\n` +
            `const { startServer } = require(${JSON.stringify(distServer)});\n` +
            `const server = await startServer({ port: 0 });\n` +
            `const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });`,
        ),
        cell(
          `const typo = await client.materials.toDataFrame({ columns: ["formula", "lattice.aa"], maxItems: 3 });\ntypo.shape`,
        ),
        cell(`await client.logout();\nawait server.close();`),
      ],
      metadata: { kernelspec: { display_name: "TypeScript", language: "typescript", name: "tslab" } },
      nbformat: 4,
      nbformat_minor: 5,
    };
    const input = path.join(dir, "warnings.ipynb");
    writeFileSync(input, JSON.stringify(notebook));
    const run = spawnSync(
      "jupyter",
      ["nbconvert", "--to", "notebook", "--execute", input, "--output", "executed.ipynb"],
      { encoding: "utf8", cwd: dir },
    );
    expect(run.status, run.stderr).toBe(0);
    const executed = JSON.parse(readFileSync(path.join(dir, "executed.ipynb"), "utf8")) as {
      cells: { outputs: { name?: string; text?: string | string[] }[] }[];
    };
    const text = (o: { text?: string | string[] }) => (Array.isArray(o.text) ? o.text.join("") : (o.text ?? ""));
    const outputs = at(executed.cells, 1, "the executed toDataFrame cell").outputs;
    expect(
      outputs
        .filter((o) => o.name === "stderr")
        .map(text)
        .join(""),
    ).toMatch(/MatframeWarning \[EMPTY_COLUMN\]: column "lattice\.aa" is empty.*did you mean lattice\.a\?/);
    expect(
      outputs
        .filter((o) => o.name === "stdout")
        .map(text)
        .join(""),
    ).toContain("[ 3, 3 ]");
  });
});
