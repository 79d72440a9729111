// `matframe jobs`, run as a user runs it (the built CLI in its own process) against the real
// local platform: create and submit a job from a material and a bank workflow, wait for it,
// list it, read its files; on a platform whose jobs never finish, a wait that times out, a
// terminate, and the wait that then fails with exit code 4. Exit codes as `export`'s.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Client } from "../../src";
import { FINAL_JOB_STATUSES } from "../../src/schemas";
import type { ServerHandle } from "../../src/server";
import { call, ok } from "../collections/helpers";
import { login as sessionOn, startTestServer } from "../server/helpers";
import { runCli, startCli } from "./run-cli";
import { at, defined } from "../support/checked";

let server: ServerHandle;
let slow: ServerHandle;
let dir: string;
let vaspBandGap: string;

const login = (s: ServerHandle) => ({
  MATFRAME_BASE_URL: s.baseUrl,
  MATFRAME_USERNAME: "demo",
  MATFRAME_PASSWORD: "demo",
});

beforeAll(async () => {
  server = await startTestServer({});
  // Its runner keeps a submitted job running for an hour: what terminate and a timeout need.
  slow = await startTestServer({ jobRunMs: 3_600_000 });
  dir = mkdtempSync(join(tmpdir(), "matframe-jobs-cli-"));
  const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
  const found = await client.bankWorkflows.list({
    query: { name: "Band Gap", "subworkflows.application.name": "vasp" },
  });
  vaspBandGap = at(found, 0, "the bank's VASP band-gap workflow")._id;
  await client.logout();
});
afterAll(async () => {
  await server?.close();
  await slow?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("matframe jobs", () => {
  it("--material mp-149 with a copy of your own: says it uses yours and names the other", async () => {
    const own = await startTestServer({ accountDefaults: true });
    try {
      const client = await Client.login({ baseUrl: own.baseUrl, username: "demo", password: "demo" });
      const copies = await client.materials.list({ query: { "external.id": "mp-149" } });
      await client.logout();
      const mine = copies.find((m) => m.owner?._id === client.accountId);
      const other = copies.find((m) => m !== mine);
      expect([mine, other].every(Boolean), "demo's copy of mp-149 and the public one").toBe(true);
      const run = await runCli(["jobs", "submit", "--material", "mp-149", "--workflow", vaspBandGap], {
        env: login(own),
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(
        `mp-149 names 2 materials you can read; using yours, ${mine!._id}; to use another, pass its _id (${other!._id}).`,
      );
      expect(run.stderr).toMatch(new RegExp(`Created job \\w+ \\(.*\\) on material ${mine!._id}\\.`));
      // A workflow that is refused is the only thing said: no word on the material it would have used.
      const refused = await runCli(["jobs", "submit", "--material", "mp-149", "--workflow", "Band Gap"], {
        env: login(own),
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/\nmatframe jobs: --workflow: 2 bank workflows have the name "Band Gap"[^\n]*\n$/);
      expect(refused.stderr).not.toContain("using yours");
    } finally {
      await own.close();
    }
  });

  it("an unknown --material exits 2, as an unknown job id does, and says how to find one", async () => {
    const env = login(server);
    const job = await runCli(["jobs", "submit", "NoSuchJob12345678"], { env });
    expect(job.code).toBe(2);
    const run = await runCli(["jobs", "submit", "--material", "NoSuchMaterial1", "--workflow", vaspBandGap], { env });
    expect(run.code).toBe(job.code);
    expect(run.stderr).toMatch(
      /\nmatframe jobs: No material you can read has the _id or external id "NoSuchMaterial1"; find one with `matframe export --query '\{"formula":"Si"\}' --columns _id,formula,external\.id`\.\n$/,
    );
    expect(run.stderr).not.toContain("--material:");
  });

  it("creates, submits and waits for a job, then lists it and its files", async () => {
    const env = login(server);
    const run = await runCli(
      ["jobs", "submit", "--material", "mp-2815", "--workflow", vaspBandGap, "--name", "MoS2 gap", "--wait"],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    const [id, status, name] = run.stdout.trim().split("\t");
    expect([status, name]).toEqual(["finished", "MoS2 gap"]);
    expect(run.stderr).toMatch(new RegExp(`Created job ${id} \\(MoS2 gap\\) on material \\w+\\.`));
    // Not a terminal: progress as lines, the last one saying all are done.
    expect(run.stderr).toMatch(/^1\/1 done \(finished 1\), \d+ s$/m);

    // --json prints what list shows of a job, not its whole record (with its embedded workflow).
    const waited = await runCli(["jobs", "wait", id!, "--json"], { env });
    expect(waited.code, waited.stderr).toBe(0);
    expect(Object.keys(JSON.parse(waited.stdout)).sort()).toEqual(
      ["_id", "_material", "_project", "createdAt", "name", "status"].sort(),
    );

    const listed = await runCli(["jobs", "list", "--status", "finished", "--json", "--max-items", "500"], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const jobs = listed.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(jobs.find((job) => job._id === id)).toMatchObject({ name: "MoS2 gap", status: "finished" });
    // A list cut short by --max-items says so, rather than reading as the whole count.
    const newest = await runCli(["jobs", "list", "--max-items", "1"], { env });
    expect(newest.stdout.trim().split("\n")).toHaveLength(1);
    expect(newest.stderr).toMatch(/\nThe newest 1 job; more match: raise --max-items to list them\.\n$/);

    const files = await runCli(["jobs", "files", defined(id, "the job's id"), "--download", join(dir, "out")], { env });
    expect(files.code, files.stderr).toBe(0);
    expect(files.stderr).toMatch(/Downloaded \d+ files? into /);

    // A finished job is not submitted again: the message says how to run it again with this command.
    const resubmitted = await runCli(["jobs", "submit", id!], { env });
    expect(resubmitted.code).toBe(2);
    expect(resubmitted.stderr).toContain(
      `matframe jobs: Job "${id}" is finished, and only a job in pre-submission can be submitted. To run it again, submit a new one:`,
    );
    expect(resubmitted.stderr).toMatch(/ `matframe jobs submit --material \w+ --workflow \S+`\.\n$/);
    expect(resubmitted.stderr).not.toMatch(/POST|copy/);
  });

  it("times out a wait (exit 3), terminates, and fails the next wait with exit 4", async () => {
    const env = login(slow);
    // MoS2 (mp-2815) through the VASP band gap: a job the reference data answers, which this
    // server keeps active for an hour (silicon's would end in error at once: no VASP here). With
    // no --name it is named for its material and workflow, not the platform's "New Job".
    const submitted = await runCli(["jobs", "submit", "--material", "mp-2815", "--workflow", vaspBandGap], { env });
    expect(submitted.code, submitted.stderr).toBe(0);
    const id = submitted.stdout.trim();

    const waited = await runCli(["jobs", "wait", id, "--timeout", "0.2"], { env });
    expect(waited.code).toBe(3);
    expect(waited.stderr).toMatch(/Waited 200 ms for 1 job .*\((submitted|active)\); they go on running\./);
    // The remedy in the command's own words.
    expect(waited.stderr).toContain("with a longer --timeout, or end them with `matframe jobs terminate ID`.");
    expect(waited.stderr).not.toContain("client.");
    // Each job's line as last seen, on stdout, as a finished wait prints it.
    expect(waited.stdout).toMatch(new RegExp(`^${id}\\t(submitted|active)\\tMoS2 Band Gap\\n$`));

    const ended = await runCli(["jobs", "terminate", id], { env });
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stdout).toBe(`${id}\tterminated\tMoS2 Band Gap\n`);

    const failed = await runCli(["jobs", "wait", id], { env });
    expect(failed.code).toBe(4);
    expect(failed.stdout).toBe(`${id}\tterminated\tMoS2 Band Gap\n`);
    expect(failed.stderr).toContain(`1 job did not finish: ${id} terminated`);

    const again = await runCli(["jobs", "terminate", id], { env });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/only a queued, submitted or active job can be terminated/);
    // The server's reason is the whole story: no advice about queries, which there were none of.
    expect(again.stderr).not.toContain("Fix the query");

    // Several ids: one refused (ended already, or unknown) does not keep the others running.
    const other = (
      await runCli(["jobs", "submit", "--material", "mp-2815", "--workflow", vaspBandGap], { env })
    ).stdout.trim();
    const several = await runCli(["jobs", "terminate", id, "NoSuchJob12345678", other], { env });
    expect(several.code).toBe(2);
    expect(several.stdout).toBe(`${other}\tterminated\tMoS2 Band Gap\n`);
    expect(several.stderr).toMatch(/only a queued, submitted or active job can be terminated/);
    expect(several.stderr).toContain("NoSuchJob12345678");
  });

  it("a set of jobs is marked as one in the list, and waiting for it is refused with what to wait for", async () => {
    const session = await sessionOn(server);
    const set = ok(await call(server, session, "PUT", "/jobs/create-set", { body: { name: "a set\u202e" } }))
      ._id as string;
    const env = login(server);
    const listed = await runCli(["jobs", "list", "--query", JSON.stringify({ _id: set })], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${set}\\t\\(set\\)\\ta set\\\\u202e\\t`));
    // JSON lines too: the bidirectional override written as an escape, read back as itself.
    const json = await runCli(["jobs", "list", "--json", "--query", JSON.stringify({ _id: set })], { env });
    expect(json.stdout).not.toContain("\u202e");
    expect(JSON.parse(json.stdout)).toMatchObject({ _id: set, name: "a set\u202e", isEntitySet: true });

    const waited = await runCli(["jobs", "wait", set, "--timeout", "5"], { env });
    expect(waited.code).toBe(1);
    expect(waited.stderr).toContain(`"${set}" is a set of jobs, not a job`);
    expect(waited.stderr).toContain(`{"inSet._id": "${set}"}`);
  });

  it("files --download into a folder that has the files: names --download and --force", async () => {
    // A job with a file of its own, put there as the platform's client uploads one.
    const session = await sessionOn(server);
    const id = ok(await call(server, session, "PUT", "/jobs/create", { body: { name: "uploads" } }))._id as string;
    const { presignedURLs } = ok(
      await call(server, session, "POST", `/jobs/${id}/presigned-urls`, { body: { files: ["pw.in"] } }),
    );
    expect(
      (
        await fetch(at(presignedURLs as { URL: string }[], 0, "the upload URL").URL, {
          method: "PUT",
          body: "&CONTROL\n/\n",
        })
      ).status,
    ).toBe(200);
    const target = join(dir, "uploads");
    const first = await runCli(["jobs", "files", id, "--download", target], { env: login(server) });
    expect(first.code, first.stderr).toBe(0);
    const again = await runCli(["jobs", "files", id, "--download", target], { env: login(server) });
    expect(again.code).toBe(1);
    // jobs has no --output: the flag that named the folder is the one to change.
    expect(again.stderr).toMatch(
      /\nmatframe jobs: \S+pw\.in already exists; pass --force to overwrite it, or choose another --download folder\.\n$/,
    );
    const forced = await runCli(["jobs", "files", id, "--download", target, "--force"], { env: login(server) });
    expect(forced.code, forced.stderr).toBe(0);
  });

  it("reports a job deleted while it is waited on as deleted (exit 4)", async () => {
    const env = login(slow);
    const submitted = await runCli(["jobs", "submit", "--material", "mp-2815", "--workflow", vaspBandGap], { env });
    expect(submitted.code, submitted.stderr).toBe(0);
    const id = submitted.stdout.trim();
    const waiting = startCli(["jobs", "wait", id], { env });
    let progress = "";
    waiting.child.stderr!.on("data", (chunk: string) => (progress += chunk));
    // Seen by the wait (its first poll's line) before it is deleted.
    await vi.waitFor(() => expect(progress).toMatch(/^0\/1 done/m), { timeout: 10_000 });
    const client = await Client.login({ baseUrl: slow.baseUrl, username: "demo", password: "demo" });
    await client.jobs.delete(id);
    await client.logout();
    const waited = await waiting.done;
    expect(waited.code, waited.stderr).toBe(4);
    expect(waited.stdout).toBe(`${id}\tdeleted\tMoS2 Band Gap\n`);
    expect(waited.stderr).toContain(`matframe jobs: job ${id} was deleted while waited on.\n`);
    expect(waited.stderr).toContain(`1 job did not finish: ${id} deleted`);
    // A new wait for it finds no job at its first read: the API error (exit 2), with how to list the jobs.
    const gone = await runCli(["jobs", "wait", id], { env });
    expect([gone.code, gone.stderr]).toEqual([2, expect.stringContaining(`No job "${id}" among the jobs`)]);
  });

  it("--project of the account's own, refused for another reason (its quota): the platform's reason stands", async () => {
    // The default project and one more record fill the quota: the job would be one too many.
    const full = await startTestServer({ quotaRecords: 1 });
    try {
      const client = await Client.login({ baseUrl: full.baseUrl, username: "demo", password: "demo" });
      const projects = await client.projects.list({ query: { "owner._id": client.accountId } });
      const project = at(projects, 0, "demo's default project")._id;
      await client.logout();
      const run = await runCli(
        ["jobs", "submit", "--material", "mp-149", "--workflow", "espresso-total-energy", "--project", project],
        { env: login(full) },
      );
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/quota/);
      expect(run.stderr).not.toContain("names no project");
    } finally {
      await full.close();
    }
  });

  it("says in --help the statuses wait waits for by default, as the code has them", async () => {
    const help = await runCli(["jobs", "--help"]);
    expect(help.code, help.stderr).toBe(0);
    const text = help.stdout.replace(/\s+/g, " ");
    const statuses = FINAL_JOB_STATUSES.join(", ");
    expect(text).toContain(`wait until every job has a final status (${statuses})`);
    expect(text).toContain(`the statuses to wait for (default: ${statuses})`);
  });

  it("uses a login saved by matframe login, and submits jobs created beforehand by their ids", async () => {
    const env = { MATFRAME_CREDENTIALS_FILE: join(dir, "credentials.json") };
    const saved = await runCli(["login", "--base-url", slow.baseUrl, "--username", "demo"], {
      env: { ...env, MATFRAME_PASSWORD: "demo" },
    });
    expect(saved.code, saved.stderr).toBe(0);
    const client = await Client.login({ baseUrl: slow.baseUrl, username: "demo", password: "demo" });
    const material = at(await client.materials.list({ query: { "external.id": "mp-2815" } }), 0, "mp-2815");
    const create = async (name: string) => (await client.jobs.create({ material, workflow: vaspBandGap, name }))._id;
    const [a, b] = [await create("a"), await create("b")];
    const ids = [a, b];
    await client.logout();

    const submitted = await runCli(["jobs", "submit", ...ids], { env });
    expect(submitted.code, submitted.stderr).toBe(0);
    expect(submitted.stdout).toBe(`${ids.join("\n")}\n`);
    expect(submitted.stderr).toMatch(/saved login "default"/);
    const ended = await runCli(["jobs", "terminate", ...ids, "--quiet"], { env });
    expect([ended.code, ended.stderr]).toEqual([0, ""]);
    expect(ended.stdout).toBe(`${a}\tterminated\ta\n${b}\tterminated\tb\n`);
  });

  it("shows a job's name with its control characters written out", async () => {
    const client = await Client.login({ baseUrl: slow.baseUrl, username: "demo", password: "demo" });
    const material = at(await client.materials.list({ projection: { limit: 1 } }), 0, "a material");
    const job = await client.jobs.create({ material, workflow: vaspBandGap, name: "x\u001b]0;owned\u0007y" });
    await client.logout();
    const listed = await runCli(["jobs", "list", "--query", JSON.stringify({ _id: job._id })], { env: login(slow) });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toContain("\u001b");
    expect(listed.stdout).toContain("x\\u001b]0;owned\\u0007y");
  });

  it("says what is wrong with the command line, or with the platform's answer", async () => {
    const env = login(server);
    const reader = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
    const others = await reader.projects.list({ query: { "owner._id": { $ne: reader.accountId } } });
    await reader.logout();
    const publicProject = at(others, 0, "a project demo reads but does not own")._id;
    const cases: [string[], Record<string, string>, number, RegExp][] = [
      [["jobs", "list"], {}, 1, /--base-url is needed: name the platform/],
      [["jobs", "wait"], env, 1, /needs the ids of the jobs/],
      [["jobs", "list", "--password=hunter2"], env, 1, /^matframe jobs: --password is not accepted(?!.*hunter2)/],
      [["jobs", "launch"], env, 1, /takes one of list, submit, wait, terminate, files, not "launch"\. Run/],
      [["jobs", "lst"], env, 1, /takes one of list, submit, wait, terminate, files, not "lst"; did you mean "list"\?/],
      [["jobs", "list", "--download", "x"], env, 1, /--download applies to matframe jobs files, not list/],
      [["jobs", "wait", "x", "--until", "done"], env, 1, /--until takes job statuses/],
      [["jobs", "submit", "--material", "mp-149"], env, 1, /needs both material and workflow/],
      [
        ["jobs", "submit", "--material", "mp-149", "--workflow", "Band Gap"],
        env,
        1,
        /2 bank workflows have the name "Band Gap": .*espresso-band-gap \(espresso\).*; name one by its systemName/,
      ],
      [
        ["jobs", "submit", "--material", "mp-149", "--workflow", "espresso-total-enrgy"],
        env,
        1,
        /No bank workflow has the _id, systemName or name "espresso-total-enrgy"\. Did you mean "espresso-total-energy"\?/,
      ],
      [
        // A CLI user has no call to list the bank: the message lists its systemNames, and names no library call.
        ["jobs", "submit", "--material", "mp-149", "--workflow", "zzzzqqq"],
        env,
        1,
        /No bank workflow has the _id, systemName or name "zzzzqqq"\. The bank's workflows by systemName: (?!.*client\.)[^.]*espresso-band-gap, [^.]*espresso-total-energy, [^.]*vasp-total-energy/,
      ],
      [["jobs", "wait", "no-such-job"], env, 2, /No job "no-such-job".* List yours with `matframe jobs list`\./],
      // Every command that names a job says a wrong id as wait does, not as the request that met it.
      ...(["terminate", "files", "submit"] as const).map(
        (command): [string[], Record<string, string>, number, RegExp] => [
          ["jobs", command, "NOSUCHJOB"],
          env,
          2,
          /^matframe jobs: No job "NOSUCHJOB" among the jobs this account can read: deleted, or not this account's\. List yours with `matframe jobs list`\.$/m,
        ],
      ),
      [
        ["jobs", "files", "NOSUCHJOB", "--download", join(dir, "none")],
        env,
        2,
        /^matframe jobs: No job "NOSUCHJOB" among the jobs this account can read/m,
      ],
      [
        ["jobs", "submit", "--material", "mp-149", "--workflow", "espresso-total-energy", "--project", "nope"],
        env,
        1,
        /^matframe jobs: --project "nope" names no project this account can read \(yours: \w+ "Default"\); leave out --project\.$/m,
      ],
      [
        // A project the account can read but does not own (the public results' project).
        ["jobs", "submit", "--material", "mp-149", "--workflow", "espresso-total-energy", "--project", publicProject],
        env,
        1,
        /^matframe jobs: --project "\w+" is another account's, and a job goes in a project of its own account \(yours: \w+ "Default"\); leave out --project\.$/m,
      ],
      [
        // A display name several bank workflows share would be refused: the suggestion is what it stands for.
        ["jobs", "submit", "--material", "mp-149", "--workflow", "Bandgap"],
        env,
        1,
        /No bank workflow has the _id, systemName or name "Bandgap"\. Did you mean "espresso-band-gap" or "vasp-band-gap"\?/,
      ],
    ];
    for (const [args, extra, code, message] of cases) {
      const run = await runCli(args, { env: extra });
      expect([run.code, run.stderr], args.join(" ")).toEqual([code, expect.stringMatching(message)]);
    }
  });
});
