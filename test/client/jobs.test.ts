import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AbortError,
  BadRequestError,
  type Client,
  JobWaitTimeoutError,
  NotFoundError,
  PermissionDeniedError,
  TargetExistsError,
  TimeoutError,
  ValidationError,
  type JobWaitProgress,
  type WorkflowRecord,
} from "../../src";
import { at } from "../support/checked";
import { usePlatform } from "../support/platform";

// Jobs from code, through the public API only, against the real local platform: a job made from
// a Materials Project material and the bank's VASP band-gap workflow is created, submitted,
// waited for and read back with the published gap the local platform answers for it; jobs on a
// platform whose runner never finishes them are waited for with a timeout and terminated.

const platform = usePlatform("matframe-jobs-");
// Its runner keeps a submitted job running for an hour: what terminate and a timeout need.
const slow = usePlatform("matframe-jobs-slow-", { jobRunMs: 3_600_000 });

async function materialId(client: Client, mpId: string): Promise<string> {
  const found = await client.materials.list({ query: { "external.id": mpId }, projection: { limit: 1 } });
  return at(found, 0, `the material ${mpId}`)._id;
}

async function vaspBandGap(client: Client): Promise<WorkflowRecord> {
  const found = await client.bankWorkflows.list({
    query: { name: "Band Gap", "subworkflows.application.name": "vasp" },
  });
  return at(found, 0, "the bank's VASP band-gap workflow");
}

