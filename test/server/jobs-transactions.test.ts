import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { call, listAll, ok, waitForStatus } from "../collections/helpers";
import { login, startTestServer, type Session } from "./helpers";

// A job's end, its terminate and its delete are each one transaction on the store, and each
// checks the job's status as it commits: a terminated job gets no result, a deleted job stays
// deleted (with its results), a job whose results do not fit ends in error, and a restart ends a
// job that was running in error. The jobs here are answered from the reference data (the VASP
// band gap of MoS2, mp-2815), which runs no process, so the races are between writes alone.

let dir: string;
let vaspBandGap: any;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "matframe-job-transactions-"));
  const server = await startTestServer();
  try {
    const session = await login(server);
    const bank = ok(await call(server, session, "GET", "/bank-workflows", { projection: { limit: 100 } }));
    vaspBandGap = bank.find((w: any) => w.external.path.endsWith("vasp/band_gap.json"));
  } finally {
    await server.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function mos2Job(server: ServerHandle, session: Session, name: string): Promise<any> {
  const [mos2] = ok(await call(server, session, "GET", "/materials", { query: { "external.id": "mp-2815" } }));
  return ok(
    await call(server, session, "PUT", "/jobs/create", {
      body: { name, workflow: { _id: vaspBandGap._id }, _material: { _id: mos2._id } },
    }),
  );
}

function propertiesOf(server: ServerHandle, session: Session, jobId: string): Promise<any[]> {
  return listAll(server, session, "properties", { "source.info.jobId": jobId });
}

/** A server on `store` stopped while a job of its was `active` (its runner keeps jobs an hour); the job. */
async function stoppedWhileActive(store: string, name: string): Promise<{ _id: string }> {
  const first = await startTestServer({ store, jobRunMs: 3_600_000 });
  try {
    const session = await login(first);
    const running = await mos2Job(first, session, name);
    ok(await call(first, session, "POST", `/jobs/${running._id}/submit`));
    await waitForStatus(first, session, running._id, "active");
    return running;
  } finally {
    await first.close();
  }
}

describe("job writes as transactions, with --store", () => {
  it("never gives a job terminated at its finish a result, and a job deleted at its finish stays deleted", async () => {
    const store = path.join(dir, "race");
    const server = await startTestServer({ store, jobRunMs: 0, jobStartDelayMs: 0, maxRunningJobs: 4 });
    const session = await login(server);
    const ids: string[] = [];
    for (let i = 0; i < 40; i += 1) ids.push((await mos2Job(server, session, `race ${i}`))._id);
    // Submitted one after another, each terminated (even) or deleted (odd) the moment its submit
    // answers: the job's end is written at about the same time.
    await Promise.all(
      ids.map(async (id, i) => {
        ok(await call(server, session, "POST", `/jobs/${id}/submit`));
        const res = await call(
          server,
          session,
          i % 2 === 0 ? "POST" : "DELETE",
          `/jobs/${id}${i % 2 === 0 ? "/terminate" : ""}`,
        );
        // A terminate that comes after the end is refused: the job finished first, whole.
        if (res.status !== 200)
          expect(res.body.message).toMatch(/only a queued, submitted or active job can be terminated/);
      }),
    );
    await server.close();
    const again = await startTestServer({ store, jobRunMs: 0 });
    try {
      const session2 = await login(again);
      const jobs = new Map(
        (await listAll(again, session2, "jobs", { name: { $regex: "^race " } })).map((j) => [j._id, j]),
      );
      const properties = await listAll(again, session2, "properties", { "owner.slug": "demo" });
      for (const [i, id] of ids.entries()) {
        const job = jobs.get(id);
        const results = properties.filter((p) => p.source.info.jobId === id);
        if (i % 2 === 1) {
          expect(job, `deleted job ${i}`).toBeUndefined();
          expect(results, `results of deleted job ${i}`).toEqual([]);
        } else if (job.status === "terminated") {
          expect(results, `results of terminated job ${i}`).toEqual([]);
        } else {
          expect(job.status).toBe("finished");
          expect(results).toHaveLength(1);
        }
      }
      // No result names a job that is not there.
      for (const property of properties) expect(jobs.has(property.source.info.jobId)).toBe(true);
    } finally {
      await again.close();
    }
  });

  it("ends a job whose result cannot be stored (the account at its quota) in error, saying why", async () => {
    // The default project and the job are the account's two records; the result would be a third.
    const server = await startTestServer({ jobRunMs: 0, quotaRecords: 2 });
    try {
      const session = await login(server);
      const job = await mos2Job(server, session, "at quota");
      ok(await call(server, session, "POST", `/jobs/${job._id}/submit`));
      const ended = await waitForStatus(server, session, job._id, "error");
      expect(ended.localRun.reason).toMatch(/its results could not be stored: .*quota on this server \(2\)/);
      expect(ended.localRun.properties).toBe(0);
      expect(await propertiesOf(server, session, job._id)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("ends a job that was running when the server stopped in error on restart, never finished", async () => {
    const store = path.join(dir, "restart");
    const running = await stoppedWhileActive(store, "running at stop");
    const second = await startTestServer({ store, jobRunMs: 0 });
    try {
      const again = await login(second);
      const job = ok(await call(second, again, "GET", `/jobs/${running._id}`));
      expect(job.status).toBe("error");
      expect(job.localRun.reason).toBe("interrupted by a restart");
      expect(await propertiesOf(second, again, running._id)).toEqual([]);
    } finally {
      await second.close();
    }
  });

  // The runs are found through /proc, which only Linux has.
  it.skipIf(process.platform !== "linux")(
    "on restart, ends a run a killed server left computing in the job's folder (a relative store), and says so",
    async () => {
      const store = path.relative(process.cwd(), path.join(dir, "orphan"));
      const running = await stoppedWhileActive(store, "left computing");
      // What SIGKILL leaves: pw.x leading a session of its own, working in the job's folder. A
      // program named pw.x here is sleep under that name (a process is named after the file run;
      // not node, which names its main thread itself from Node 24 on).
      const folder = path.join(store, "jobs", running._id);
      const sibling = `${folder}x`;
      mkdirSync(folder, { recursive: true });
      mkdirSync(sibling, { recursive: true });
      const sleep = "/bin/sleep";
      const pw = path.join(dir, "pw.x");
      symlinkSync(sleep, pw);
      const start = (file: string, cwd: string, detached: boolean) =>
        spawn(file, ["600"], { cwd, detached, stdio: "ignore" });
      const left = start(pw, folder, true);
      // Left alone: a run in another folder whose name starts the same, and another program (a
      // shell, an editor) open in the job's folder.
      const neighbour = start(pw, sibling, true);
      const bystander = start(sleep, folder, false);
      const exited = once(left, "exit");
      await Promise.all([left, neighbour, bystander].map((child) => once(child, "spawn")));
      const lines: string[] = [];
      const second = await startTestServer({ store, jobRunMs: 0, log: (line) => lines.push(line) });
      try {
        expect((await exited)[1]).toBe("SIGKILL");
        // Signalled in the same pass as the run: a process signalled would be a zombie by now.
        const state = (pid: number | undefined) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
        expect([state(neighbour.pid), state(bystander.pid)]).not.toContain("Z");
        expect([neighbour.exitCode, bystander.exitCode]).toEqual([null, null]);
        expect(lines, lines.join("\n")).toContain(
          `1 job was computing when the server stopped: ended in error, "interrupted by a restart" (${running._id}); 1 run left computing stopped`,
        );
      } finally {
        for (const child of [left, neighbour, bystander]) child.kill("SIGKILL");
        await second.close();
      }
    },
  );
});
