import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { Client, ResumeError } from "../../src";
import { startServer, type ServerHandle } from "../../src/server";
import { resumePaths } from "../../src/frame/export/resume/progress-files";
import { startFaultServer, type FaultServer, type LoggedRequest } from "../support/fault-server";

// A resumable export takes its lock before it touches any file: a second run of the same export
// is refused before it can delete the first one's progress (`restart`), so the first one ends with
// every row, and nothing is left beside the target.

let server: FaultServer;
let client: Client;
let dir: string;
/** When set, the next page request that `hold.match` accepts waits for `hold.gate`. */
let hold: { match: (r: LoggedRequest) => boolean; reached: () => void; gate: Promise<void> } | undefined;

beforeAll(async () => {
  server = await startFaultServer({
    records: 3000,
    evaluateQueries: true,
    fault: (r) => {
      if (!hold || !r.path.endsWith("/materials") || !hold.match(r)) return undefined;
      const { reached, gate } = hold;
      hold = undefined;
      reached();
      return { kind: "hold", until: gate };
    },
  });
  client = new Client({
    baseUrl: server.baseUrl,
    accountId: server.accountId,
    authToken: server.authToken,
    maxRetries: 0,
  });
  dir = mkdtempSync(join(tmpdir(), "matframe-resume-lock-"));
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const COLUMNS = ["_id", "name"];

/** Holds the first page request after `after` (a record's `_id`) until the returned `release` is called. */
function holdPageAfter(after: string): { reached: Promise<void>; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const arrived = new Promise<void>((resolve) => (reached = resolve));
  hold = { match: (r) => JSON.stringify(r.query ?? {}).includes(`"$gt":"${after}"`), reached, gate };
  return { reached: arrived, release };
}

/** Everything beside the targets in `dir` whose name mentions `name`: progress files left over. */
function leftovers(name: string): string[] {
  return readdirSync(dir).filter((entry) => entry.includes(name) && entry !== name);
}

describe("a resumable export refused because another run writes it", () => {
  it("one file: the refused restart changes nothing, and the running export ends with every row", async () => {
    const target = join(dir, "one.csv");
    const { reached, release } = holdPageAfter("m000999");
    const first = client.materials.exportCsv(target, { columns: COLUMNS, pageSize: 100, resume: true });
    await reached;
    const partial = resumePaths(target).partial;
    const second = await client.materials
      .exportCsv(target, { columns: COLUMNS, pageSize: 100, resume: true, restart: true })
      .catch((e: unknown) => e);
    expect(second).toBeInstanceOf(ResumeError);
    expect((second as Error).message).toMatch(
      new RegExp(`Another export \\(process ${process.pid}\\) is writing .*one\\.csv; nothing of it was changed`),
    );
    // restart was given, and cannot take a running export's output: it is not suggested again.
    expect((second as Error).message).not.toMatch(/restart/);
    // Still there: on its last page's write (which may still be landing), the running export goes on.
    expect(existsSync(partial)).toBe(true);
    release();
    const result = await first;
    expect(result.items).toBe(3000);
    const lines = readFileSync(target, "utf8").trim().split("\n");
    expect(lines).toHaveLength(3001);
    expect(new Set(lines).size).toBe(3001);
    expect(leftovers("one.csv")).toEqual([]);
  });

  it("a dataset folder: one lock for all its parts; the refused restart leaves every part of the running export", async () => {
    const target = join(dir, "parts");
    // Held in the second part's walk, after the first part has had time to write.
    const { reached, release } = holdPageAfter("m002099");
    const first = client.materials.exportCsv(target, { columns: COLUMNS, pageSize: 100, partitions: 2, resume: true });
    await reached;
    expect(existsSync(resumePaths(target).lock)).toBe(true);
    const second = await client.materials
      .exportCsv(target, { columns: COLUMNS, pageSize: 100, partitions: 2, resume: true, restart: true })
      .catch((e: unknown) => e);
    expect(second).toBeInstanceOf(ResumeError);
    expect((second as Error).message).toMatch(/Another export .* is writing .*parts; nothing of it was changed/);
    expect(existsSync(resumePaths(target).partial)).toBe(true);
    expect(existsSync(resumePaths(target).state)).toBe(true);
    release();
    const result = await first;
    expect(result.items).toBe(3000);
    const rows = readdirSync(target).flatMap((name) =>
      readFileSync(join(target, name), "utf8").trim().split("\n").slice(1),
    );
    expect(rows).toHaveLength(3000);
    expect(new Set(rows).size).toBe(3000);
    // No part keeps a state or lock file of its own, and nothing is left beside the folder.
    expect(readdirSync(target).sort()).toEqual(["_SUCCESS", "part-0000.csv", "part-0001.csv"]);
    expect(leftovers("parts")).toEqual([]);
  });
});

describe("a structure folder whose lock another process holds", () => {
  let local: ServerHandle;
  let platform: Client;
  beforeAll(async () => {
    local = await startServer({ port: 0 });
    platform = await Client.login({ baseUrl: local.baseUrl, username: "demo", password: "demo" });
  });
  afterAll(async () => {
    await platform?.logout();
    await local?.close();
  });

  it("is refused with restart before its saved progress is touched, and continues once the lock is free", async () => {
    const target = join(dir, "structures");
    const controller = new AbortController();
    await platform.materials
      .exportStructures(target, {
        format: "cif",
        pageSize: 4,
        resume: true,
        signal: controller.signal,
        onWarning: () => {},
        onProgress: (p) => p.pages >= 2 && controller.abort(),
      })
      .catch(() => undefined);
    const { partial, lock } = resumePaths(target);
    const saved = readdirSync(partial).sort();
    expect(saved).toContain(".index.csv.matframe-resume.json");
    // A live process, until it is killed (it reads its stdin, which stays open): no timer that could run out.
    const holder = spawn(process.execPath, ["-e", "process.stdin.resume()"], { stdio: ["pipe", "ignore", "ignore"] });
    try {
      writeFileSync(lock, String(holder.pid));
      const refused = await platform.materials
        .exportStructures(target, { format: "cif", pageSize: 4, resume: true, restart: true, onWarning: () => {} })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ResumeError);
      expect((refused as Error).message).toMatch(new RegExp(`Another export \\(process ${holder.pid}\\) is writing`));
      expect(readdirSync(partial).sort()).toEqual(saved);
    } finally {
      holder.kill();
    }
    await new Promise((resolve) => holder.once("exit", resolve));
    const result = await platform.materials.exportStructures(target, {
      format: "cif",
      pageSize: 4,
      resume: true,
      onWarning: () => {},
    });
    expect(result.resumedFrom).toBeGreaterThan(0);
    expect(readdirSync(target)).toHaveLength(result.items + 1);
    expect(leftovers("structures")).toEqual([]);
  });
});
