import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { at, capturedAll } from "../support/checked";
import { sectionOf } from "../support/docs";
import { execFile, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

// matframe as a user's project meets it (issue 10): the packed tarball installed into a fresh
// project with the README's own commands (run as written, in order), a strict TypeScript build
// with skipLibCheck off before and after danfojs-node is installed, a script, an ESM import, and
// a notebook on the tslab kernel registered as the README says; then Deno from the npm registry:
// `deno check` and `deno run` of a script importing matframe, and the same notebook on Deno's
// kernel. Needs the npm registry (CI has it).

const run = promisify(execFile);
const root = join(__dirname, "../..");
/** The tarball `npm run pack` writes: the name carries the version of package.json, as npm pack names it. */
const TARBALL_NAME = `matframe-${(JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version}.tgz`;
const fixture = join(__dirname, "project");
const DEBIAN_PYTHON = "/usr/bin/python3";
/** The Deno this repository pins (a user's project installs the same from the npm registry). */
const DENO_VERSION = (
  JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { devDependencies: Record<string, string> }
).devDependencies.deno;

/** The shell lines of the README's "Use matframe in your own project" section, block by block. */
function sectionCommands(): string[][] {
  const text = sectionOf("README.md", "## Use matframe in your own project");
  return capturedAll(/```sh\n([\s\S]*?)```/g, text).map((block) =>
    block
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#")),
  );
}

let project: string;
/** Where the tarball is made: a stand-in for the clone. */
let clone: string;
let jupyterPrefix: string;
let env: NodeJS.ProcessEnv;
const installOutput: string[] = [];

async function sh(command: string, timeout = 300_000): Promise<{ stdout: string; stderr: string }> {
  const result = await run("sh", ["-c", command], { cwd: project, env, timeout, maxBuffer: 64 * 1024 * 1024 });
  installOutput.push(result.stdout, result.stderr);
  return result;
}

async function node(file: string): Promise<unknown> {
  const { stdout } = await run(process.execPath, [file], { cwd: project, env, timeout: 120_000 });
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "matframe-consumer-"));
  jupyterPrefix = join(project, ".jupyter-prefix");
  env = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
  for (const name of Object.keys(env))
    if (name.startsWith("MATFRAME_") || name.startsWith("npm_package_") || name === "npm_lifecycle_event")
      delete env[name];
  // The README's `npm run pack`, without its build: `npm test` has just built dist/, and a
  // rebuild here would change dist/ under the tests running beside this one.
  // It packs into a folder of its own, as `npm run pack` writes into the clone: the project is
  // a fresh folder without the tarball, and finds it by the path the README keeps in TARBALL.
  clone = mkdtempSync(join(tmpdir(), "matframe-clone-"));
  const packed = spawnSync(process.execPath, [join(root, "scripts", "pack.js"), "--no-build", "--out", clone], {
    encoding: "utf8",
  });
  expect(packed.status, packed.stderr).toBe(0);
  expect(packed.stdout.trim()).toBe(join(clone, TARBALL_NAME));
  // The README's own line that names the tarball, run where `npm run pack` wrote it.
  const exportLine = at(sectionCommands(), 0, "the README's clone steps").find((line) =>
    line.startsWith("export TARBALL="),
  );
  expect(exportLine, "the README keeps the tarball's path in TARBALL").toBeDefined();
  const tarball = spawnSync("sh", ["-c", `${exportLine} && printf %s "$TARBALL"`], { cwd: clone, encoding: "utf8" });
  env.TARBALL = tarball.stdout;
  expect(env.TARBALL).toBe(join(clone, TARBALL_NAME));
  for (const file of readdirSync(fixture)) copyFileSync(join(fixture, file), join(project, file));
});

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
  if (clone) rmSync(clone, { recursive: true, force: true });
});

