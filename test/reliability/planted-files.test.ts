import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  openSync,
  writeSync,
  closeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { Client, CredentialsFileError, ResumeError } from "../../src";
import { startServer } from "../../src/server";
import { readProfile, saveProfile } from "../../src/client/config/profile";
import { resumePaths } from "../../src/frame/export/resume/progress-files";
import { startFaultServer, type FaultServer } from "../support/fault-server";
import { at } from "../support/checked";
import { runCli, startServe } from "./support/cli";

// The files matframe keeps on disk, attacked as an outside probe did: a damaged store, a lock
// left by a former process with the same pid, symlinks planted where matframe writes, and a
// resume state edited by hand. Each case failed before the fix (a signal, a refusal for ever, a
// victim file overwritten or deleted, an export that ended short with exit 0).

let dir: string;
let server: FaultServer;
let client: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "matframe-planted-"));
  server = await startFaultServer({ records: 2000, evaluateQueries: true });
  client = new Client({
    baseUrl: server.baseUrl,
    accountId: server.accountId,
    authToken: server.authToken,
    maxRetries: 0,
  });
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const COLUMNS = ["_id", "name", "formula", "n"];

function fresh(name: string): string {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true, mode: 0o700 });
  return path;
}

/** A store with some written records, then closed. */
async function filledStore(name: string): Promise<string> {
  const store = fresh(name);
  const local = await startServer({ port: 0, store });
  const session = await Client.login({ baseUrl: local.baseUrl, username: "demo", password: "demo" });
  for (let i = 0; i < 200; i++) await session.materials.create({ name: `kept ${i}`, tags: ["x".repeat(200)] });
  await session.logout();
  await local.close();
  return store;
}

