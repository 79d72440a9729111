import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
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
  utimesSync,
  writeFileSync,
} from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openCache, type ResponseCache } from "../../src/client/transport/response-cache";
import { Client, ValidationError } from "../../src";

// The directory cache evicts the least recently used answers (a hit, and so every 304, counts as
// a use), and the requests it serves wait only for asynchronous file calls.

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "matframe-dir-cache-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const MiB = 1024 * 1024;
/** An answer of about 400 KB: three of them pass a 1 MiB cache, two fit under its 80% trim mark. */
const answer = (tag: string) => ({ etag: `"${tag}"`, text: tag.repeat(400_000 / tag.length) });
const kept = (dir: string, key: string) => existsSync(join(dir, `${key}.json`));
/** Keys are hashes in real use; any file-safe name works here. */
const KEYS = { a: "a".repeat(64), b: "b".repeat(64), c: "c".repeat(64) };

describe("the directory cache's order", () => {
  it("evicts the least recently used, not the oldest written: a hit keeps an answer", async () => {
    const dir = join(root, "order");
    const cache: ResponseCache = openCache({ dir, maxBytes: MiB });
    await cache.set(KEYS.a, answer("A"));
    await cache.set(KEYS.b, answer("B"));
    expect((await cache.get(KEYS.a))?.etag).toBe('"A"'); // A is used again (as a 304 uses it)
    await cache.set(KEYS.c, answer("C"));
    expect([kept(dir, KEYS.a), kept(dir, KEYS.b), kept(dir, KEYS.c)]).toEqual([true, false, true]);
    expect(await cache.get(KEYS.b)).toBeUndefined();
    expect(cache.sizeOf(KEYS.b)).toBeUndefined();
    expect(cache.sizeOf(KEYS.a)).toBeGreaterThan(390_000);
  });

  it("keeps the order across a restart: a use sets the file's time", async () => {
    const dir = join(root, "restart");
    const first = openCache({ dir, maxBytes: MiB });
    await first.set(KEYS.a, answer("A"));
    await first.set(KEYS.b, answer("B"));
    // Written a minute apart, A first: set explicitly, as file times of a coarse clock can tie.
    const fileOf = (key: string) => join(dir, `${key}.json`);
    const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
    utimesSync(fileOf(KEYS.a), minutesAgo(2), minutesAgo(2));
    utimesSync(fileOf(KEYS.b), minutesAgo(1), minutesAgo(1));
    await first.get(KEYS.a);
    // The file's time is set after the answer is handed on (nothing to await): wait until it shows.
    await vi.waitFor(() => expect(statSync(fileOf(KEYS.a)).mtimeMs).toBeGreaterThan(statSync(fileOf(KEYS.b)).mtimeMs));
    // A new process: the order comes from the files' times, where A's use was recorded.
    const later = openCache({ dir, maxBytes: MiB });
    await later.set(KEYS.c, answer("C"));
    expect([kept(dir, KEYS.a), kept(dir, KEYS.b), kept(dir, KEYS.c)]).toEqual([true, false, true]);
  });
});

describe("the directory cache on the request path", () => {
  it("makes no synchronous file call while a client reads and revalidates through it", () => {
    const dir = join(root, "sync");
    const index = join(__dirname, "../../dist/index.js");
    const serverEntry = join(__dirname, "../../dist/server/index.js");
    const internals = join(__dirname, "../../dist/client/client-internals.js");
    // Node prints a trace for each synchronous I/O call made after the first turn of the event
    // loop (--trace-sync-io); none may come from the cache.
    const script = `
      const { Client } = require(${JSON.stringify(index)});
      const { startServer } = require(${JSON.stringify(serverEntry)});
      const { internalsOf } = require(${JSON.stringify(internals)});
      (async () => {
        const server = await startServer({ port: 0 });
        const login = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
        const { accountId } = login;
        const client = new Client({ baseUrl: server.baseUrl, ...internalsOf(login).savedCredentials(), cache: { dir: ${JSON.stringify(dir)} } });
        for (let i = 0; i < 2; i++) for await (const _ of client.materials.iterate({ pageSize: 10 })) {}
        await client.close();
        await server.close();
        process.stdout.write("done " + accountId.length + "\\n");
      })();
    `;
    const run = spawnSync(process.execPath, ["--trace-sync-io", "-e", script], { encoding: "utf8" });
    expect(run.stdout, run.stderr).toContain("done");
    const traces = run.stderr.split("WARNING: Detected use of sync API").slice(1);
    // Making the client creates the directory (synchronously, so that a bad dir fails there).
    expect(traces.filter((trace) => trace.includes("response-cache") && !trace.includes("openCache"))).toEqual([]);
    // The check itself works: the server's start does make such calls, and they are reported.
    expect(run.stderr).toContain("WARNING: Detected use of sync API");
  });
});

// The cache holds the account's records: a folder others may write would let them plant a link
// where an entry or its temporary file goes (and receive the records), or answers of their own.
describe("the directory cache's folder", () => {
  const posix = process.getuid !== undefined;

  it.runIf(posix)("is refused when others may write to it, saying how to make it private", () => {
    const dir = join(root, "shared");
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const make = () =>
      new Client({ baseUrl: "http://127.0.0.1:9/api/2018-10-01", accountId: "a", authToken: "t", cache: { dir } });
    expect(make).toThrow(ValidationError);
    expect(make).toThrow(/cache\.dir ".*shared" cannot be used: other users may write to it \(mode 777\).*chmod 700/);
    chmodSync(dir, 0o770);
    expect(make).toThrow(/mode 770/);
    chmodSync(dir, 0o700);
    expect(make).not.toThrow();
  });

  it("is made private when it does not exist", () => {
    const dir = join(root, "new", "cache");
    openCache({ dir });
    expect(statSync(dir).mode & 0o077).toBe(0);
  });

  it.runIf(posix)(
    "is written through random, exclusive temporary files: links planted at guessable names receive nothing",
    async () => {
      const dir = join(root, "planted");
      const cache = openCache({ dir });
      const outside = join(root, "stolen.txt");
      writeFileSync(outside, "nothing yet");
      // The names the cache once used (pid and a counter), planted before any write.
      for (let n = 1; n <= 20; n++) symlinkSync(outside, join(dir, `.${KEYS.a}.${process.pid}.${n}.tmp`));
      await cache.set(KEYS.a, answer("SECRET"));
      expect(readFileSync(outside, "utf8")).toBe("nothing yet");
      expect((await cache.get(KEYS.a))?.etag).toBe('"SECRET"');
      // No temporary file of the cache's own is left behind.
      expect(readdirSync(dir).filter((name) => name.endsWith(".tmp") && !name.includes(`.${process.pid}.`))).toEqual(
        [],
      );
    },
  );

  it.runIf(posix)("reads no entry through a link", async () => {
    const dir = join(root, "linked-entry");
    const outside = join(root, "forged.json");
    writeFileSync(outside, '"forged"\n[{"_id":"x"}]');
    mkdirSync(dir, { mode: 0o700 });
    symlinkSync(outside, join(dir, `${KEYS.b}.json`));
    const cache = openCache({ dir });
    expect(await cache.get(KEYS.b)).toBeUndefined();
  });
});
