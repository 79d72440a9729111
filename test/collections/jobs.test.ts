import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { errorMessage, login, startTestServer, type Session } from "../server/helpers";
import { call, ok, waitForStatus } from "./helpers";

// A job's life on the local platform: submit -> submitted -> active -> finished or error; a job
// the machine cannot compute but whose result the reference data holds (the VASP GGA-PBE PAW band
// gap of a Materials Project material) gets that published value as its band_gaps property,
// linked by job and unit; any other job it cannot compute ends in error with the engine's reason.
// Nothing is made up. (Jobs that compute with pw.x: test/server/jobs-*.test.ts.)

let server: ServerHandle;
let demo: Session;
let vaspBandGap: any;

beforeAll(async () => {
  server = await startTestServer({ jobRunMs: 50 });
  demo = await login(server);
  const bank = ok(await call(server, demo, "GET", "/bank-workflows", { projection: { limit: 100 } }));
  vaspBandGap = bank.find((w: any) => w.external.path.endsWith("vasp/band_gap.json"));
});
afterAll(() => server?.close());

async function materialOf(mpId: string): Promise<any> {
  return ok(await call(server, demo, "GET", "/materials", { query: { "external.id": mpId } }))[0];
}

describe("the job lifecycle", () => {
  it("finishes a VASP band-gap job on MoS2 (mp-2815) with the published Materials Project gap, linked by job and unit", async () => {
    const mos2 = await materialOf("mp-2815");
    const job = ok(
      await call(server, demo, "PUT", "/jobs/create", {
        body: { name: "MoS2 gap", workflow: { _id: vaspBandGap._id }, _material: { _id: mos2._id } },
      }),
    );
    expect(job.workflow.subworkflows).toEqual(vaspBandGap.subworkflows);
    const submitted = ok(await call(server, demo, "POST", `/jobs/${job._id}/submit`));
    expect(submitted.status).toBe("submitted");
    const finished = await waitForStatus(server, demo, job._id, "finished");
    expect(finished.localRun).toMatchObject({
      properties: 1,
      reason: expect.stringMatching(/published Materials Project value for mp-2815/),
    });
    const properties = ok(await call(server, demo, "GET", "/properties", { query: { "source.info.jobId": job._id } }));
    expect(properties).toHaveLength(1);
    const unit = vaspBandGap.subworkflows[0].units.find((u: any) => u.results.some((r: any) => r.name === "band_gaps"));
    expect(properties[0].source.info).toEqual({ jobId: job._id, unitId: unit.flowchartId, materialId: mos2._id });
    expect(properties[0].data).toEqual({ name: "band_gaps", values: [{ type: "indirect", value: 1.23, units: "eV" }] });
    expect(properties[0].owner).toEqual(job.owner);
    // The reference job of the same Materials Project material says the same.
    const [referenceJob] = ok(await call(server, demo, "GET", "/jobs", { query: { "_material.slug": "mp-2815" } }));
    const [reference] = ok(
      await call(server, demo, "GET", "/properties", { query: { "source.info.jobId": referenceJob._id } }),
    );
    expect(reference.data).toEqual(properties[0].data);
    // Resubmitting a finished job is refused; deleting it takes its properties along.
    expect(errorMessage(await call(server, demo, "POST", `/jobs/${job._id}/submit`), 400)).toMatch(
      /only a job in pre-submission/,
    );
    ok(await call(server, demo, "DELETE", `/jobs/${job._id}`));
    expect(ok(await call(server, demo, "GET", "/properties", { query: { "source.info.jobId": job._id } }))).toEqual([]);
  });

  it("ends a job it cannot compute, and whose result the reference data lacks, in error with the engine's reason", async () => {
    const silicon = await materialOf("mp-149");
    const job = ok(
      await call(server, demo, "PUT", "/jobs/create", {
        body: { name: "no result", workflow: { _id: vaspBandGap._id }, _material: { _id: silicon._id } },
      }),
    );
    ok(await call(server, demo, "POST", `/jobs/${job._id}/submit`));
    const ended = await waitForStatus(server, demo, job._id, "error");
    expect(ended.localRun.properties).toBe(0);
    expect(ended.localRun.reason).toMatch(/\w/);
    expect(ok(await call(server, demo, "GET", "/properties", { query: { "source.info.jobId": job._id } }))).toEqual([]);
  });

  it("terminates a running job (it never finishes), lists no files, and purges only a stopped job", async () => {
    const slow = await startTestServer({ jobRunMs: 3_600_000 });
    try {
      const session = await login(slow);
      const mos2 = await materialOf("mp-2815");
      const job = ok(
        await call(slow, session, "PUT", "/jobs/create", {
          body: { name: "stop me", workflow: { _id: vaspBandGap._id }, _material: { _id: mos2._id } },
        }),
      );
      expect(errorMessage(await call(slow, session, "POST", `/jobs/${job._id}/terminate`), 400)).toMatch(
        /pre-submission/,
      );
      ok(await call(slow, session, "POST", `/jobs/${job._id}/submit`));
      await waitForStatus(slow, session, job._id, "active");
      expect(errorMessage(await call(slow, session, "POST", `/jobs/${job._id}/purge`), 400)).toMatch(/terminate it/);
      expect(ok(await call(slow, session, "POST", `/jobs/${job._id}/terminate`)).status).toBe("terminated");
      expect(ok(await call(slow, session, "GET", `/jobs/${job._id}/files`))).toEqual([]);
      expect(ok(await call(slow, session, "POST", `/jobs/${job._id}/purge`))).toEqual({ _id: job._id, files: [] });
      expect(ok(await call(slow, session, "GET", `/jobs/${job._id}`)).status).toBe("terminated");
    } finally {
      await slow.close();
    }
  });

  it("keeps jobs, projects and workflows in --store across a restart, and finishes a job left waiting", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "matframe-jobs-store-"));
    try {
      // One job at a time: the first runs (and is interrupted by the stop), the second waits.
      const first = await startTestServer({ store: path.join(dir, "store"), jobRunMs: 3_600_000, maxRunningJobs: 1 });
      const session = await login(first);
      const workflow = ok(await call(first, session, "PUT", "/workflows/create", { body: { name: "kept" } }));
      const [ws2] = ok(await call(first, session, "GET", "/materials", { query: { "external.id": "mp-224" } }));
      const job = ok(
        await call(first, session, "PUT", "/jobs/create", {
          body: { name: "kept job", workflow: { _id: vaspBandGap._id }, _material: { _id: ws2._id } },
        }),
      );
      const running = ok(
        await call(first, session, "PUT", "/jobs/create", {
          body: { name: "running job", workflow: { _id: vaspBandGap._id }, _material: { _id: ws2._id } },
        }),
      );
      ok(await call(first, session, "POST", `/jobs/${running._id}/submit`));
      await waitForStatus(first, session, running._id, "active");
      ok(await call(first, session, "POST", `/jobs/${job._id}/submit`));
      expect(ok(await call(first, session, "GET", `/jobs/${job._id}`)).status).toBe("submitted");
      await first.close();
      const second = await startTestServer({ store: path.join(dir, "store"), jobRunMs: 20 });
      try {
        const again = await login(second);
        expect(ok(await call(second, again, "GET", `/workflows/${workflow._id}`)).name).toBe("kept");
        const projects = ok(await call(second, again, "GET", "/projects", { query: { isDefault: true } }));
        expect(projects.map((p: any) => p._id)).toEqual([job._project._id]);
        await waitForStatus(second, again, job._id, "finished");
        expect(ok(await call(second, again, "GET", `/jobs/${running._id}`)).localRun.reason).toBe(
          "interrupted by a restart",
        );
        const [gap] = ok(await call(second, again, "GET", "/properties", { query: { "source.info.jobId": job._id } }));
        expect(gap.data.values[0].value).toBe(1.56); // WS2, mp-224
        // The materials the store held before are still materials.
        expect(ok(await call(second, again, "GET", "/materials", { projection: { limit: 500 } }))).toHaveLength(29);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
