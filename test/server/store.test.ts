import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ServerOptionsError } from "../../src";
import type { ServerHandle } from "../../src/server";
import { listMaterials, login, PREFIX, rawRequest, startTestServer, type Session } from "./helpers";

// Issue 16: with a store (--store DIR), written records survive a restart and a kill -9 in the
// middle of writing: every acknowledged write is there, whole, and nothing is torn.

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "matframe-store-"));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function json(
  server: ServerHandle | { port: number },
  method: string,
  route: string,
  session: Session,
  body?: unknown,
) {
  return rawRequest(server as ServerHandle, method, `${PREFIX}${route}`, {
    headers: { ...session, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Every record the account owns, paged by _id. */
async function ownRecords(server: ServerHandle | { port: number }, session: Session): Promise<Record<string, any>[]> {
  const out: Record<string, any>[] = [];
  for (let skip = 0; ; skip += 500) {
    const res = await listMaterials(
      server as ServerHandle,
      session,
      // The records this test wrote: not the account's default material, which serve makes with it.
      { "owner._id": session["X-Account-Id"], isDefault: { $ne: true } },
      { skip, limit: 500 },
    );
    if (res.status !== 200) throw new Error(`list failed: ${res.status} ${res.text.slice(0, 200)}`);
    out.push(...res.body.data);
    if (res.body.data.length < 500) return out;
  }
}

describe("startServer({ store })", () => {
  it("refuses a second server on a store in use, and takes over the lock of one that was killed", async () => {
    const store = freshDir();
    const first = await startTestServer({ store });
    try {
      await expect(startTestServer({ store })).rejects.toThrow(
        /The store .* is in use by another matframe server \(process \d+\); stop that one, or give this server another store directory/,
      );
    } finally {
      await first.close();
    }
    // A lock whose process is gone (a kill -9) does not keep the store closed.
    const { spawnSync } = await import("node:child_process");
    writeFileSync(path.join(store, "matframe-serve.lock"), String(spawnSync(process.execPath, ["-e", "0"]).pid));
    const again = await startTestServer({ store });
    await again.close();
    expect(existsSync(path.join(store, "matframe-serve.lock"))).toBe(false);
  });

  it("keeps created, updated and deleted records across a restart", async () => {
    const store = freshDir();
    let server = await startTestServer({ store });
    let session = await login(server);
    const kept = (await json(server, "PUT", "/materials/create", session, { name: "kept", tags: ["t"] })).body.data;
    const changed = (await json(server, "PUT", "/materials/create", session, { name: "before" })).body.data;
    const gone = (await json(server, "PUT", "/materials/create", session, { name: "gone" })).body.data;
    const copied = (await json(server, "POST", `/materials/${kept._id}/copy`, session)).body.data;
    const updated = (
      await json(server, "PATCH", `/materials/${changed._id}`, session, {
        $set: { name: "after" },
        $push: { tags: "x" },
      })
    ).body.data;
    expect((await json(server, "DELETE", `/materials/${gone._id}`, session)).status).toBe(200);
    await server.close();

    server = await startTestServer({ store });
    try {
      session = await login(server);
      const records = await ownRecords(server, session);
      const byId = new Map(records.map((r) => [r._id, r]));
      expect(byId.get(kept._id)).toEqual(kept);
      expect(byId.get(changed._id)).toEqual(updated);
      expect(byId.get(copied._id)).toEqual(copied);
      expect(byId.has(gone._id)).toBe(false);
      expect(records).toHaveLength(3);
      expect((await json(server, "GET", `/materials/${kept._id}`, session)).body.data).toEqual(kept);
    } finally {
      await server.close();
    }
  });

  it("keeps nothing without a store", async () => {
    let server = await startTestServer();
    let session = await login(server);
    expect((await json(server, "PUT", "/materials/create", session, { name: "ephemeral" })).status).toBe(200);
    await server.close();
    server = await startTestServer();
    try {
      session = await login(server);
      expect(await ownRecords(server, session)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("refuses a store that is not a directory path", async () => {
    await expect(startTestServer({ store: "" })).rejects.toThrow(/store must be the path of a directory/);
  });

  it("refuses a file as the store, or in the store's path, saying to give a folder", async () => {
    const file = path.join(freshDir(), "notes.txt");
    writeFileSync(file, "not a folder\n");
    for (const [store, said] of [
      [file, `The store ${file} is a file, not a folder`],
      [path.join(file, "store"), `The store ${path.join(file, "store")} cannot be made: ${file} in its path is a file`],
    ] as const) {
      const error = await startTestServer({ store }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, store).toBeInstanceOf(ServerOptionsError);
      expect((error as ServerOptionsError).option).toBe("store");
      expect((error as Error).message).toContain(said);
      expect((error as Error).message).toMatch(
        /give the path of a folder \(one that does not exist yet is created\)\.$/,
      );
      expect((error as Error).message).not.toMatch(/EEXIST|ENOTDIR|mkdir/);
    }
    expect(readFileSync(file, "utf8")).toBe("not a folder\n");
  });
});

// The built CLI, as users run it (npm test builds dist/ first). MATFRAME_DIST points at another
// build, for a run while dist/ is being rebuilt by someone else.
const DIST = process.env.MATFRAME_DIST ?? path.join(__dirname, "..", "..", "dist");
const BIN = path.join(DIST, "cli", "main.js");

interface Serve {
  child: ChildProcessWithoutNullStreams;
  port: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function serve(store: string): Promise<Serve> {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first (or set MATFRAME_DIST).`);
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--quiet", "--store", store]);
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stderr })),
  );
  return new Promise((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (chunk) => {
      text += chunk;
      const end = text.indexOf("\n");
      if (end !== -1) resolve({ child, port: Number(new URL(text.slice(0, end)).port), exited });
    });
    void exited.then((f) =>
      reject(new Error(`matframe serve exited (${f.code ?? f.signal}) before printing its URL: ${f.stderr}`)),
    );
  });
}

/** A record that can tell whether it is whole: its check is the hash of everything else. */
function sealed(i: number, writer: number): Record<string, unknown> {
  const body = {
    name: `kill-${writer}-${i}`,
    payload: `${writer}:${i}:`.padEnd(4000, String.fromCharCode(97 + (i % 26))),
    list: Array.from({ length: 50 }, (_, k) => k * i),
  };
  return { ...body, check: createHash("sha256").update(JSON.stringify(body)).digest("hex") };
}

function isWhole(record: Record<string, any>): boolean {
  const { name, payload, list, check } = record;
  return createHash("sha256").update(JSON.stringify({ name, payload, list })).digest("hex") === check;
}

describe("matframe serve --store and kill -9", () => {
  it("after a SIGKILL in the middle of writes, every acknowledged record is there whole and none is torn", async () => {
    const store = freshDir();
    const first = await serve(store);
    const session = await login(first as unknown as ServerHandle);
    const acknowledged = new Map<string, Record<string, unknown>>();
    const updates = new Map<string, number>();
    let stop = false;
    // Resolved by the writer whose answer makes the 150th acknowledged record: the moment to kill.
    let manyAcknowledged!: () => void;
    const enoughWritten = new Promise<void>((resolve) => (manyAcknowledged = resolve));
    const writer = async (w: number) => {
      for (let i = 0; !stop; i += 1) {
        try {
          const res = await json(first, "PUT", "/materials/create", session, sealed(i, w));
          if (res.status === 200) acknowledged.set(res.body.data._id, res.body.data);
          if (acknowledged.size >= 150) manyAcknowledged();
          // Two fields changed in one update: after the crash both or neither have changed.
          if (res.status === 200 && i % 3 === 0) {
            const up = await json(first, "PATCH", `/materials/${res.body.data._id}`, session, { $set: { a: i, b: i } });
            if (up.status === 200) updates.set(res.body.data._id, i);
          }
        } catch {
          return; // the server is gone
        }
      }
    };
    const writers = Array.from({ length: 6 }, (_, w) => writer(w));
    // Kill once a good number of writes are through, while the writers are still going.
    await Promise.race([
      enoughWritten,
      Promise.all(writers).then(() => {
        // Settles after the kill too (the writers end when the server goes): no failure then.
        if (acknowledged.size < 150)
          throw new Error(`the writers stopped after ${acknowledged.size} acknowledged records, before 150`);
      }),
    ]);
    first.child.kill("SIGKILL");
    const killed = await first.exited;
    stop = true;
    await Promise.all(writers);
    expect(killed.signal).toBe("SIGKILL");

    const second = await serve(store);
    try {
      const again = await login(second as unknown as ServerHandle);
      expect(again["X-Account-Id"]).toBe(session["X-Account-Id"]);
      const records = await ownRecords(second, again);
      const byId = new Map(records.map((r) => [r._id, r]));
      for (const record of records) expect(isWhole(record), `record ${record._id} is torn`).toBe(true);
      for (const record of records) expect(record.a, `record ${record._id} is half-updated`).toBe(record.b);
      for (const [id, record] of acknowledged) {
        expect(byId.has(id), `acknowledged record ${id} is missing`).toBe(true);
        expect(byId.get(id)!.check).toBe(record.check);
      }
      for (const [id, value] of updates) expect(byId.get(id)!.a).toBe(value);
      expect(records.length).toBeGreaterThanOrEqual(acknowledged.size);
    } finally {
      second.child.kill("SIGTERM");
      await second.exited;
    }
  });

  it("says a file given as --store is no folder, and exits 1", async () => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first (or set MATFRAME_DIST).`);
    const file = path.join(freshDir(), "store.txt");
    writeFileSync(file, "");
    const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--store", file]);
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(1);
    expect(stderr).toBe(
      `matframe serve: The store ${file} is a file, not a folder: the store is a folder of its own, for the database and the jobs' files; ` +
        "give the path of a folder (one that does not exist yet is created). (on the command line: --store)\n",
    );
  });

  it("says which package to install when lmdb is missing, and exits 1", async () => {
    const dir = freshDir();
    const hook = path.join(dir, "no-lmdb.js");
    // Makes lmdb unresolvable in the child, as on an install without optional dependencies.
    writeFileSync(
      hook,
      `const M = require("node:module"); const r = M._resolveFilename;
       M._resolveFilename = function (request, ...rest) {
         if (request === "lmdb") { const e = new Error("Cannot find module 'lmdb'"); e.code = "MODULE_NOT_FOUND"; throw e; }
         return r.call(this, request, ...rest);
       };`,
    );
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first (or set MATFRAME_DIST).`);
    const child = spawn(process.execPath, [
      "-r",
      hook,
      BIN,
      "serve",
      "--port",
      "0",
      "--store",
      path.join(dir, "store"),
    ]);
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /store .*needs the optional package lmdb.*npm install lmdb.*\(on the command line: --store\)/s,
    );
  });
});