describe("matframe serve --store on a damaged store", () => {
  let good: string;
  beforeAll(async () => {
    good = await filledStore("good-store");
  }, 60_000);

  const damages: [string, (file: string) => void][] = [
    ["truncated", (file) => truncateSync(file, Math.floor(statSync(file).size / 2))],
    ["cut inside its header", (file) => truncateSync(file, 5000)],
    ["not an LMDB file", (file) => writeFileSync(file, Buffer.alloc(40_000, 0x5a))],
    [
      "corrupt in the middle",
      (file) => {
        const fd = openSync(file, "r+");
        const pages = Math.floor(statSync(file).size / 4096);
        const junk = Buffer.alloc(4096);
        for (let i = 0; i < junk.length; i++) junk[i] = (i * 7919 + 13) & 0xff;
        for (let page = 2; page < pages; page++) writeSync(fd, junk, 0, junk.length, page * 4096);
        closeSync(fd);
      },
    ],
  ];

  it.each(damages)("%s: exits 1 with a message saying what to do, never a signal", async (_name, damage) => {
    const store = fresh(`damaged-${_name.replace(/\W+/g, "-")}`);
    for (const file of readdirSync(good))
      if (file.startsWith("materials.mdb"))
        writeFileSync(join(store, file), readFileSync(join(good, file)), { mode: 0o600 });
    damage(join(store, "materials.mdb"));
    const run = await runCli(["serve", "--port", "0", "--store", store]);
    expect(run.signal).toBeNull();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /The store .*materials\.mdb is damaged: .*Restore it from a backup, or move its directory away/,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("keeps its folder 0700 and its files 0600 (they hold every account's records), and refuses a folder others can write", async () => {
    const store = join(dir, "private-store");
    const serve = await startServe(["--store", store]);
    await serve.stop();
    expect(statSync(store).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(store))
      expect({ name, mode: statSync(join(store, name)).mode & 0o777 }).toEqual({ name, mode: 0o600 });
    chmodSync(store, 0o777);
    const refused = await runCli(["serve", "--port", "0", "--store", store]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/can be written by other users \(mode 777\).*chmod 700/);
  });
});

describe("a lock whose holder is gone, though its pid is in use", () => {
  it("serve --store: a lock holding this process's own pid (a container restarted as PID 1) is taken over", async () => {
    const store = fresh("own-pid-store");
    writeFileSync(join(store, "matframe-serve.lock"), String(process.pid));
    const local = await startServer({ port: 0, store });
    await local.close();
    // And a lock this very process holds is still refused.
    const first = await startServer({ port: 0, store });
    try {
      await expect(startServer({ port: 0, store })).rejects.toThrow(
        new RegExp(`in use by another matframe server \\(process ${process.pid}\\)`),
      );
    } finally {
      await first.close();
    }
  });

  it("export --resume: a lock of a live process that started after the lock was written (a reused pid) is taken over", async () => {
    const target = join(dir, "reused-pid.csv");
    const sleeper = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    try {
      const { lock } = resumePaths(target);
      // The lock names the sleeper's pid with another start time: the process that wrote it has ended.
      writeFileSync(lock, JSON.stringify({ pid: sleeper.pid, start: "1", token: "former" }));
      const result = await client.materials.exportCsv(target, { columns: COLUMNS, resume: true });
      expect(result.items).toBe(2000);
      // The same pid in the old format (no start time) cannot be told apart: refused.
      const again = join(dir, "reused-pid-2.csv");
      writeFileSync(resumePaths(again).lock, String(sleeper.pid));
      await expect(client.materials.exportCsv(again, { columns: COLUMNS, resume: true })).rejects.toThrow(
        new RegExp(`Another export \\(process ${sleeper.pid}\\)`),
      );
      writeFileSync(resumePaths(again).lock, String(process.pid));
      expect((await client.materials.exportCsv(again, { columns: COLUMNS, resume: true })).items).toBe(2000);
    } finally {
      sleeper.kill();
    }
  });
});

describe("symlinks planted where matframe writes", () => {
  it("the credentials save never writes through a planted link, and a folder others can write is refused", () => {
    const folder = fresh("profile");
    const file = join(folder, "credentials.json");
    const victim = join(dir, "victim-credentials.txt");
    writeFileSync(victim, "precious\n");
    // The temporary name the save used to take, planted as a link to the victim.
    symlinkSync(victim, join(folder, `.credentials.json.${process.pid}.tmp`));
    const env = { MATFRAME_CREDENTIALS_FILE: file };
    saveProfile(
      "default",
      { baseUrl: "http://127.0.0.1:1/api/2018-10-01", accountId: "a", authToken: "tok-planted-123456" },
      env,
    );
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(readProfile("default", env)?.accountId).toBe("a");
    chmodSync(folder, 0o777);
    expect(() => readProfile("default", env)).toThrow(CredentialsFileError);
    expect(() => readProfile("default", env)).toThrow(/can be written by other users \(mode 777\).*chmod 700/);
    expect(() =>
      saveProfile("other", { baseUrl: "http://x/api/2018-10-01", accountId: "b", authToken: "t" }, env),
    ).toThrow(/can be written by other users/);
  });

  it("a resumable export removes a planted partial file link and a planted state temporary link instead of writing through them", async () => {
    const target = join(dir, "planted.csv");
    const { partial, state } = resumePaths(target);
    const victim = join(dir, "victim.txt");
    writeFileSync(victim, "precious\n");
    symlinkSync(victim, partial);
    symlinkSync(victim, `${state}.${process.pid}.tmp`);
    const result = await client.materials.exportCsv(target, { columns: COLUMNS, resume: true, pageSize: 100 });
    expect(result.items).toBe(2000);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(parse(readFileSync(target, "utf8"), { columns: true })).toHaveLength(2000);
  });

  it("a structure export refuses a progress directory that is a planted link, and leaves the victim folder's files alone", async () => {
    const local = await startServer({ port: 0 });
    const platform = await Client.login({ baseUrl: local.baseUrl, username: "demo", password: "demo" });
    try {
      const target = join(dir, "structures");
      const victim = fresh("victim-folder");
      writeFileSync(join(victim, "thesis.tex"), "years of work\n");
      symlinkSync(victim, resumePaths(target).partial);
      await expect(
        platform.materials.exportStructures(target, { format: "cif", resume: true, onWarning: () => {} }),
      ).rejects.toThrow(
        /progress directory .* is a symbolic link, not one matframe made; matframe will not write through it/,
      );
      expect(readdirSync(victim)).toEqual(["thesis.tex"]);
      expect(existsSync(target)).toBe(false);
    } finally {
      await platform.logout();
      await local.close();
    }
  });
});

describe("a resume state edited by hand", () => {
  async function interrupted(name: string): Promise<{ target: string; state: string }> {
    const target = join(dir, name);
    const controller = new AbortController();
    await client.materials
      .exportCsv(target, {
        columns: COLUMNS,
        pageSize: 100,
        resume: true,
        signal: controller.signal,
        onProgress: (p) => p.items >= 800 && controller.abort(new Error("link lost")),
      })
      .catch(() => undefined);
    return { target, state: resumePaths(target).state };
  }

  it.each([
    [
      "a cursor moved 500 records ahead",
      (s: any) => ({
        ...s,
        progress: {
          ...s.progress,
          cursor: at(
            server.records,
            server.records.findIndex((r) => r._id === s.progress.cursor) + 500,
            "the record 500 past the cursor",
          )._id,
        },
      }),
    ],
    ["a cursor that is not a record id", (s: any) => ({ ...s, progress: { ...s.progress, cursor: "zzzzzzzz" } })],
    ["a record count changed", (s: any) => ({ ...s, progress: { ...s.progress, items: s.progress.items + 100 } })],
  ])("%s is refused with a message, and the CLI exits non-zero with no file at the target", async (name, edit) => {
    const { target, state } = await interrupted(`${name.replace(/\W+/g, "-")}.csv`);
    const saved = JSON.parse(readFileSync(state, "utf8"));
    writeFileSync(state, JSON.stringify(edit(saved)));
    await expect(client.materials.exportCsv(target, { columns: COLUMNS, resume: true })).rejects.toThrow(ResumeError);
    await expect(client.materials.exportCsv(target, { columns: COLUMNS, resume: true })).rejects.toThrow(
      /does not match its checksum: it was changed after matframe wrote it.*Pass restart: true to discard it/,
    );
    const run = await runCli(
      [
        "export",
        "--base-url",
        server.origin,
        "--format",
        "csv",
        "--output",
        target,
        "--columns",
        COLUMNS.join(","),
        "--resume",
      ],
      {
        env: { MATFRAME_ACCOUNT_ID: server.accountId, MATFRAME_AUTH_TOKEN: server.authToken },
      },
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/does not match its checksum/);
    expect(existsSync(target)).toBe(false);
    // Starting over gives every record.
    const result = await client.materials.exportCsv(target, { columns: COLUMNS, resume: true, restart: true });
    expect(parse(readFileSync(target, "utf8"), { columns: true })).toHaveLength(result.items);
    expect(result.items).toBe(2000);
  });

  it("an untouched state still resumes to every record", async () => {
    const { target } = await interrupted("untouched.csv");
    const result = await client.materials.exportCsv(target, { columns: COLUMNS, resume: true });
    expect(result.items).toBe(2000);
    expect(result.resumedFrom).toBeGreaterThan(0);
  });
});
