import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, ResponseValidationError } from "../../src";
import { startFaultServer, type FaultServer } from "../support/fault-server";
import { runCli } from "../cli-export/run-cli";

// A server that honours the keyset cursor and the sort but ignores a part's _id range (the fault
// server reads only the cursor unless told to evaluate queries) once made `--partitions 4` write
// every record four times and succeed. Each part's records are now checked against its range.

let server: FaultServer;
let client: Client;
let dir: string;

beforeAll(async () => {
  server = await startFaultServer({ records: 1200 });
  client = new Client({
    baseUrl: server.baseUrl,
    accountId: server.accountId,
    authToken: server.authToken,
    maxRetries: 0,
  });
  dir = mkdtempSync(join(tmpdir(), "matframe-partition-bounds-"));
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const PART_RANGE =
  /answered part \d of a partitioned read with record "m\d{6}", outside the part's _id range .*the server ignored the part's \{_id: \{\$gte: \.\.\., \$lt: \.\.\.\}\} bounds.*Leave out partitions/;

describe("a partitioned read from a server that ignores the parts' _id ranges", () => {
  it("stops with an error naming the server's fault, and writes no dataset", async () => {
    const target = join(dir, "parts");
    const error = await client.materials
      .exportCsv(target, { columns: ["_id", "name"], partitions: 4, pageSize: 100 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toMatch(PART_RANGE);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("stops a resumable partitioned export the same way", async () => {
    const target = join(dir, "resumed");
    const error = await client.materials
      .exportCsv(target, { columns: ["_id", "name"], partitions: 4, pageSize: 100, resume: true })
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(PART_RANGE);
    expect(existsSync(target)).toBe(false);
  });

  it("matframe export --partitions 4 exits 2 with the server's fault, instead of 0 with every record four times", async () => {
    const target = join(dir, "cli-parts");
    const env = {
      MATFRAME_BASE_URL: server.baseUrl,
      MATFRAME_ACCOUNT_ID: server.accountId,
      MATFRAME_AUTH_TOKEN: server.authToken,
    };
    const run = await runCli(["export", "--partitions", "4", "--columns", "_id,name", "--output", target], { env });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(PART_RANGE);
    expect(existsSync(target)).toBe(false);
  });

  it("reads the same collection once per record when the server honours the ranges", async () => {
    const honest = await startFaultServer({ records: 1200, evaluateQueries: true });
    const reader = new Client({
      baseUrl: honest.baseUrl,
      accountId: honest.accountId,
      authToken: honest.authToken,
      maxRetries: 0,
    });
    try {
      const result = await reader.materials.exportCsv(join(dir, "honest"), {
        columns: ["_id", "name"],
        partitions: 4,
        pageSize: 100,
      });
      expect(result.items).toBe(1200);
    } finally {
      await reader.close();
      await honest.close();
      rmSync(join(dir, "honest"), { recursive: true, force: true });
    }
  });
});
