import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { Client, ResumeError, ValidationError } from "../../src";
import { startServer, type ServerHandle } from "../../src/server";
import { resumePaths } from "../../src/frame/export/resume/progress-files";
import { fromTaggedJson, toTaggedJson } from "../../src/frame/export/resume/tagged-json";
import { startFaultServer, type FaultServer } from "../support/fault-server";
import { at } from "../support/checked";

// Resumable exports (issue 17): an export interrupted part-way keeps its progress beside the
// target; a run with the same request continues from the cursor and ends with the same bytes as
// an uninterrupted export of the same data.

let server: FaultServer;
let client: Client;
let dir: string;
let duck: DuckDBConnection;

beforeAll(async () => {
  server = await startFaultServer({ records: 3000, evaluateQueries: true });
  client = new Client({
    baseUrl: server.baseUrl,
    accountId: server.accountId,
    authToken: server.authToken,
    maxRetries: 0,
  });
  dir = mkdtempSync(join(tmpdir(), "matframe-resume-"));
  duck = await (await DuckDBInstance.create(":memory:")).connect();
});

afterAll(async () => {
  duck?.closeSync();
  await client?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const COLUMNS = ["_id", "name", "formula", "n"];

/** Options that stop the export once `after` records are written (as a lost connection would). */
function stopAfter(after: number): { signal: AbortSignal; onProgress: (p: { items: number }) => void } {
  const controller = new AbortController();
  return { signal: controller.signal, onProgress: (p) => p.items >= after && controller.abort(new Error("link lost")) };
}

function listRequests(): typeof server.requests {
  return server.requests.filter((r) => r.path.endsWith("/materials"));
}

function insertRecord(_id: string, name: string): void {
  const at = server.records.findIndex((m) => m._id > _id);
  server.records.splice(at === -1 ? server.records.length : at, 0, { _id, name, formula: "Si", n: -1 });
}

describe("a resumed table export", () => {
  it.each(["csv", "ndjson"] as const)(
    "%s: continues from the cursor and ends byte for byte as an uninterrupted export",
    async (format) => {
      const reference = join(dir, `reference.${format}`);
      const target = join(dir, `resumed.${format}`);
      const run =
        format === "csv"
          ? client.materials.exportCsv.bind(client.materials)
          : client.materials.exportNdjson.bind(client.materials);
      await run(reference, { columns: COLUMNS, pageSize: 100, paging: "keyset" });

      const error = await run(target, { columns: COLUMNS, pageSize: 100, resume: true, ...stopAfter(1200) }).catch(
        (e: unknown) => e,
      );
      expect((error as Error).name).toBe("AbortError");
      expect(existsSync(target)).toBe(false);
      const { partial, state } = resumePaths(target);
      expect(existsSync(partial) && existsSync(state)).toBe(true);
      const saved = JSON.parse(readFileSync(state, "utf8"));
      expect(saved.progress.items).toBe(1200);

      const before = listRequests().length;
      const result = await run(target, { columns: COLUMNS, pageSize: 100, resume: true });
      expect(result.items).toBe(3000);
      expect(result.resumedFrom).toBe(1200);
      expect(readFileSync(target)).toEqual(readFileSync(reference));
      // The second run asked only for what came after the cursor.
      const first = at(listRequests(), before, "the requests");
      expect(JSON.stringify(first.query)).toContain(`"$gt":"${saved.progress.cursor}"`);
      expect(listRequests().length - before).toBe(18 + 1); // 1,800 records left, then the empty page
      expect(existsSync(partial) || existsSync(state)).toBe(false);
    },
  );

  it("keeps maxItems across runs", async () => {
    const reference = join(dir, "max-reference.csv");
    const target = join(dir, "max.csv");
    await client.materials.exportCsv(reference, { columns: COLUMNS, pageSize: 100, paging: "keyset", maxItems: 1550 });
    await client.materials
      .exportCsv(target, { columns: COLUMNS, pageSize: 100, resume: true, maxItems: 1550, ...stopAfter(700) })
      .catch(() => undefined);
    const result = await client.materials.exportCsv(target, {
      columns: COLUMNS,
      pageSize: 100,
      resume: true,
      maxItems: 1550,
    });
    expect(result.items).toBe(1550);
    expect(readFileSync(target, "utf8")).toBe(readFileSync(reference, "utf8"));
  });

  it("sees records added after the cursor between the runs, not those added before it (keyset paging)", async () => {
    const target = join(dir, "changing.csv");
    await client.materials
      .exportCsv(target, { columns: COLUMNS, pageSize: 100, resume: true, ...stopAfter(1000) })
      .catch(() => undefined);
    const cursor = JSON.parse(readFileSync(resumePaths(target).state, "utf8")).progress.cursor as string;
    insertRecord(`${cursor.slice(0, -2)}0z`, "added behind the cursor");
    insertRecord("m002500z", "added ahead of the cursor");
    const removed = at(
      server.records.splice(
        server.records.findIndex((m) => m._id === "m002000"),
        1,
      ),
      0,
      "the removed records",
    );
    try {
      await client.materials.exportCsv(target, { columns: COLUMNS, pageSize: 100, resume: true });
      const rows = parse(readFileSync(target, "utf8"), { columns: true }) as Record<string, string>[];
      const names = rows.map((r) => r.name);
      expect(names).toContain("added ahead of the cursor");
      expect(names).not.toContain("added behind the cursor");
      expect(names).not.toContain(removed.name);
      expect(rows).toHaveLength(3000); // 3,000 - 1 removed + 1 added ahead
      expect(new Set(rows.map((r) => r._id)).size).toBe(rows.length);
    } finally {
      server.records.splice(0, server.records.length, ...server.records.filter((m) => m.n !== -1));
      insertRecord(removed._id, removed.name);
      server.records.find((m) => m._id === removed._id)!.n = removed.n;
    }
  });

  it("refuses a resume of another request, saying what differs, and starts over with restart", async () => {
    const target = join(dir, "other.csv");
    await client.materials
      .exportCsv(target, { columns: COLUMNS, pageSize: 100, resume: true, ...stopAfter(500) })
      .catch(() => undefined);
    const columns = await client.materials
      .exportCsv(target, { columns: ["_id", "name"], resume: true })
      .catch((e: unknown) => e);
    expect(columns).toBeInstanceOf(ResumeError);
    expect((columns as ResumeError).code).toBe("ERR_RESUME");
    expect((columns as Error).message).toMatch(
      /its columns were _id,name,formula,n, this run asks for _id,name.*Pass restart: true to discard it/,
    );
    const query = await client.materials
      .exportCsv(target, { columns: COLUMNS, query: { formula: "Si" }, resume: true })
      .catch((e: unknown) => e);
    expect((query as Error).message).toMatch(/its query was \{\}, this run's is \{"formula":"Si"\}/);
    const escaping = await client.materials
      .exportCsv(target, { columns: COLUMNS, escapeFormulas: false, resume: true })
      .catch((e: unknown) => e);
    expect((escaping as Error).message).toMatch(/its escaping of formulas was true, this run's is false/);
    const ndjson = await client.materials
      .exportNdjson(target, { columns: COLUMNS, resume: true })
      .catch((e: unknown) => e);
    expect((ndjson as Error).message).toMatch(/it was csv, this run writes ndjson/);
    // Another platform (the same records, another address) is another export.
    const twin = await startFaultServer({ records: 10 });
    const other = new Client({ baseUrl: twin.baseUrl, accountId: twin.accountId, authToken: twin.authToken });
    const platform = await other.materials
      .exportCsv(target, { columns: COLUMNS, resume: true })
      .catch((e: unknown) => e);
    expect((platform as Error).message).toMatch(
      /it read from http:\/\/127\.0\.0\.1:\d+\/api\/2018-10-01, this run reads from/,
    );
    await other.close();
    await twin.close();

    const fresh = await client.materials.exportCsv(target, {
      columns: ["_id", "name"],
      pageSize: 500,
      resume: true,
      restart: true,
    });
    expect(fresh.items).toBe(3000);
    expect(readFileSync(target, "utf8").split("\n")[0]).toBe("_id,name");
  });

  it("refuses a partial file that does not match its saved checksum or length", async () => {
    const target = join(dir, "tampered.csv");
    await client.materials
      .exportCsv(target, { columns: COLUMNS, pageSize: 100, resume: true, ...stopAfter(800) })
      .catch(() => undefined);
    const { partial } = resumePaths(target);
    const text = readFileSync(partial);
    text[200] = text[200] === 0x41 ? 0x42 : 0x41;
    writeFileSync(partial, text);
    await expect(client.materials.exportCsv(target, { columns: COLUMNS, resume: true })).rejects.toThrow(
      /does not match its saved progress \(its checksum differs/,
    );
    writeFileSync(partial, text.subarray(0, 100));
    await expect(client.materials.exportCsv(target, { columns: COLUMNS, resume: true })).rejects.toThrow(
      /it is shorter than recorded/,
    );
    expect(existsSync(target)).toBe(false);
    const result = await client.materials.exportCsv(target, { columns: COLUMNS, resume: true, restart: true });
    expect(result.items).toBe(3000);
  });

  it("with force, replaces a file whose run was killed after placing it and before removing its state", async () => {
    const target = join(dir, "placed.csv");
    await client.materials
      .exportCsv(target, { columns: COLUMNS, pageSize: 100, resume: true, ...stopAfter(800) })
      .catch(() => undefined);
    const { partial, state } = resumePaths(target);
    // What a kill between the two last steps of a commit leaves: the file at its name, the state beside it.
    renameSync(partial, target);
    const result = await client.materials.exportCsv(target, { columns: COLUMNS, resume: true, force: true });
    expect(result.items).toBe(3000);
    expect(result.resumedFrom).toBeUndefined();
    expect(parse(readFileSync(target))).toHaveLength(3001);
    expect(existsSync(partial) || existsSync(state)).toBe(false);
  });

  it("keeps no secret in its state file, which only its owner can read", async () => {
    const target = join(dir, "secret.csv");
    await client.materials
      .exportCsv(target, { columns: COLUMNS, pageSize: 100, resume: true, ...stopAfter(300) })
      .catch(() => undefined);
    const { state } = resumePaths(target);
    const text = readFileSync(state, "utf8");
    expect(text).not.toContain(server.authToken);
    expect(text).not.toContain(server.authToken.slice(0, 12));
    expect(text).not.toContain(server.password);
    expect(statSync(state).mode & 0o077).toBe(0);
    await client.materials.exportCsv(target, { columns: COLUMNS, resume: true, restart: true });
  });

  it("Parquet: continues after the last row group and DuckDB reads the same table as an uninterrupted export", async () => {
    const reference = join(dir, "reference.parquet");
    const target = join(dir, "resumed.parquet");
    const uninterrupted = await client.materials.exportParquet(reference, {
      columns: COLUMNS,
      pageSize: 100,
      paging: "keyset",
      rowGroupSize: 250,
    });
    // Interrupted twice: once between row groups, once in the middle of one.
    await client.materials
      .exportParquet(target, { columns: COLUMNS, pageSize: 100, rowGroupSize: 250, resume: true, ...stopAfter(1000) })
      .catch(() => undefined);
    // The row group that ended with the tenth page counts that page as read.
    expect(JSON.parse(readFileSync(resumePaths(target).state, "utf8")).progress.pages).toBe(10);
    await client.materials
      .exportParquet(target, { columns: COLUMNS, pageSize: 100, rowGroupSize: 250, resume: true, ...stopAfter(1900) })
      .catch(() => undefined);
    const saved = JSON.parse(readFileSync(resumePaths(target).state, "utf8"));
    expect(saved.progress.items).toBe(1900); // the rows read before the stop became a short row group
    expect(saved.progress.pages).toBe(19);
    const resumed = await client.materials.exportParquet(target, {
      columns: COLUMNS,
      pageSize: 100,
      rowGroupSize: 250,
      resume: true,
    });
    expect(resumed.pages).toBe(uninterrupted.pages);
    const difference = async (a: string, b: string): Promise<number> => {
      const rows = (
        await duck.runAndReadAll(`SELECT count(*) FROM (SELECT * FROM '${a}' EXCEPT ALL SELECT * FROM '${b}')`)
      ).getRows();
      return Number(at(at(rows, 0, "the count's rows"), 0, "the count's row"));
    };
    expect(await difference(target, reference)).toBe(0);
    expect(await difference(reference, target)).toBe(0);
    const types = (path: string) => duck.runAndReadAll(`DESCRIBE SELECT * FROM '${path}'`).then((r) => r.getRows());
    expect(await types(target)).toEqual(await types(reference));
    const count = at(
      (await duck.runAndReadAll(`SELECT count(*), count(DISTINCT _id) FROM '${target}'`)).getRows(),
      0,
      "the count's rows",
    );
    expect(count.map(Number)).toEqual([3000, 3000]);
  });

  it("partitioned: finished parts stay, unfinished ones continue, and the parts equal an uninterrupted run's", async () => {
    const reference = join(dir, "reference-parts");
    const target = join(dir, "resumed-parts");
    await client.materials.exportCsv(reference, { columns: COLUMNS, pageSize: 100, partitions: 3 });
    await client.materials
      .exportCsv(target, { columns: COLUMNS, pageSize: 100, partitions: 3, resume: true, ...stopAfter(1500) })
      .catch(() => undefined);
    expect(existsSync(target)).toBe(false);
    const result = await client.materials.exportCsv(target, {
      columns: COLUMNS,
      pageSize: 100,
      partitions: 3,
      resume: true,
    });
    expect(result.items).toBe(3000);
    expect(readdirSync(target)).toEqual(readdirSync(reference));
    for (const name of readdirSync(reference))
      expect(readFileSync(join(target, name), "utf8")).toBe(readFileSync(join(reference, name), "utf8"));
    expect(readdirSync(dir).filter((name) => name.includes("resumed-parts."))).toEqual([]);
  });

  it("removes the temporary state files a run killed in the middle of a commit left (between creating one and renaming it)", async () => {
    const file = join(dir, "killed-commit.csv");
    const parts = join(dir, "killed-commit-parts");
    await client.materials
      .exportCsv(file, { columns: COLUMNS, pageSize: 100, resume: true, ...stopAfter(1200) })
      .catch(() => undefined);
    await client.materials
      .exportCsv(parts, { columns: COLUMNS, pageSize: 100, partitions: 3, resume: true, ...stopAfter(1500) })
      .catch(() => undefined);
    // What SIGKILL leaves when it lands inside writeFileAtomic: the state's copy under its random name.
    const planted = [
      `${resumePaths(file).state}.0123456789abcdef.tmp`,
      `${resumePaths(parts).state}.fedcba9876543210.tmp`,
    ];
    const partial = resumePaths(parts).partial;
    for (const name of readdirSync(partial).filter((entry) => entry.endsWith(".matframe-resume.json")))
      planted.push(join(partial, `${name}.00000000deadbeef.tmp`));
    expect(planted.length).toBeGreaterThan(2);
    for (const temp of planted) writeFileSync(temp, "{");

    await client.materials.exportCsv(file, { columns: COLUMNS, pageSize: 100, resume: true });
    await client.materials.exportCsv(parts, { columns: COLUMNS, pageSize: 100, partitions: 3, resume: true });
    expect(readdirSync(dir).filter((name) => name.startsWith(".killed-commit"))).toEqual([]);
    expect(readdirSync(parts).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("refuses a second run while another one writes the same export, and takes over a killed run's lock", async () => {
    const target = join(dir, "locked.csv");
    const { lock } = resumePaths(target);
    // A live process holds it, until it is killed (it reads its stdin, which stays open): no timer that could run out.
    const holder = spawn(process.execPath, ["-e", "process.stdin.resume()"], { stdio: ["pipe", "ignore", "ignore"] });
    writeFileSync(lock, String(holder.pid));
    try {
      await expect(client.materials.exportCsv(target, { columns: COLUMNS, resume: true })).rejects.toThrow(
        new RegExp(`Another export \\(process ${holder.pid}\\) is writing .*locked\\.csv`),
      );
    } finally {
      holder.kill();
    }
    const gone = spawnSync(process.execPath, ["-e", "process.exit(0)"]).pid!; // a process that has ended
    writeFileSync(lock, String(gone));
    const result = await client.materials.exportCsv(target, { columns: COLUMNS, resume: true });
    expect(result.items).toBe(3000);
    expect(existsSync(lock)).toBe(false);
  });

  it("refuses what a cursor cannot continue, before any request", async () => {
    const before = server.requests.length;
    await expect(client.materials.exportCsv(process.stdout, { resume: true })).rejects.toThrow(
      /keeps its progress beside a file/,
    );
    await expect(
      client.materials.exportCsv(join(dir, "x.csv"), { resume: true, sort: { formula: 1 } }),
    ).rejects.toThrow(/walks in _id order/);
    await expect(client.materials.exportCsv(join(dir, "x.csv"), { resume: true, paging: "offset" })).rejects.toThrow(
      /keyset paging/,
    );
    await expect(client.materials.exportCsv(join(dir, "x.csv"), { restart: true })).rejects.toThrow(ValidationError);
    await expect(
      client.materials.exportCsv(join(dir, "x.csv"), { resume: "yes" as unknown as boolean }),
    ).rejects.toThrow(/resume must be true or false/);
    expect(server.requests.length).toBe(before);
  });
});

describe("a resumed structure export", () => {
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

  it.each(["cif", "poscar"] as const)(
    "%s directory: files written after the last commit are replaced, and the directory equals an uninterrupted one",
    async (format) => {
      const reference = join(dir, `structures-${format}`);
      const target = join(dir, `resumed-structures-${format}`);
      const total = (
        await platform.materials.exportStructures(reference, {
          format,
          pageSize: 4,
          paging: "keyset",
          onWarning: () => {},
        })
      ).items;
      const controller = new AbortController();
      await platform.materials
        .exportStructures(target, {
          format,
          pageSize: 4,
          resume: true,
          signal: controller.signal,
          onWarning: () => {},
          onProgress: (p) => p.pages >= 3 && controller.abort(),
        })
        .catch(() => undefined);
      const partial = resumePaths(target).partial;
      // A file written after the last commit, as a kill between a file and its index line leaves.
      writeFileSync(join(partial, "Zz_orphan.cif"), "not in the index");
      const result = await platform.materials.exportStructures(target, {
        format,
        pageSize: 4,
        resume: true,
        onWarning: () => {},
      });
      expect(result.items).toBe(total);
      expect(readdirSync(target).sort()).toEqual(readdirSync(reference).sort());
      for (const name of readdirSync(reference))
        expect(readFileSync(join(target, name), "utf8")).toBe(readFileSync(join(reference, name), "utf8"));
    },
  );

  it("one multi-frame xyz file resumes like a table", async () => {
    const reference = join(dir, "all.xyz");
    const target = join(dir, "resumed.xyz");
    await platform.materials.exportStructures(reference, {
      format: "xyz",
      singleFile: true,
      pageSize: 4,
      paging: "keyset",
      onWarning: () => {},
    });
    const controller = new AbortController();
    await platform.materials
      .exportStructures(target, {
        format: "xyz",
        singleFile: true,
        pageSize: 4,
        resume: true,
        signal: controller.signal,
        onWarning: () => {},
        onProgress: (p) => p.pages >= 2 && controller.abort(),
      })
      .catch(() => undefined);
    expect(existsSync(resumePaths(target).state)).toBe(true);
    await platform.materials.exportStructures(target, {
      format: "xyz",
      singleFile: true,
      pageSize: 4,
      resume: true,
      onWarning: () => {},
    });
    expect(readFileSync(target, "utf8")).toBe(readFileSync(reference, "utf8"));
  });
});

describe("the writer state of a Parquet export", () => {
  it("survives JSON with its bigints, bytes and non-finite numbers", () => {
    const value = {
      n: 12n,
      bytes: new Uint8Array([0, 255, 7]),
      nan: NaN,
      inf: -Infinity,
      list: [1, "a", null, { deep: 3n }],
    };
    expect(fromTaggedJson(JSON.parse(JSON.stringify(toTaggedJson(value))))).toEqual(value);
  });
});
