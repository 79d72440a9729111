// The reference OPTIMADE implementation (optimade-python-tools v1.5.0: its server with its test
// data, its OptimadeClient and optimade-validator), run from a venv that
// scripts/optimade-reference-venv.sh builds from the sources. Where that venv is missing, the
// tests that need it skip with the reason.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The venv's python: `MATFRAME_OPTIMADE_VENV`, else the path the build script uses. */
export const REFERENCE_PYTHON = join(
  process.env.MATFRAME_OPTIMADE_VENV ?? "/tmp/matframe-optimade-venv",
  "bin",
  "python",
);

/** Why the reference cannot run here, or undefined when it can. */
export async function referenceMissing(): Promise<string | undefined> {
  if (!existsSync(REFERENCE_PYTHON))
    return `no venv with optimade-python-tools at ${REFERENCE_PYTHON} (build it with scripts/optimade-reference-venv.sh, or set MATFRAME_OPTIMADE_VENV)`;
  try {
    await run(REFERENCE_PYTHON, [
      "-c",
      "import optimade, optimade.client, optimade.validator, mongomock, uvicorn, fastapi",
    ]);
  } catch (error) {
    return `the venv at ${REFERENCE_PYTHON} cannot import optimade-python-tools' server, client and validator: ${String(
      (error as { stderr?: string }).stderr ?? error,
    )
      .trim()
      .split("\n")
      .at(-1)}`;
  }
  return undefined;
}

/** The reference server, started on a port of its choosing; resolves once it prints its base URL. */
export async function startReferenceServer(): Promise<{ base: string; close(): Promise<void> }> {
  const child: ChildProcess = spawn(REFERENCE_PYTHON, [join(__dirname, "serve.py")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const base = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.startsWith("http://"));
      if (line) resolve(line.trim());
    });
    child.on("exit", (code) => reject(new Error(`the reference server exited with ${code}: ${err.slice(-500)}`)));
  });
  return {
    base,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** What the reference OptimadeClient reads for a filter: `{ id, attributes }` per entry, in order. */
export async function referenceClient(
  base: string,
  filter: string,
  fields: readonly string[],
): Promise<{ id: string; attributes: Record<string, unknown> }[]> {
  const { stdout } = await run(REFERENCE_PYTHON, [join(__dirname, "client.py"), base, filter, fields.join(",")], {
    maxBuffer: 64 * 2 ** 20,
  });
  const lines = stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
  const failed = lines.find((l) => l.errors);
  if (failed) throw new Error(`the reference client failed: ${JSON.stringify(failed.errors)}`);
  return lines;
}

/** optimade-validator's JSON summary for a base URL. */
export async function validate(base: string): Promise<{
  success_count: number;
  failure_count: number;
  internal_failure_count: number;
  optional_failure_count: number;
  failure_messages: [string, string][];
}> {
  const script = "import sys; from optimade.validator import validate; sys.argv[0] = 'optimade-validator'; validate()";
  const result = await run(REFERENCE_PYTHON, ["-c", script, "--json", base], { maxBuffer: 64 * 2 ** 20 }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }),
  );
  return JSON.parse(result.stdout);
}
