import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { BIN, cleanEnv } from "../reliability/support/cli";

// The platform's 12 example notebooks (Exabyte-io/api-examples, examples/), unchanged, run cell
// by cell against `matframe serve` (a real process, built CLI) with the Jupyter kernel of a venv
// cached under node_modules/.cache. The notebooks and the packages the local pip index lacks come
// from their public sources, checked out by whoever runs this:
// - MATFRAME_API_EXAMPLES_SRC: a checkout of Exabyte-io/api-examples (with its LFS POSCAR);
// - MATFRAME_MAT3RA_SOURCES: a folder of checkouts of the mat3ra Python packages the notebooks
//   import (api-client, notebooks-utils, standata, made, esse, code, utils, ide, ...), each
//   pip-installed without dependencies (theirs come from the pip index).
// Without the notebooks the test is skipped with a notice; a notebook whose `mat3ra` imports are
// not installed is skipped with the modules named. What must hold for the others: none stops on
// an error of the local platform (an HTTP 4xx/5xx answer, an empty lookup, an unknown endpoint).
// The table of how far each gets is in docs/local-platform.md.

const run = promisify(execFile);
const ROOT = path.join(__dirname, "..", "..");
const EXAMPLES = process.env.MATFRAME_API_EXAMPLES_SRC;
const SOURCES = process.env.MATFRAME_MAT3RA_SOURCES;
// What the notebooks and the mat3ra packages import, from the pip index (the mat3ra packages
// themselves are installed from their checkouts without dependencies).
const PACKAGES = [
  "nbclient",
  "nbformat",
  "ipykernel",
  "requests",
  "pydantic>=2,<3",
  "pandas",
  "numpy<2",
  "tabulate",
  "pyyaml",
  "typer",
  "jsonschema",
  "matplotlib",
  "plotly",
  "ipywidgets",
];

/** The 12 notebooks, in the order of the guide's table. */
const NOTEBOOKS = [
  "system/get_authentication_params.ipynb",
  "material/create_material.ipynb",
  "material/get_materials_by_formula.ipynb",
  "material/upload_materials_from_file_poscar.ipynb",
  "workflow/get_workflows.ipynb",
  "workflow/qe_scf_calculation.ipynb",
  "job/create_and_submit_job.ipynb",
  "job/get-file-from-job.ipynb",
  "job/run-simulations-and-extract-properties.ipynb",
  "job/ml-train-model-predict-properties.ipynb",
  "reproducing_publications/band_gaps_for_interface_bilayer_twisted_molybdenum_disulfide.ipynb",
  "reproducing_publications/band_structure_for_interface_bilayer_twisted_molybdenum_disulfide.ipynb",
];

interface NotebookReport {
  notebook: string;
  cells: number;
  ran: number;
  stop: { cell: number; error: string } | null;
  skip: string | null;
}

let serve: ChildProcess | undefined;
afterAll(() => {
  serve?.kill("SIGTERM");
});

/** The checkouts under MATFRAME_MAT3RA_SOURCES that pip can install (a pyproject.toml or setup.py). */
function sourceCheckouts(): string[] {
  if (!SOURCES) return [];
  return readdirSync(SOURCES)
    .map((name) => path.join(SOURCES, name))
    .filter((dir) => existsSync(path.join(dir, "pyproject.toml")) || existsSync(path.join(dir, "setup.py")))
    .sort();
}

