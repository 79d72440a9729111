// Executes the example notebooks with Jupyter's nbconvert, on the tslab kernel or on Deno's.
//
//   node scripts/run-notebooks.js                  refresh the committed outputs in place (npm run notebooks)
//   node scripts/run-notebooks.js --output-dir D   write executed copies to D instead (the notebook tests)
//   node scripts/run-notebooks.js --check          only say whether Jupyter and the kernel are usable
//   ... --kernel deno                              on Deno's kernel (`deno jupyter`) instead of tslab;
//                                                  with --output-dir or --check only: the committed
//                                                  outputs are the tslab kernel's
//   ... [NAME.ipynb ...]                           only these notebooks
//
// The same .ipynb files run on both kernels: only the kernel nbconvert starts differs.
// Exit codes: 0 all ran clean, 1 a notebook failed, 4 Jupyter or the kernel is missing.
// The notebooks always run against the built-in local platform: MATFRAME_* variables are removed
// from their environment, so committed outputs are the same on every machine.
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { linkSelf } = require("./link-self");

const root = path.join(__dirname, "..");
const notebookDir = path.join(root, "notebooks");
/** The kernels the notebooks run on: the kernelspec name, its binary here, how to register it. */
const KERNELS = {
  tslab: {
    binary: path.join(root, "node_modules", ".bin", "tslab"),
    register: 'npx tslab install --python=/usr/bin/python3 --binary "$PWD/node_modules/.bin/tslab"',
    spec: (binary) => ({
      argv: [binary, "kernel", "--config-path", "{connection_file}"],
      display_name: "TypeScript",
      language: "typescript",
    }),
  },
  deno: {
    binary: path.join(root, "node_modules", ".bin", "deno"),
    register: "npx deno jupyter --install",
    spec: (binary) => ({
      argv: [binary, "jupyter", "--kernel", "--conn", "{connection_file}"],
      display_name: "Deno",
      language: "typescript",
    }),
  },
};
const CELL_TIMEOUT_S = 600;
const EXIT_MISSING = 4;

/**
 * The environment nbconvert runs in. Both kernels are registered in a Jupyter path of the run's
 * own (a temporary folder first on JUPYTER_PATH), pointing at this checkout's binaries: the
 * notebooks run after `npm ci` with no registration of the user's, and never with a kernel
 * registered for another checkout.
 */
function kernelEnv() {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("MATFRAME_")) delete env[name];
  // Debian's Python warns about frozen modules and the debugger on every kernel start.
  env.PYDEVD_DISABLE_FILE_VALIDATION = "1";
  const jupyterPath = fs.mkdtempSync(path.join(os.tmpdir(), "matframe-kernels-"));
  process.once("exit", () => fs.rmSync(jupyterPath, { recursive: true, force: true }));
  for (const [name, kernel] of Object.entries(KERNELS)) {
    if (!fs.existsSync(kernel.binary)) continue;
    const dir = path.join(jupyterPath, "kernels", name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "kernel.json"), JSON.stringify(kernel.spec(kernel.binary), null, 1));
  }
  env.JUPYTER_PATH = [jupyterPath, env.JUPYTER_PATH].filter(Boolean).join(path.delimiter);
  return env;
}

/** Why the notebooks cannot run here on `kernelName`, or undefined when they can. */
function missingReason(env, kernelName) {
  const nbconvert = spawnSync("jupyter", ["nbconvert", "--version"], { env, encoding: "utf8" });
  if (nbconvert.error || nbconvert.status !== 0) {
    return "Jupyter's nbconvert is not installed (Debian: apt-get install jupyter-nbconvert python3-nbclient jupyter-client python3-ipykernel)";
  }
  const specs = spawnSync("jupyter", ["kernelspec", "list", "--json"], { env, encoding: "utf8" });
  let kernels = {};
  try {
    kernels = JSON.parse(specs.stdout).kernelspecs ?? {};
  } catch {
    return "`jupyter kernelspec list --json` did not answer JSON";
  }
  const kernel = kernels[kernelName];
  const howTo = `run: ${KERNELS[kernelName].register}`;
  if (!kernel) return `the ${kernelName} kernel is not registered with Jupyter (${howTo})`;
  // A kernel registered as a bare command starts only when it is on PATH, which a local install
  // is not: the README registers tslab with the absolute path of the local binary (Deno's
  // registration always writes the absolute path of the binary that ran it).
  const argv0 = kernel.spec?.argv?.[0];
  if (argv0 && !path.isAbsolute(argv0))
    return `the ${kernelName} kernel is registered as the bare command ${JSON.stringify(argv0)}, which is not on PATH for a local install (${howTo})`;
  if (argv0 && !fs.existsSync(argv0))
    return `the ${kernelName} kernel is registered with ${JSON.stringify(argv0)}, which does not exist (${howTo} again)`;
  if (!fs.existsSync(KERNELS[kernelName].binary)) return `${kernelName} is not installed in node_modules (run: npm ci)`;
  if (!fs.existsSync(path.join(root, "dist", "index.js"))) return "the package is not built (run: npm run build)";
  return undefined;
}

