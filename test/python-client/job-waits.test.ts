import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { call, ok } from "../collections/helpers";
import { login, startTestServer, type Session } from "../server/helpers";
import { PYTHON, pythonImports } from "../support/python";
import { runWaitingScript } from "./job-waits";

// The handshake the Python client scripts wait for their jobs by (job_wait.py, job-waits.ts),
// with plain HTTP in place of the platform's client, so it runs wherever python3 does. The job is
// the VASP band gap of MoS2 (mp-2815), answered from the reference data: no process runs.

const PROBE = path.join(__dirname, "wait_probe.py");
const NO_PYTHON = pythonImports("json, urllib.request") ? undefined : `${PYTHON} is not installed`;
let server: ServerHandle;
let session: Session;
let workflow: string;
let mos2: string;

beforeAll(async () => {
  if (NO_PYTHON) return;
  // The default start delay (1 s): the job is still `submitted` when the probe asks to wait.
  server = await startTestServer({ jobRunMs: 0 });
  session = await login(server);
  const bank = ok(await call(server, session, "GET", "/bank-workflows", { projection: { limit: 100 } }));
  workflow = bank.find((w: any) => w.external.path.endsWith("vasp/band_gap.json"))._id;
  mos2 = ok(await call(server, session, "GET", "/materials", { query: { "external.id": "mp-2815" } }))[0]._id;
});
afterAll(async () => {
  await server?.close();
});

function probeEnv(jobId: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    API_PORT: String(server.port),
    ACCOUNT_ID: session["X-Account-Id"],
    AUTH_TOKEN: session["X-Auth-Token"],
    JOB_ID: jobId,
    ...extra,
  };
}

function steps(stdout: string): Record<string, unknown> {
  return Object.fromEntries(
    stdout
      .trim()
      .split("\n")
      .filter((line) => line.startsWith('{"step"'))
      .map((line) => JSON.parse(line) as { step: string; value: unknown })
      .map((s) => [s.step, s.value]),
  );
}

function skipWithoutPython(context: { skip: () => void }): boolean {
  if (!NO_PYTHON) return false;
  console.warn(`\n*** SKIPPED the job-wait handshake: ${NO_PYTHON}. ***\n`);
  context.skip();
  return true;
}

it("answers a script's wait once its job has ended, and the script then reads it ended", async (context) => {
  if (skipWithoutPython(context)) return;
  const body = { name: "probe", workflow: { _id: workflow }, _material: { _id: mos2 } };
  const job = ok(await call(server, session, "PUT", "/jobs/create", { body }));
  const stdout = await runWaitingScript(PYTHON, PROBE, { env: probeEnv(job._id), server, signal: context.signal });
  expect(stdout).toContain(`{"wait": ["${job._id}"]}`);
  expect(steps(stdout)).toEqual({ submitted: "submitted", ended: { [job._id]: "finished" }, read: "finished" });
});

it("ends a script's wait for an id no job has with its stdin closed, and fails with both sides' reasons", async (context) => {
  if (skipWithoutPython(context)) return;
  const run = runWaitingScript(PYTHON, PROBE, {
    env: probeEnv("no-such-job", { WAIT_ONLY: "1" }),
    server,
    signal: context.signal,
  });
  const error = (await run.catch((e: unknown) => e)) as Error;
  expect(error.message).toMatch(/wait_probe\.py exited with 1 \(its job waits failed: No job has the id "no-such-job"/);
  expect(error.message).toContain("FAILED: no answer to the wait for jobs ['no-such-job'] (the test closed stdin)");
});
