import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ServerHandle } from "../../src/server";
import { RYDBERG_EV } from "../../src/server/compute/outputs/pw-output";
import { call, ok, waitForEnd } from "../collections/helpers";
import { login, startTestServer, type Session } from "../server/helpers";

// The queue around the engine, with a fake pw.x first on PATH: a script that notes its pid under
// the job's id and then blocks until it is killed (or, when the file `fail` exists, fails at
// once; when the file `scf-done` exists, an SCF input gets a converged output at once, so that a
// two-unit job blocks in its second unit). The jobs are the default ones: the bank's Quantum ESPRESSO Total Energy on silicon, which
// the engine can run, so it spawns the fake. What is checked is what a user sees: how many jobs
// are active, in which order accounts get their turn, and that no process outlives its job.

const USERS = ["alice:alice-password", "bob:bob-password"];
/** Silicon's SCF total energy with Debian's pw.x (Ry), which the fake prints. */
const SI_SCF_RY = "-20.43752686";
let fakeDir: string;
let pidDir: string;
const originalPath = process.env.PATH;

beforeAll(() => {
  fakeDir = mkdtempSync(path.join(tmpdir(), "matframe-fake-pw-"));
  pidDir = path.join(fakeDir, "pids");
  writeFileSync(path.join(fakeDir, "README"), "a fake pw.x for the queue tests\n");
  const script = [
    "#!/bin/sh",
    `if [ -e '${fakeDir}/fail' ]; then echo 'fake pw.x: failing as asked'; exit 3; fi`,
    // Debian's pw.x 6.7 on silicon's SCF, as far as the parser reads it (stdin is the input).
    `if [ -e '${fakeDir}/scf-done' ] && grep -q "calculation = 'scf'"; then`,
    "  echo '     Program PWSCF v.6.7MaX starts on 29Nov2026 at 12:00:00'",
    `  echo '!    total energy              =     ${SI_SCF_RY} Ry'`,
    "  echo '     JOB DONE.'",
    "  exit 0",
    "fi",
    // A line of output first, as pw.x's header: a running job's output is not empty.
    "echo 'fake pw.x: computing'",
    `mkdir -p '${pidDir}'`,
    // The job's folder is the working directory; its name is the job's id.
    `echo $$ > '${pidDir}'/"$(basename "$PWD")"`,
    "exec sleep 3600",
  ].join("\n");
  writeFileSync(path.join(fakeDir, "pw.x"), `${script}\n`);
  chmodSync(path.join(fakeDir, "pw.x"), 0o755);
  process.env.PATH = `${fakeDir}${path.delimiter}${originalPath}`;
});
afterAll(() => {
  process.env.PATH = originalPath;
  rmSync(fakeDir, { recursive: true, force: true });
});