function parseArgs(argv) {
  const args = { outputDir: undefined, check: false, kernel: "tslab", names: [] };
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === "--output-dir") args.outputDir = path.resolve(argv[++i] ?? "");
    else if (argv[i] === "--check") args.check = true;
    else if (argv[i] === "--kernel") {
      args.kernel = argv[++i];
      if (!Object.hasOwn(KERNELS, args.kernel ?? ""))
        throw new Error(
          `--kernel must be one of ${Object.keys(KERNELS).join(", ")}; got ${JSON.stringify(args.kernel)}`,
        );
    } else if (argv[i].endsWith(".ipynb")) args.names.push(path.basename(argv[i]));
    else throw new Error(`unknown argument ${JSON.stringify(argv[i])}; see the top of scripts/run-notebooks.js`);
  }
  return args;
}

function execute(name, outputDir, env, kernel, { allowErrors = false } = {}) {
  const args = [
    "nbconvert",
    "--to",
    "notebook",
    "--execute",
    ...(allowErrors ? ["--allow-errors"] : []),
    `--ExecutePreprocessor.kernel_name=${kernel}`,
    `--ExecutePreprocessor.timeout=${CELL_TIMEOUT_S}`,
    // A kernel's start, not a cell: nbclient's 60 s default was once too short for tslab on a
    // 2-core machine running the whole suite.
    "--ExecutePreprocessor.startup_timeout=180",
    // Per-cell timestamps would make every run a diff, and are timings no reader needs.
    "--ExecutePreprocessor.record_timing=False",
    ...(outputDir ? ["--output-dir", outputDir] : ["--inplace"]),
    path.join(notebookDir, name),
  ];
  const run = spawnSync("jupyter", args, { cwd: notebookDir, env, encoding: "utf8", maxBuffer: 64 << 20 });
  return { ok: run.status === 0, log: `${run.stdout}${run.stderr}` };
}

/**
 * What went wrong in a failed notebook. tslab's error replies carry no message, so nbconvert
 * only says "<Error>"; the cause is in the cell's stderr. Re-running with --allow-errors into a
 * scratch folder keeps those outputs.
 */
function diagnose(name, env, kernel) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "matframe-nb-diag-"));
  try {
    execute(name, scratch, env, kernel, { allowErrors: true });
    const file = path.join(scratch, name);
    if (!fs.existsSync(file)) return "(no output: the kernel did not start)";
    const nb = JSON.parse(fs.readFileSync(file, "utf8"));
    const problems = [];
    nb.cells.forEach((cell, i) => {
      for (const o of cell.outputs ?? []) {
        const text = [].concat(o.text ?? []).join("");
        if (o.output_type === "error") problems.push(`cell ${i + 1}: ${o.ename}: ${o.evalue}`);
        else if (o.output_type === "stream" && o.name === "stderr")
          problems.push(`cell ${i + 1} (stderr): ${text.trim()}`);
      }
    });
    return problems.length > 0 ? problems.slice(0, 3).join("\n") : "(no error output was recorded)";
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Numbers the code cells 1, 2, 3... after a clean run. tslab sends no `execute_input` message,
 * so nbconvert leaves every count empty; a clean nbconvert run executes the cells exactly once,
 * top to bottom, which is what these numbers then say.
 */
function numberCells(file) {
  const nb = JSON.parse(fs.readFileSync(file, "utf8"));
  let count = 0;
  for (const cell of nb.cells) {
    if (cell.cell_type !== "code") continue;
    count += 1;
    cell.execution_count = count;
    for (const output of cell.outputs ?? []) if ("execution_count" in output) output.execution_count = count;
  }
  // nbformat's own layout (one-space indent, trailing newline), so refreshed files diff cleanly.
  fs.writeFileSync(file, `${JSON.stringify(nb, null, 1)}\n`);
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const env = kernelEnv();
  const missing = missingReason(env, args.kernel);
  if (missing) {
    console.error(`Cannot run the notebooks on ${args.kernel}: ${missing}.`);
    return EXIT_MISSING;
  }
  if (args.check) return 0;
  if (args.kernel !== "tslab" && !args.outputDir) {
    throw new Error(`--kernel ${args.kernel} needs --output-dir: the committed outputs are the tslab kernel's`);
  }
  linkSelf();
  const names =
    args.names.length > 0
      ? args.names
      : fs
          .readdirSync(notebookDir)
          .filter((f) => f.endsWith(".ipynb"))
          .sort();
  let failed = 0;
  for (const name of names) {
    const result = execute(name, args.outputDir, env, args.kernel);
    console.log(`${result.ok ? "ok  " : "FAIL"} ${name}${args.kernel === "tslab" ? "" : ` (${args.kernel})`}`);
    if (result.ok) numberCells(path.join(args.outputDir ?? notebookDir, name));
    else {
      failed += 1;
      const lastLines = result.log.trim().split("\n").slice(-15).join("\n");
      console.error(`${lastLines}\n\nFirst problems in ${name}:\n${diagnose(name, env, args.kernel)}`);
    }
  }
  return failed === 0 ? 0 : 1;
}

process.exitCode = main();