// Each step runs npm (or a kernel) against the registry: minutes on a busy machine, bounded by the
// commands' own timeouts (300 s each), so the tests' limit is above theirs, not vitest's 60 s.
describe("matframe in a fresh project, installed as the README says", { timeout: 900_000 }, () => {
  // Checked by the first test: a README without the project's block fails there, not with a TypeError.
  const [cloneSteps, own = []] = sectionCommands();

  it("the README has the clone steps and the project steps", () => {
    expect(cloneSteps).toEqual(["npm ci", "npm run pack", `export TARBALL="$PWD/${TARBALL_NAME}"`]);
    expect(own[1]).toBe('npm install "$TARBALL"');
    expect(own[0]).toBe("npm init -y");
    expect(own.some((line) => / tslab install /.test(line))).toBe(true);
  });

  it("installs the tarball with no install script of matframe's, compiles strictly without danfojs-node, and runs", async () => {
    const untilDanfo = own.findIndex((line) => line.includes("overrides"));
    for (const line of own.slice(0, untilDanfo)) await sh(line);
    const output = installOutput.join("\n");
    expect(output).not.toMatch(/matframe@[^ ]* \((prepare|install|postinstall|preinstall)/);
    const pkg = JSON.parse(readFileSync(join(project, "node_modules", "matframe", "package.json"), "utf8"));
    expect(pkg.scripts).toBeUndefined();
    // A light install: matframe, its dependencies (hyparquet-writer brings hyparquet, 1 MB
    // together, and its own JavaScript Snappy; @spglib/moyo-wasm, the 0.8 MB WebAssembly symmetry finder;
    // nunjucks, the local platform's renderer of the workflows' input templates, with a-sync-waterfall,
    // asap and commander; peggy, the OPTIMADE filter grammar's parser generator, with @peggyjs,
    // commander, semver and source-map-generator), native Snappy (optional: snappy and this platform's
    // binary from @napi-rs, 1.4 MB), and the TypeScript the README adds.
    const installed = readdirSync(join(project, "node_modules")).filter((name) => !name.startsWith("."));
    expect(installed.sort()).toEqual([
      "@napi-rs",
      "@peggyjs",
      "@spglib",
      "@types",
      "a-sync-waterfall",
      "asap",
      "commander",
      "hyparquet",
      "hyparquet-writer",
      "matframe",
      "mingo",
      "nunjucks",
      "peggy",
      "semver",
      "snappy",
      "source-map-generator",
      "typescript",
      "undici",
      "undici-types",
      "zod",
    ]);
    expect(readdirSync(join(project, "node_modules", "@napi-rs"))).toEqual([
      `snappy-${process.platform}-${process.arch}-gnu`,
    ]);

    // Strict, skipLibCheck off, and no danfojs-node anywhere in the project.
    expect(() => require.resolve("danfojs-node", { paths: [project] })).toThrow();
    await sh("npx tsc -p tsconfig.json");
    const result = (await node("out/client.js")) as Record<string, unknown>;
    expect(result).toMatchObject({
      count: 29,
      name: expect.any(String),
      frame: "missing danfojs-node",
      chart: "missing vega",
    });
    expect(["Fd-3m", "P-3m1"]).toContain(result.spaceGroup); // bulk silicon or silicene, whichever comes first
    expect(result.a).toBeGreaterThan(3);
    expect(result.widest).toBeGreaterThan(result.a as number);

    const esm = await node("esm.mjs");
    expect(esm).toEqual({ client: "function", server: "function", version: "2018-10-01", show: "function" });
    // The local platform is `matframe/server`'s alone: the root's runtime exports leave it out.
    const entries = await node("entries.cjs");
    expect(entries).toEqual({ rootStartServer: false, rootClient: "function", serverStartServer: "function" });
  });

  it("with danfojs-node installed as the README says, DataFrames are typed and work", async () => {
    const from = own.findIndex((line) => line.includes("overrides"));
    const until = own.findIndex((line) => line.includes("tslab@"));
    for (const line of own.slice(from, until)) await sh(line);
    await sh("npx tsc -p tsconfig.json");
    const result = (await node("out/frame.js")) as {
      rows: number;
      columns: number;
      names: string[];
      dense: number;
      written: number;
      groups: number;
    };
    expect(result).toMatchObject({
      rows: 29,
      columns: 5,
      names: [
        "_id",
        "formula",
        "lattice.a",
        "derivedProperties.density",
        "derivedProperties.symmetry.spaceGroupSymbol",
      ],
    });
    // The filtered frame went back to a file with its own columns: read with a real CSV parser.
    const csv = parse(readFileSync(join(project, "dense.csv"), "utf8"), { columns: true }) as Record<string, string>[];
    expect(result.dense).toBeGreaterThan(0);
    expect(result.dense).toBeLessThan(29);
    expect(result.written).toBe(result.dense);
    expect(csv).toHaveLength(result.dense);
    expect(Object.keys(at(csv, 0, "a row of dense.csv"))).toEqual([
      "_id",
      "formula",
      "lattice.a",
      "derivedProperties.density",
      "derivedProperties.symmetry.spaceGroupSymbol",
    ]);
    expect(csv.every((row) => Number(row["derivedProperties.density"]) > 3)).toBe(true);
    expect(result.groups).toBeGreaterThan(3);
  });

  it("runs a notebook on the tslab kernel registered as the README says", async (context) => {
    const jupyter = spawnSync(DEBIAN_PYTHON, ["-m", "nbconvert", "--version"], { encoding: "utf8" });
    if (jupyter.status !== 0) {
      if (process.env.MATFRAME_REQUIRE_JUPYTER === "1")
        throw new Error(`Jupyter's nbconvert is missing: ${jupyter.stderr}`);
      console.warn(
        "[consumer] Jupyter's nbconvert is not installed: skipping the notebook run (CI sets MATFRAME_REQUIRE_JUPYTER=1)",
      );
      context.skip();
    }
    const from = own.findIndex((line) => line.includes("tslab@"));
    for (const line of own.slice(from)) {
      // Registered under a prefix of the test's own, so the machine's kernels stay as they are.
      await sh(/ tslab install /.test(line) ? `${line} --prefix "${jupyterPrefix}"` : line);
    }
    // The install scripts npm lists as not reviewed are the two the README names.
    const unreviewed = [...installOutput.join("\n").matchAll(/^npm warn install-scripts +(\S+)@\S+ \(/gm)].map(
      (m) => m[1],
    );
    for (const name of unreviewed) expect(["core-js", "zeromq"]).toContain(name);
    // tslab brings its own older TypeScript: installed as the README says, it leaves the
    // project's `tsc` at the version the project installed (zod's types need 5.4 or later).
    const projectTypescript = JSON.parse(
      readFileSync(join(project, "node_modules", "typescript", "package.json"), "utf8"),
    ).version;
    expect((await sh("npx tsc --version")).stdout.trim()).toBe(`Version ${projectTypescript}`);
    const kernelEnv: NodeJS.ProcessEnv = {
      ...env,
      JUPYTER_PATH: join(jupyterPrefix, "share", "jupyter"),
      PYDEVD_DISABLE_FILE_VALIDATION: "1",
    };
    // PATH without node_modules/.bin: the kernel must start from the registered absolute path.
    kernelEnv.PATH = (env.PATH ?? "")
      .split(":")
      .filter((dir) => !dir.includes("node_modules"))
      .join(":");
    const executed = await run(
      DEBIAN_PYTHON,
      [
        "-m",
        "nbconvert",
        "--to",
        "notebook",
        "--execute",
        "--ExecutePreprocessor.kernel_name=tslab",
        "--ExecutePreprocessor.timeout=300",
        "--output",
        "executed.ipynb",
        "notebook.ipynb",
      ],
      { cwd: project, env: kernelEnv, timeout: 300_000 },
    );
    expect(executed.stderr).toMatch(/Writing \d+ bytes to executed\.ipynb/);
    const notebook = JSON.parse(readFileSync(join(project, "executed.ipynb"), "utf8"));
    const outputs = notebook.cells.flatMap((cell: { outputs: unknown[] }) => cell.outputs) as Array<
      Record<string, any>
    >;
    expect(outputs.filter((o) => o.output_type === "error")).toEqual([]);
    const html = outputs.map((o) => o.data?.["text/html"] ?? "").join("");
    expect(html).toMatch(/<table/);
    expect(html).toMatch(/Si/);
    const text = outputs.map((o) => (Array.isArray(o.text) ? o.text.join("") : (o.text ?? ""))).join("");
    expect(text).toMatch(/^\S+ \d+\.\d{3}$/m);
  });

  it("with Deno from the npm registry, a script importing matframe type-checks and runs", async () => {
    await sh(`npm install --save-dev --save-exact deno@${DENO_VERSION}`);
    await sh("npx deno check deno-check.mts");
    // The types are matframe's own, not `any`: a wrong one is refused.
    const refused = await sh("npx deno check deno-type-error.mts").then(
      () => undefined,
      (error: { stderr?: string }) => error,
    );
    expect(refused?.stderr).toMatch(/TS2322 .*Type 'string' is not assignable to type 'number'/);
    const { stdout } = await sh("npx deno run --allow-all deno-check.mts");
    expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toEqual({
      version: "2018-10-01",
      formula: "Si",
      a: expect.any(Number),
      rows: 1,
      cli: true,
    });
  });

  it("runs the same notebook on Deno's kernel, registered with `deno jupyter --install`", async (context) => {
    const jupyter = spawnSync(DEBIAN_PYTHON, ["-m", "nbconvert", "--version"], { encoding: "utf8" });
    if (jupyter.status !== 0) {
      if (process.env.MATFRAME_REQUIRE_JUPYTER === "1")
        throw new Error(`Jupyter's nbconvert is missing: ${jupyter.stderr}`);
      context.skip();
    }
    // Deno writes its kernelspec under $XDG_DATA_HOME/jupyter: here one of the test's own, so the
    // machine's kernels stay as they are.
    const dataHome = join(project, ".deno-data");
    await sh(`XDG_DATA_HOME="${dataHome}" npx deno jupyter --install`);
    const spec = JSON.parse(readFileSync(join(dataHome, "jupyter", "kernels", "deno", "kernel.json"), "utf8")) as {
      argv: string[];
    };
    expect(spec.argv[0]).toBe(join(project, "node_modules", ".bin", "deno"));
    const kernelEnv: NodeJS.ProcessEnv = {
      ...env,
      JUPYTER_PATH: join(dataHome, "jupyter"),
      PYDEVD_DISABLE_FILE_VALIDATION: "1",
    };
    kernelEnv.PATH = (env.PATH ?? "")
      .split(":")
      .filter((dir) => !dir.includes("node_modules"))
      .join(":");
    const executed = await run(
      DEBIAN_PYTHON,
      [
        "-m",
        "nbconvert",
        "--to",
        "notebook",
        "--execute",
        "--ExecutePreprocessor.kernel_name=deno",
        "--ExecutePreprocessor.timeout=300",
        "--output",
        "executed-deno.ipynb",
        "notebook.ipynb",
      ],
      { cwd: project, env: kernelEnv, timeout: 300_000 },
    );
    expect(executed.stderr).toMatch(/Writing \d+ bytes to executed-deno\.ipynb/);
    const notebook = JSON.parse(readFileSync(join(project, "executed-deno.ipynb"), "utf8"));
    const outputs = notebook.cells.flatMap((cell: { outputs: unknown[] }) => cell.outputs) as Array<
      Record<string, any>
    >;
    expect(outputs.filter((o) => o.output_type === "error" || o.name === "stderr")).toEqual([]);
    // show(df) as the HTML table, from the package in the project's node_modules.
    const html = outputs.map((o) => [].concat(o.data?.["text/html"] ?? []).join("")).join("");
    expect(html).toMatch(/<table class="matframe-table"/);
    expect(html).toMatch(/<td[^>]*>Si<\/td>/);
  });
});