/** The pid the fake pw.x of a job wrote, once it has. */
function pidOf(jobId: string): number | undefined {
  const file = path.join(pidDir, jobId);
  // A file the fake has created but not yet written reads empty: no pid yet (never 0, our own group).
  const pid = existsSync(file) ? Number(readFileSync(file, "utf8").trim() || Number.NaN) : Number.NaN;
  return Number.isInteger(pid) && pid > 1 ? pid : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function newJob(server: ServerHandle, session: Session, name: string): Promise<string> {
  return ok(await call(server, session, "PUT", "/jobs/create", { body: { name } }))._id;
}

/** Once the fake pw.x of the job has started (its input written, its output opened). */
async function pwStarted(jobId: string): Promise<void> {
  await vi.waitFor(() => expect(pidOf(jobId)).toBeDefined(), { timeout: 30_000, interval: 20 });
}

/**
 * Jobs made (one per name) and submitted on a server keeping `store` (with `options`), which
 * closes once `then` has run; their ids, for a server started on the same store after it.
 */
async function submittedOnStore(
  store: string,
  options: Parameters<typeof startTestServer>[0],
  names: readonly string[],
  then: (server: ServerHandle, session: Session, ids: string[]) => Promise<void>,
): Promise<string[]> {
  const server = await startTestServer({ ...options, store });
  try {
    const demo = await login(server);
    const ids: string[] = [];
    for (const name of names) ids.push(await newJob(server, demo, name));
    for (const id of ids) ok(await call(server, demo, "POST", `/jobs/${id}/submit`));
    await then(server, demo, ids);
    return ids;
  } finally {
    await server.close();
  }
}

/**
 * A job of the bank's espresso Band Gap (pw_scf, then pw_nscf) on bulk silicon, submitted with the
 * fake's SCF converging at once: once its pw.x has noted its pid, the job computes its second unit.
 */
async function bandGapInSecondUnit(server: ServerHandle, session: Session): Promise<{ id: string; scf: string }> {
  const [workflow] = ok(
    await call(server, session, "GET", "/bank-workflows", {
      query: { "external.path": { $regex: "espresso/band_gap\\.json$" } },
    }),
  );
  const [silicon] = ok(await call(server, session, "GET", "/materials", { query: { "external.id": "mp-149" } }));
  const job = ok(
    await call(server, session, "PUT", "/jobs/create", {
      body: { name: "Si band gap", workflow: { _id: workflow._id }, _material: { _id: silicon._id } },
    }),
  );
  ok(await call(server, session, "POST", `/jobs/${job._id}/submit`));
  await pwStarted(job._id);
  const scf = job.workflow.subworkflows[0].units.find((unit: any) => unit.name === "pw_scf").flowchartId;
  return { id: job._id, scf };
}

async function statusOf(server: ServerHandle, session: Session, id: string): Promise<string> {
  return ok(await call(server, session, "GET", `/jobs/${id}`)).status;
}

describe("the job queue", () => {
  it("runs at most --max-running-jobs at once, accounts in turn, and terminate ends pw.x before it answers", async () => {
    const server = await startTestServer({ users: USERS, maxRunningJobs: 2 });
    try {
      const alice = await login(server, "alice", "alice-password");
      const bob = await login(server, "bob", "bob-password");
      const jobs: { id: string; session: Session; account: string }[] = [];
      // Alice submits eight jobs, then Bob two: ten at once, on a limit of two.
      for (let i = 0; i < 8; i += 1)
        jobs.push({ id: await newJob(server, alice, `a${i}`), session: alice, account: "alice" });
      for (let i = 0; i < 2; i += 1)
        jobs.push({ id: await newJob(server, bob, `b${i}`), session: bob, account: "bob" });
      for (const job of jobs) ok(await call(server, job.session, "POST", `/jobs/${job.id}/submit`));
      const started: string[] = [];
      for (let left = jobs.length; left > 0; ) {
        const running = await vi.waitFor(
          async () => {
            const active: typeof jobs = [];
            for (const job of jobs) if ((await statusOf(server, job.session, job.id)) === "active") active.push(job);
            expect(active).toHaveLength(Math.min(2, left));
            for (const job of active) expect(pidOf(job.id)).toBeDefined();
            return active;
          },
          { timeout: 30_000, interval: 20 },
        );
        // The fakes alive are exactly the active jobs' ones.
        const live = readdirSync(pidDir).filter((id) => alive(pidOf(id)!));
        expect(live.sort()).toEqual(running.map((job) => job.id).sort());
        for (const job of running) {
          started.push(job.account);
          expect(ok(await call(server, job.session, "POST", `/jobs/${job.id}/terminate`)).status).toBe("terminated");
          expect(alive(pidOf(job.id)!), `pw.x of ${job.id} after terminate`).toBe(false);
          left -= 1;
        }
      }
      // First come would run Bob's jobs 9th and 10th; in turns, his both start among the first six.
      expect(started.slice(0, 6).filter((account) => account === "bob")).toHaveLength(2);
      for (const job of jobs) {
        const ended = ok(await call(server, job.session, "GET", `/jobs/${job.id}`));
        expect(ended.status).toBe("terminated");
        expect(
          ok(await call(server, job.session, "GET", "/properties", { query: { "source.info.jobId": job.id } })),
        ).toEqual([]);
      }
    } finally {
      await server.close();
    }
  });

  it("keeps the results of a finished unit when the job is terminated in the next one", async () => {
    writeFileSync(path.join(fakeDir, "scf-done"), "");
    const server = await startTestServer({ jobStartDelayMs: 0 });
    try {
      const demo = await login(server);
      const { id, scf } = await bandGapInSecondUnit(server, demo);
      expect(ok(await call(server, demo, "POST", `/jobs/${id}/terminate`)).status).toBe("terminated");
      const properties = ok(await call(server, demo, "GET", "/properties", { query: { "source.info.jobId": id } }));
      expect(properties.map((p: any) => [p.data.name, p.source.info.unitId])).toEqual([["total_energy", scf]]);
      expect(properties[0].data.value / RYDBERG_EV).toBeCloseTo(Number(SI_SCF_RY), 8);
      const job = ok(await call(server, demo, "GET", `/jobs/${id}`));
      expect([job.status, job.localRun.properties]).toEqual(["terminated", 1]);
      expect(ok(await call(server, demo, "GET", `/jobs/${id}/files`)).map((f: any) => f.key)).toEqual([
        "pw_scf.in",
        "pw_scf.out",
        "pw_nscf.in",
        "pw_nscf.out",
      ]);
      // A delete takes them with the job.
      ok(await call(server, demo, "DELETE", `/jobs/${id}`));
      expect(ok(await call(server, demo, "GET", "/properties", { query: { "source.info.jobId": id } }))).toEqual([]);
    } finally {
      rmSync(path.join(fakeDir, "scf-done"));
      await server.close();
    }
  });

  it("lists a running job's files as they appear, serves them, and moves its units' statuses", async () => {
    writeFileSync(path.join(fakeDir, "scf-done"), "");
    const server = await startTestServer({ jobStartDelayMs: 0 });
    try {
      const demo = await login(server);
      const { id } = await bandGapInSecondUnit(server, demo);
      const statuses = (job: any) => [
        job.workflow.units.map((unit: any) => unit.status),
        job.workflow.subworkflows[0].units.map((unit: any) => [unit.name, unit.status]),
      ];
      // The second unit's start is written beside its run, which does not wait for it.
      const running = await vi.waitFor(async () => {
        const read = ok(await call(server, demo, "GET", `/jobs/${id}`));
        expect(read.status).toBe("active");
        expect(statuses(read)).toEqual([
          ["active"],
          [
            ["pw_scf", "finished"],
            ["pw_nscf", "active"],
          ],
        ]);
        return read;
      });
      const files = ok(await call(server, demo, "GET", `/jobs/${id}/files`));
      expect(files.map((f: any) => [f.key, f.kind])).toEqual([
        ["pw_scf.in", "input"],
        ["pw_scf.out", "output"],
        ["pw_nscf.in", "input"],
        ["pw_nscf.out", "output"],
      ]);
      const byKey = (key: string) => files.find((f: any) => f.key === key);
      expect(await (await fetch(byKey("pw_scf.out").signedUrl)).text()).toContain("JOB DONE");
      // The output pw.x is writing, up to where it is.
      expect(await (await fetch(byKey("pw_nscf.out").signedUrl)).text()).toBe("fake pw.x: computing\n");
      expect(byKey("pw_nscf.out").unitId).toBe(running.workflow.subworkflows[0].units[1].flowchartId);
      ok(await call(server, demo, "POST", `/jobs/${id}/terminate`));
      const ended = ok(await call(server, demo, "GET", `/jobs/${id}`));
      // The unit the terminate cut off did not finish: no unit of an ended job is left active.
      expect(statuses(ended)).toEqual([
        ["error"],
        [
          ["pw_scf", "finished"],
          ["pw_nscf", "error"],
        ],
      ]);
      expect(ok(await call(server, demo, "GET", `/jobs/${id}/files`))).toHaveLength(4);

      // A copy of the ended job carries its units' last statuses; its run starts them idle.
      rmSync(path.join(fakeDir, "scf-done"));
      const copy = ok(await call(server, demo, "POST", `/jobs/${id}/copy`));
      ok(await call(server, demo, "POST", `/jobs/${copy._id}/submit`));
      await pwStarted(copy._id);
      await vi.waitFor(async () => {
        const read = ok(await call(server, demo, "GET", `/jobs/${copy._id}`));
        expect(statuses(read)).toEqual([
          ["active"],
          [
            ["pw_scf", "active"],
            ["pw_nscf", "idle"],
          ],
        ]);
      });
      ok(await call(server, demo, "POST", `/jobs/${copy._id}/terminate`));
    } finally {
      rmSync(path.join(fakeDir, "scf-done"), { force: true });
      await server.close();
    }
  });

  it("keeps the results of a finished unit when the job runs past its time limit in the next one", async () => {
    writeFileSync(path.join(fakeDir, "scf-done"), "");
    // Long enough for the fake's SCF (a shell's start), short for a test.
    const server = await startTestServer({ jobStartDelayMs: 0, jobTimeLimitMs: 3000 });
    try {
      const demo = await login(server);
      const { id, scf } = await bandGapInSecondUnit(server, demo);
      const ended = await waitForEnd(server, demo, id, 30_000);
      expect(ended.status).toBe("error");
      expect(ended.localRun.reason).toMatch(/ran past its time limit/);
      expect(ended.localRun.properties).toBe(1);
      const properties = ok(await call(server, demo, "GET", "/properties", { query: { "source.info.jobId": id } }));
      expect(properties.map((p: any) => [p.data.name, p.source.info.unitId])).toEqual([["total_energy", scf]]);
    } finally {
      rmSync(path.join(fakeDir, "scf-done"));
      await server.close();
    }
  });

  it("keeps the results of a finished unit of a job cut off by a server stop, counted after the restart", async () => {
    writeFileSync(path.join(fakeDir, "scf-done"), "");
    const store = path.join(fakeDir, "cut-off-results");
    let id = "";
    const first = await startTestServer({ jobStartDelayMs: 0, store });
    try {
      ({ id } = await bandGapInSecondUnit(first, await login(first)));
    } finally {
      rmSync(path.join(fakeDir, "scf-done"));
      await first.close();
    }
    const second = await startTestServer({ store });
    try {
      const demo = await login(second);
      const job = ok(await call(second, demo, "GET", `/jobs/${id}`));
      expect([job.status, job.localRun.reason, job.localRun.properties]).toEqual([
        "error",
        "interrupted by a restart",
        1,
      ]);
      const properties = ok(await call(second, demo, "GET", "/properties", { query: { "source.info.jobId": id } }));
      expect(properties.map((p: any) => p.data.name)).toEqual(["total_energy"]);
    } finally {
      await second.close();
    }
  });

  it("computes a job from its submit while its status still reads submitted for the start delay", async () => {
    // A delay far longer than the test: pw.x running while the job reads `submitted` shows the
    // computation did not wait for it (the queue's throughput no longer pays the delay).
    const server = await startTestServer({ jobStartDelayMs: 600_000 });
    try {
      const demo = await login(server);
      const id = await newJob(server, demo, "started at once");
      ok(await call(server, demo, "POST", `/jobs/${id}/submit`));
      const pid = await vi.waitFor(
        () => {
          const found = pidOf(id);
          expect(found).toBeDefined();
          return found!;
        },
        { timeout: 30_000, interval: 20 },
      );
      expect(alive(pid)).toBe(true);
      expect(await statusOf(server, demo, id)).toBe("submitted");
      expect(ok(await call(server, demo, "POST", `/jobs/${id}/terminate`)).status).toBe("terminated");
      expect(alive(pid)).toBe(false);
      expect(await statusOf(server, demo, id)).toBe("terminated");
    } finally {
      await server.close();
    }
  });

  it("ends a job past --job-time-limit in error, saying so, with its pw.x gone", async () => {
    const server = await startTestServer({ jobTimeLimitMs: 500 });
    try {
      const demo = await login(server);
      const id = await newJob(server, demo, "too long");
      ok(await call(server, demo, "POST", `/jobs/${id}/submit`));
      const ended = await waitForEnd(server, demo, id, 30_000);
      expect(ended.status).toBe("error");
      expect(ended.localRun.reason).toMatch(/ran past its time limit of 0\.5 s .*the server's operator sets the limit/);
      expect(alive(pidOf(id)!)).toBe(false);
    } finally {
      await server.close();
    }
  });

  it("keeps a stopped job's files under --store, listed and downloadable after a restart", async () => {
    const store = path.join(fakeDir, "store");
    const [id = ""] = await submittedOnStore(
      store,
      { jobTimeLimitMs: 500 },
      ["kept files"],
      async (first, demo, [id]) => {
        expect((await waitForEnd(first, demo, id!, 30_000)).status).toBe("error");
        expect(ok(await call(first, demo, "GET", `/jobs/${id}/files`)).map((f: any) => f.key)).toContain("pw_scf.in");
      },
    );
    expect(existsSync(path.join(store, "jobs", id, "pw_scf.in"))).toBe(true);
    const second = await startTestServer({ store });
    try {
      const demo = await login(second);
      const files = ok(await call(second, demo, "GET", `/jobs/${id}/files`));
      const input = files.find((f: any) => f.key === "pw_scf.in");
      expect(await (await fetch(input.signedUrl)).text()).toMatch(/&CONTROL/i);
      ok(await call(second, demo, "POST", `/jobs/${id}/purge`));
      expect(existsSync(path.join(store, "jobs", id))).toBe(false);
    } finally {
      await second.close();
    }
  });

  it("keeps the files of a job cut off by a server stop listed after the restart, which ends it in error", async () => {
    const store = path.join(fakeDir, "cut-off");
    const [id = ""] = await submittedOnStore(store, { jobStartDelayMs: 0 }, ["cut off"], (_, __, [id]) =>
      pwStarted(id!),
    );
    expect(readdirSync(path.join(store, "jobs", id))).toEqual(expect.arrayContaining(["pw_scf.in", "pw_scf.out"]));
    const second = await startTestServer({ store });
    try {
      const demo = await login(second);
      const job = ok(await call(second, demo, "GET", `/jobs/${id}`));
      expect([job.status, job.localRun.reason]).toEqual(["error", "interrupted by a restart"]);
      const files = ok(await call(second, demo, "GET", `/jobs/${id}/files`));
      expect(files.map((f: any) => [f.key, f.kind])).toEqual([
        ["pw_scf.in", "input"],
        ["pw_scf.out", "output"],
      ]);
      const input = files.find((f: any) => f.key === "pw_scf.in");
      expect(await (await fetch(input.signedUrl)).text()).toMatch(/&CONTROL/i);
    } finally {
      await second.close();
    }
  });

  it("on restart, says it is up before it says what it picked up, and before a job queued again logs", async () => {
    const store = path.join(fakeDir, "restart-order");
    const [running = "", waiting = ""] = await submittedOnStore(
      store,
      { jobStartDelayMs: 0, maxRunningJobs: 1 },
      ["running at stop", "waiting at stop"],
      (_, __, [running]) => pwStarted(running!),
    );
    const ids = [running, waiting];
    const lines: string[] = [];
    const second = await startTestServer({ store, maxRunningJobs: 1, log: (line) => lines.push(line) });
    try {
      await pwStarted(waiting);
      const serving = lines.findIndex((line) => line.startsWith("serving "));
      expect(serving, lines.join("\n")).toBe(0);
      const said = (text: string) => lines.findIndex((line) => line.includes(text));
      expect(said(`"interrupted by a restart" (${ids[0]})`)).toBeGreaterThan(serving);
      expect(said("1 submitted job queued again")).toBeGreaterThan(serving);
      expect(said(`job ${ids[1]}`)).toBeGreaterThan(said("1 submitted job queued again"));
    } finally {
      await second.close();
    }
  });

  it("leaves no pw.x running when the server closes", async () => {
    const server = await startTestServer({ maxRunningJobs: 2 });
    const demo = await login(server);
    const ids = [await newJob(server, demo, "one"), await newJob(server, demo, "two")];
    for (const id of ids) ok(await call(server, demo, "POST", `/jobs/${id}/submit`));
    const pids = await vi.waitFor(
      () => {
        const found = ids.map(pidOf);
        expect(found.every((pid) => pid !== undefined && alive(pid))).toBe(true);
        return found as number[];
      },
      { timeout: 30_000, interval: 20 },
    );
    await server.close();
    expect(pids.filter(alive)).toEqual([]);
  });

  it("leaves no pw.x running when `matframe serve` stops on SIGTERM", async () => {
    const bin = path.join(__dirname, "..", "..", "dist", "cli", "main.js");
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run "npm run build" first.`);
    // The fake pw.x is first on this process's PATH, which the server process inherits.
    const child = spawn(process.execPath, [bin, "serve", "--port", "0", "--max-running-jobs", "2", "--quiet"]);
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    const exited = once(child, "exit");
    const baseUrl = await vi.waitFor(
      () => {
        expect(stdout).toContain("\n");
        return stdout.split("\n")[0];
      },
      { timeout: 60_000, interval: 20 },
    );
    const credentials = (
      (await (
        await fetch(`${baseUrl}/login`, {
          method: "POST",
          body: new URLSearchParams({ username: "demo", password: "demo" }),
        })
      ).json()) as { data: Record<string, string> }
    ).data;
    const headers = { ...credentials, "Content-Type": "application/json" };
    const ids: string[] = [];
    for (const name of ["one", "two"]) {
      const res = await fetch(`${baseUrl}/jobs/create`, { method: "PUT", headers, body: JSON.stringify({ name }) });
      const id = ((await res.json()) as { data: { _id: string } }).data._id;
      await fetch(`${baseUrl}/jobs/${id}/submit`, { method: "POST", headers });
      ids.push(id);
    }
    const pids = await vi.waitFor(
      () => {
        const found = ids.map(pidOf);
        expect(found.every((pid) => pid !== undefined && alive(pid))).toBe(true);
        return found as number[];
      },
      { timeout: 30_000, interval: 20 },
    );
    child.kill("SIGTERM");
    const [code] = await exited;
    expect(code).toBe(0);
    expect(pids.filter(alive)).toEqual([]);
  });

  it("ends a job whose pw.x fails in error, never leaving it submitted or active", async () => {
    writeFileSync(path.join(fakeDir, "fail"), "");
    const server = await startTestServer();
    try {
      const demo = await login(server);
      const id = await newJob(server, demo, "failing pw.x");
      ok(await call(server, demo, "POST", `/jobs/${id}/submit`));
      const ended = await waitForEnd(server, demo, id, 30_000);
      expect(ended.status).toBe("error");
      expect(ended.localRun.reason).toMatch(/\w/);
    } finally {
      rmSync(path.join(fakeDir, "fail"));
      await server.close();
    }
  });

  it("ends a job whose pw.x is killed from outside (say, out of memory) in error", async () => {
    const server = await startTestServer({ jobStartDelayMs: 0 });
    try {
      const demo = await login(server);
      const id = await newJob(server, demo, "killed pw.x");
      ok(await call(server, demo, "POST", `/jobs/${id}/submit`));
      const pid = await vi.waitFor(
        () => {
          const found = pidOf(id);
          expect(found).toBeDefined();
          return found!;
        },
        { timeout: 30_000, interval: 20 },
      );
      process.kill(pid, "SIGKILL");
      const ended = await waitForEnd(server, demo, id, 30_000);
      expect(ended.status).toBe("error");
      expect(ended.localRun.reason).toMatch(/\w/);
    } finally {
      await server.close();
    }
  });

  it("ends a job in error with the install hint when pw.x is not on PATH", async () => {
    const empty = mkdtempSync(path.join(tmpdir(), "matframe-no-pw-"));
    process.env.PATH = empty;
    const server = await startTestServer();
    try {
      const demo = await login(server);
      const id = await newJob(server, demo, "no pw.x");
      ok(await call(server, demo, "POST", `/jobs/${id}/submit`));
      const ended = await waitForEnd(server, demo, id, 30_000);
      expect(ended.status).toBe("error");
      expect(ended.localRun.reason).toMatch(
        /pw\.x \(Quantum ESPRESSO\) is not on PATH: install it, e\.g\. `apt install quantum-espresso/,
      );
    } finally {
      process.env.PATH = `${fakeDir}${path.delimiter}${originalPath}`;
      rmSync(empty, { recursive: true, force: true });
      await server.close();
    }
  });
});
