import { afterAll, beforeAll, expect, it } from "vitest";
import { MatframeError, ValidationError } from "../../src/errors";
import type { ServerHandle } from "../../src/server";
import { call, ok } from "../collections/helpers";
import { login, startTestServer, type Session } from "./helpers";

// `ServerHandle.jobEnded`: the event a test holding the server in-process waits on instead of
// polling a job's status (the REST API has no notice when a job ends). The jobs are answered from
// the reference data (the VASP band gap of MoS2, mp-2815), which runs no process.

let server: ServerHandle;
let session: Session;
let vaspBandGap: string;
let mos2: string;

beforeAll(async () => {
  server = await startTestServer({ jobRunMs: 0, jobStartDelayMs: 0 });
  session = await login(server);
  const bank = ok(await call(server, session, "GET", "/bank-workflows", { projection: { limit: 100 } }));
  vaspBandGap = bank.find((w: any) => w.external.path.endsWith("vasp/band_gap.json"))._id;
  mos2 = ok(await call(server, session, "GET", "/materials", { query: { "external.id": "mp-2815" } }))[0]._id;
});
afterAll(async () => {
  await server?.close();
});

async function createJob(on: ServerHandle, as: Session, name: string): Promise<string> {
  const body = { name, workflow: { _id: vaspBandGap }, _material: { _id: mos2 } };
  return ok(await call(on, as, "PUT", "/jobs/create", { body }))._id;
}

it("resolves with finished once the job has ended, and the API reads it ended at once after", async () => {
  // Waited for before its submit: a job in pre-submission has not ended.
  const id = await createJob(server, session, "ended");
  const ended = server.jobEnded(id);
  ok(await call(server, session, "POST", `/jobs/${id}/submit`));
  expect(await ended).toBe("finished");
  const job = ok(await call(server, session, "GET", `/jobs/${id}`));
  expect(job.status).toBe("finished");
  expect(job.localRun.properties).toBe(1);
  // A job that has already ended resolves at once, as often as asked.
  expect(await server.jobEnded(id)).toBe("finished");
});

it("resolves with terminated or deleted when the job is stopped or deleted before it ends", async () => {
  const slow = await startTestServer({ jobRunMs: 3_600_000, jobStartDelayMs: 0 });
  try {
    const as = await login(slow);
    const [stopped, deleted] = [await createJob(slow, as, "stopped"), await createJob(slow, as, "deleted")];
    for (const id of [stopped, deleted]) ok(await call(slow, as, "POST", `/jobs/${id}/submit`));
    const ends = [slow.jobEnded(stopped), slow.jobEnded(deleted)];
    ok(await call(slow, as, "POST", `/jobs/${stopped}/terminate`));
    ok(await call(slow, as, "DELETE", `/jobs/${deleted}`));
    expect(await Promise.all(ends)).toEqual(["terminated", "deleted"]);
  } finally {
    await slow.close();
  }
});

it("rejects for an id no job has, and when the server closes before the job ends", async () => {
  const unknown = await server.jobEnded("no-such-job").catch((e: unknown) => e);
  expect(unknown).toBeInstanceOf(ValidationError);
  expect((unknown as ValidationError).message).toMatch(/No job has the id "no-such-job": pass the _id/);

  const slow = await startTestServer({ jobRunMs: 3_600_000, jobStartDelayMs: 0 });
  const as = await login(slow);
  const id = await createJob(slow, as, "left running");
  ok(await call(slow, as, "POST", `/jobs/${id}/submit`));
  const ended = slow.jobEnded(id).catch((e: unknown) => e);
  await slow.close();
  const error = await ended;
  expect(error).toBeInstanceOf(MatframeError);
  expect((error as MatframeError).message).toBe(`The server closed before job ${id} ended.`);
});