describe("a job's life from code", () => {
  it("creates, submits and waits for a VASP band-gap job on MoS2, and reads its band gap", async () => {
    const { client } = platform;
    const workflow = await client.workflows.copyFromBank((await vaspBandGap(client))._id);
    const job = await client.jobs.create({
      material: await materialId(client, "mp-2815"),
      workflow,
      name: "MoS2 gap",
    });
    expect(job).toMatchObject({ name: "MoS2 gap", status: "pre-submission" });
    expect(job.workflow?.subworkflows).toEqual(workflow.subworkflows);
    expect((await client.jobs.submit(job._id)).status).toBe("submitted");

    const seen: JobWaitProgress[] = [];
    const finished = await client.jobs.waitFor(job._id, { interval: 20, onProgress: (p) => seen.push(p) });
    expect(finished).toMatchObject({ _id: job._id, status: "finished", name: "MoS2 gap" });
    // Whole records at the end (the embedded workflow), statuses only while polling.
    expect(finished.workflow?.subworkflows).toEqual(workflow.subworkflows);
    expect(seen[0]).toMatchObject({ total: 1, changed: true });
    expect(seen.at(-1)).toMatchObject({ done: 1, total: 1, counts: { finished: 1 } });

    const [gap] = await client.properties.list({ query: { "source.info.jobId": job._id } });
    expect(gap?.data).toEqual({ name: "band_gaps", values: [{ type: "indirect", value: 1.23, units: "eV" }] });
    // A job this account cannot read: the remedy in the library's words (the CLI says `matframe jobs list`).
    const unknown = await client.jobs.waitFor("no-such-job").catch((e: unknown) => e as NotFoundError);
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect(unknown.message).toMatch(/^No job "no-such-job" .* List yours with client\.jobs\.list\(\)\.$/);
    expect(unknown.remedy).toEqual({ listWith: "jobs" });
  });

  it("stores the same job as the body of the platform's Python client's build_config", async () => {
    const { client } = platform;
    const project = at(await client.projects.list({ query: { isDefault: true } }), 0, "the default project");
    const material = await materialId(client, "mp-2815");
    const workflow = (await vaspBandGap(client))._id;
    // JobEndpoints.build_config in Exabyte-io/api-client (src/py/mat3ra/api_client/endpoints/jobs.py), as it builds it.
    const python = await client.collection("jobs").create({
      _project: { _id: project._id },
      workflow: { _id: workflow },
      owner: { _id: client.accountId },
      name: "same",
      _material: { _id: material },
    });
    const ours = await client.jobs.create({ material, workflow, project, name: "same" });
    const comparable = ({ _id, createdAt, updatedAt, ...rest }: Record<string, unknown>) => rest;
    expect(comparable(ours)).toEqual(comparable(python));
  });

  it("waits for several jobs, times out with their statuses, and terminates them", async () => {
    const { client } = slow;
    const workflow = await vaspBandGap(client);
    const material = await materialId(client, "mp-149");
    const [one, two] = [
      (await client.jobs.create({ material, workflow: workflow._id, name: "one" }))._id,
      (await client.jobs.create({ material, workflow: workflow._id, name: "two" }))._id,
    ];
    const ids = [one, two];
    for (const id of ids) await client.jobs.submit(id);
    const submitted = await client.jobs.waitFor(ids, { until: "submitted" });
    expect(submitted.map((job) => job.status)).toEqual(["submitted", "submitted"]);

    expect((await client.jobs.terminate(one)).status).toBe("terminated");
    // A final status ends the wait for another one: a terminated job never becomes active.
    expect((await client.jobs.waitFor(one, { until: "active" })).status).toBe("terminated");
    const error = await client.jobs.waitFor(ids, { timeout: 30, interval: 10 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobWaitTimeoutError);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({
      code: "ERR_JOB_WAIT_TIMEOUT",
      timeoutMs: 30,
      jobs: [
        { _id: one, name: "one", status: "terminated" },
        { _id: two, name: "two", status: "submitted" },
      ],
    });
    expect((error as Error).message).toMatch(/1 still has not: .*\(submitted\).*client\.jobs\.terminate/);

    await client.jobs.terminate(two);
    const ended = await client.jobs.waitFor(ids);
    expect(ended.map((job) => [job._id, job.status])).toEqual([
      [one, "terminated"],
      [two, "terminated"],
    ]);
    await expect(client.jobs.terminate(one)).rejects.toBeInstanceOf(BadRequestError);
  });

  it("ends the wait for a job deleted while waited on with status deleted, beside the others", async () => {
    const { client } = slow;
    const material = await materialId(client, "mp-149");
    const workflow = (await vaspBandGap(client))._id;
    const [kept, gone] = [
      (await client.jobs.create({ material, workflow, name: "kept" }))._id,
      (await client.jobs.create({ material, workflow, name: "gone" }))._id,
    ];
    for (const id of [kept, gone]) await client.jobs.submit(id);
    const seen: JobWaitProgress[] = [];
    const writes: Promise<unknown>[] = [];
    const waiting = client.jobs.waitFor([kept, gone], {
      interval: 10,
      onProgress: (progress) => {
        seen.push(progress);
        // Deleted after the first poll, terminated once the wait has seen the deletion (the slow
        // platform keeps the job running for an hour: nothing else ends it).
        if (seen.length === 1) writes.push(client.jobs.delete(gone));
        if (writes.length === 1 && progress.jobs.some((job) => job.status === "deleted"))
          writes.push(client.jobs.terminate(kept));
      },
    });
    const ended = await waiting;
    await Promise.all(writes);
    expect(ended.map((job) => [job._id, job.name, job.status])).toEqual([
      [kept, "kept", "terminated"],
      [gone, "gone", "deleted"],
    ]);
    expect(seen.at(-1)).toMatchObject({ done: 2, total: 2, counts: { terminated: 1, deleted: 1 } });
  });

  it("stops a wait on its signal, and refuses what it cannot use before any request", async () => {
    const { client } = slow;
    const job = await client.jobs.create({
      material: await materialId(client, "mp-149"),
      workflow: (await vaspBandGap(client))._id,
    });
    await client.jobs.submit(job._id);
    const controller = new AbortController();
    const waiting = client.jobs.waitFor(job._id, {
      interval: 10,
      signal: controller.signal,
      onProgress: () => controller.abort(new Error("enough")),
    });
    await expect(waiting).rejects.toBeInstanceOf(AbortError);
    await client.jobs.terminate(job._id);

    const refused = async (call: () => Promise<unknown>) => call().catch((e: unknown) => e as ValidationError);
    // The raw record's fields are not silently dropped: the message names the field to use.
    const raw = await refused(() =>
      client.jobs.create({ _material: { _id: "x" }, workflow: "y" } as unknown as {
        material: string;
        workflow: string;
      }),
    );
    expect(raw).toBeInstanceOf(ValidationError);
    expect(raw).toMatchObject({ option: "_material", message: expect.stringMatching(/material for _material/) });
    expect(await refused(() => client.jobs.create({ material: "x" } as never))).toMatchObject({ option: "workflow" });
    expect(await refused(() => client.jobs.waitFor(job._id, { until: "done" as never }))).toMatchObject({
      option: "until",
    });
    expect(await refused(() => client.jobs.waitFor(job._id, { timeOut: 5 } as never))).toMatchObject({
      option: "timeOut",
    });
    expect(await refused(() => client.jobs.waitFor([]))).toMatchObject({ option: "ids" });
  });
});

describe("bank workflows into the account", () => {
  it("copies a bank workflow named by its systemName or name, and refuses a name two share", async () => {
    const { client } = platform;
    const bank = await client.bankWorkflows.list({ projection: { limit: 100 } });
    // Bank workflows gain a systemName; where they have none yet, the name finds them.
    const script = bank.find((w) => w.name === "Python Script")!;
    const reference = typeof script.systemName === "string" ? script.systemName : script.name!;
    const copy = await client.workflows.copyFromBank(reference);
    expect(copy._id).not.toBe(script._id);
    expect(copy).toMatchObject({ name: "Python Script", owner: { _id: client.accountId } });
    expect((await client.workflows.get(copy._id)).subworkflows).toEqual(script.subworkflows);

    // Each named by its systemName, which finds it again.
    const bandGaps = bank.filter((w) => w.name === "Band Gap").map((w) => String(w.systemName));
    expect(bandGaps).toHaveLength(2);
    const ambiguous = await client.workflows.copyFromBank("Band Gap").catch((e: unknown) => e as Error);
    expect(ambiguous).toBeInstanceOf(ValidationError);
    for (const name of bandGaps) {
      expect(ambiguous.message).toContain(name);
      expect((await client.workflows.findInBank(name)).name).toBe("Band Gap");
    }
    await expect(client.workflows.copyFromBank("No Such Workflow")).rejects.toThrow(/No bank workflow has/);
  });
});

describe("sets of materials and jobs", () => {
  it("creates a set, moves materials into it and out to another", async () => {
    const { client } = platform;
    const bundled = await client.materials.list({ projection: { limit: 2 } });
    const [first, second] = [
      await client.materials.copy(at(bundled, 0, "a bundled material")._id),
      await client.materials.copy(at(bundled, 1, "a second bundled material")._id),
    ];
    const mine = [first, second];
    const study = await client.materials.createSet("Band-gap study", { tags: ["class"] });
    expect(study).toMatchObject({ name: "Band-gap study", isEntitySet: true, tags: ["class"] });
    const moved = await client.materials.moveToSet(
      study._id,
      mine.map((m) => m._id),
    );
    expect(moved.map((m) => m._id)).toEqual(mine.map((m) => m._id));
    const members = async (setId: string) =>
      (await client.materials.list({ query: { "inSet._id": setId } })).map((m) => m._id).sort();
    expect(await members(study._id)).toEqual(mine.map((m) => m._id).sort());

    const other = await client.materials.createSet("Later");
    await client.materials.moveToSet(other._id, first._id, { fromSetId: study._id });
    expect(await members(study._id)).toEqual([second._id]);
    expect(await members(other._id)).toEqual([first._id]);
    await expect(client.materials.createSet("")).rejects.toMatchObject({ option: "name" });
  });

  it("groups jobs in a set too", async () => {
    const { client } = platform;
    const job = await client.jobs.create({
      material: await materialId(client, "mp-149"),
      workflow: (await vaspBandGap(client))._id,
    });
    const set = await client.jobs.createSet("Convergence study");
    expect(set).toMatchObject({ isEntitySet: true, entityCls: "Job" });
    await client.jobs.moveToSet(set._id, [job._id]);
    expect((await client.jobs.list({ query: { "inSet._id": set._id } })).map((j) => j._id)).toEqual([job._id]);
  });
});

describe("a job's files", () => {
  let files: Server;
  let base: string;
  const SIGNATURE = "sig=secret-signature-0123";
  beforeAll(async () => {
    // Stands for the platform's file storage: a signed URL downloads without other credentials.
    files = createServer((req, res) => {
      if (!req.url?.endsWith(SIGNATURE)) {
        res.writeHead(403).end("expired");
        return;
      }
      res.writeHead(200, { "content-type": "application/octet-stream" }).end("!    total energy = -15.8 Ry\n");
    });
    await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => files.close(() => resolve())));

  it("lists a job's files and downloads each by its signed URL", async () => {
    const { client, dir } = platform;
    const finished = await client.jobs.list({ query: { status: "finished" }, projection: { limit: 1 } });
    const job = at(finished, 0, "a finished job");
    const listed = await client.jobs.files(job._id);
    expect(Array.isArray(listed)).toBe(true);
    const written = await client.jobs.download(job._id, join(dir, "listed"));
    expect(written.map((w) => w.file.key)).toEqual(listed.map((f) => f.key));
    for (const w of written) if (w.file.size !== undefined) expect(w.bytes).toBe(w.file.size);
  });

  it("writes a file whole, refuses to overwrite it, and keeps the signature out of errors", async () => {
    const { client, dir } = platform;
    const file = {
      key: "jobs/abc/pw_scf.out",
      name: "pw_scf.out",
      signedUrl: `${base}/jobs/abc/pw_scf.out?${SIGNATURE}`,
    };
    const target = join(dir, "pw_scf.out");
    const done = await client.jobs.downloadFile(file, target);
    expect(readFileSync(target, "utf8")).toBe("!    total energy = -15.8 Ry\n");
    expect(done).toMatchObject({ path: target, bytes: readFileSync(target).length });
    await expect(client.jobs.downloadFile(file, target)).rejects.toBeInstanceOf(TargetExistsError);
    const expired = await client.jobs
      .downloadFile({ ...file, signedUrl: `${base}/jobs/abc/pw_scf.out?sig=old-secret` }, join(dir, "old.out"))
      .then(
        () => new Error("downloaded"),
        (e: unknown) => e as Error,
      );
    expect(expired).toBeInstanceOf(PermissionDeniedError);
    expect(expired.message).not.toContain("old-secret");
    await expect(client.jobs.downloadFile({ key: "x" }, join(dir, "x"))).rejects.toThrow(/no signedUrl/);
  });
});