/** A venv with Jupyter's kernel and client and the checkouts; the reason when pip cannot make it. */
async function notebookVenv(): Promise<{ python: string } | { skip: string }> {
  let version: string;
  try {
    version = (await run("python3", ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"])).stdout.trim();
  } catch {
    return { skip: "python3 is not installed" };
  }
  const checkouts = sourceCheckouts();
  const mode = [...PACKAGES, ...checkouts.map((dir) => `${dir}@${statSync(dir).mtimeMs}`)].join(" ");
  const key = createHash("sha256").update(`${version}|${mode}`).digest("hex").slice(0, 12);
  const venv = path.join(ROOT, "node_modules", ".cache", "matframe-platform-notebooks", `py${version}-${key}`);
  const python = path.join(venv, "bin", "python");
  const stamp = path.join(venv, ".installed");
  if (existsSync(stamp)) return { python };
  rmSync(venv, { recursive: true, force: true });
  mkdirSync(path.dirname(venv), { recursive: true });
  try {
    await run("python3", ["-m", "venv", venv]);
    const pipInstall = ["-m", "pip", "install", "--quiet", "--disable-pip-version-check"];
    await run(python, [...pipInstall, ...PACKAGES], { timeout: 900_000 });
    // A checkout without its git history (an archive) has no version for setuptools-scm to find.
    const scm = {
      ...process.env,
      SETUPTOOLS_SCM_PRETEND_VERSION: process.env.SETUPTOOLS_SCM_PRETEND_VERSION ?? "0.0.0",
    };
    if (checkouts.length > 0)
      await run(python, [...pipInstall, "--no-deps", ...checkouts], { timeout: 900_000, env: scm });
  } catch (error) {
    rmSync(venv, { recursive: true, force: true });
    const stderr = String((error as { stderr?: string }).stderr ?? (error as Error).message)
      .trim()
      .split("\n")
      .slice(-1)[0];
    return { skip: `pip could not make the notebooks' venv: ${stderr}` };
  }
  writeFileSync(stamp, `${mode}\n`);
  return { python };
}

/** `matframe serve` in its own process, as a user starts it; resolves with its base URL. */
function startServe(): Promise<string> {
  serve = spawn(process.execPath, [BIN, "serve", "--port", "0", "--quiet"], { env: cleanEnv({}) });
  return new Promise<string>((resolve, reject) => {
    let out = "";
    serve!.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("\n")) resolve(out.slice(0, out.indexOf("\n")).trim());
    });
    serve!.on("exit", (code) => reject(new Error(`matframe serve exited with ${code}`)));
  });
}

async function postJson(url: string, body: string, headers: Record<string, string>): Promise<any> {
  const res = await fetch(url, { method: "POST", body, headers });
  return ((await res.json()) as { data: any }).data;
}

it("runs the platform's example notebooks unchanged against matframe serve", {
  timeout: 3_600_000,
}, async (context) => {
  if (!EXAMPLES || !existsSync(path.join(EXAMPLES, "examples"))) {
    process.stderr.write(
      "\n*** SKIPPED the platform notebooks: set MATFRAME_API_EXAMPLES_SRC to a checkout of Exabyte-io/api-examples (and MATFRAME_MAT3RA_SOURCES to a folder of the mat3ra packages' checkouts). ***\n",
    );
    context.skip();
    return;
  }
  const venv = await notebookVenv();
  if ("skip" in venv) {
    process.stderr.write(`\n*** SKIPPED the platform notebooks: ${venv.skip}. ***\n`);
    context.skip();
    return;
  }
  const baseUrl = await startServe();
  const url = new URL(baseUrl);
  const login = await postJson(`${baseUrl}/login`, "username=demo&password=demo", {
    "Content-Type": "application/x-www-form-urlencoded",
  });
  const headers = { "X-Account-Id": login["X-Account-Id"], "X-Auth-Token": login["X-Auth-Token"] };
  // CLUSTERS as the platform's web UI sets it: the platform's own list of clusters.
  const clusters = (await (await fetch(`${baseUrl}/other/clusters`, { headers })).json()) as { data: unknown };
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    API_HOST: url.hostname,
    API_PORT: url.port,
    API_SECURE: "false",
    OIDC_ACCESS_TOKEN: headers["X-Auth-Token"],
    ACCOUNT_ID: headers["X-Account-Id"],
    AUTH_TOKEN: headers["X-Auth-Token"],
    CLUSTERS: JSON.stringify(clusters.data),
  };
  const { stdout } = await run(
    venv.python,
    [path.join(__dirname, "run_notebooks.py"), path.join(EXAMPLES, "examples"), ...NOTEBOOKS],
    { env, timeout: 3_500_000, maxBuffer: 16 * 1024 * 1024 },
  );
  const reports = stdout
    .trim()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as NotebookReport);
  process.stderr.write(
    `\n${reports
      .map((r) =>
        r.skip
          ? `SKIPPED ${r.notebook}: ${r.skip}`
          : `${r.notebook}: ${r.ran}/${r.cells} cells${r.stop ? `, stops at cell ${r.stop.cell}: ${r.stop.error}` : ""}`,
      )
      .join("\n")}\n`,
  );
  expect(reports.map((r) => r.notebook)).toEqual(NOTEBOOKS);
  // What the local platform answers never stops a notebook.
  for (const report of reports) {
    expect(report.stop?.error ?? "", report.notebook).not.toMatch(
      /\b(4\d\d|5\d\d) (Client|Server) Error|HTTPError|IndexError: list index out of range/,
    );
  }
});
