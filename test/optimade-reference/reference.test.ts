import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OptimadeClient } from "../../src";
import { startServer, type ServerHandle } from "../../src/server";
import { runCli } from "../cli-export/run-cli";
import {
  referenceClient,
  referenceMissing,
  startReferenceServer,
  validate,
} from "../support/optimade-reference/reference";

// Differential tests against optimade-python-tools v1.5.0, the implementation OPTIMADE users
// trust: its server with its test data (17 structures, default page 20), its OptimadeClient,
// and optimade-validator on matframe serve's /optimade.

const FIELDS = ["chemical_formula_reduced", "nsites", "elements", "nelements", "lattice_vectors"];
/** Some, none and all of the reference server's test structures. */
const FILTERS = [
  "nelements=2",
  "nsites > 10000",
  "nsites >= 1",
  'elements HAS ALL "Ba","O" OR chemical_formula_reduced STARTS WITH "Ac"',
];

let reason: string | undefined;
let reference: { base: string; close(): Promise<void> } | undefined;
let server: ServerHandle | undefined;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "matframe-optimade-ref-"));
  reason = await referenceMissing();
  if (reason) return;
  [reference, server] = await Promise.all([startReferenceServer(), startServer({ port: 0, synthetic: 30 })]);
}, 120_000);

afterAll(async () => {
  await reference?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function skipWithReason(context: { skip(): void }, what: string): void {
  if (!reason) return;
  console.warn(`\n*** SKIPPED ${what}: ${reason}. ***\n`);
  context.skip();
}

/** Entries as `id → attributes`, the way both clients' answers are compared. */
const byId = (entries: { id: string; attributes: Record<string, unknown> }[]) =>
  Object.fromEntries(entries.map((e) => [e.id, e.attributes]));

describe("against the reference server", () => {
  it.for(FILTERS)(
    "OptimadeClient reads the same ids and values as the reference client: %s",
    async (filter, context) => {
      skipWithReason(context, "the differential test against optimade-python-tools");
      const expected = await referenceClient(reference!.base, filter, FIELDS);
      const op = new OptimadeClient({ baseUrl: reference!.base });
      const df = await op.structures.toDataFrame({ filter, columns: ["id", ...FIELDS], pageSize: 5 });
      await op.close();
      const rows = (df.values as unknown[][]).map((row) => ({
        id: row[0] as string,
        attributes: Object.fromEntries(FIELDS.map((f, i) => [f, parseCell(row[i + 1])])),
      }));
      expect(rows.map((r) => r.id)).toEqual(expected.map((e) => e.id));
      expect(byId(rows)).toEqual(byId(expected));
      if (filter === "nsites >= 1") expect(rows.length).toBe(17);
      if (filter === "nsites > 10000") expect(rows).toEqual([]);
    },
  );

  it.for(FILTERS)("export --optimade writes the reference client's entries: %s", async (filter, context) => {
    skipWithReason(context, "the CLI's differential test against optimade-python-tools");
    const expected = await referenceClient(reference!.base, filter, FIELDS);
    const output = join(dir, `export-${FILTERS.indexOf(filter)}.ndjson`);
    const run = await runCli([
      "export",
      "--optimade",
      reference!.base,
      "--filter",
      filter,
      "--columns",
      ["id", ...FIELDS].join(","),
      "--page-size",
      "4",
      "--output",
      output,
      "--quiet",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const lines = readFileSync(output, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const rows = lines.map(({ id, ...attributes }: Record<string, unknown>) => ({ id: id as string, attributes }));
    expect(byId(rows)).toEqual(byId(expected));
    expect(rows.map((r) => r.id)).toEqual(expected.map((e) => e.id));
  });

  it("a malformed filter exits 2 with the reference server's message, and leaves no file", async (context) => {
    skipWithReason(context, "the malformed-filter test against optimade-python-tools");
    const output = join(dir, "malformed.csv");
    const run = await runCli(["export", "--optimade", reference!.base, "--filter", "nelements=", "--output", output]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^matframe export: The OPTIMADE provider refused the filter "nelements=": \S/m);
    expect(existsSync(output)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes("malformed"))).toEqual([]);
  });
});

describe("matframe serve's /optimade", () => {
  it("passes optimade-validator with no failure", async (context) => {
    skipWithReason(context, "optimade-validator on matframe serve");
    const summary = await validate(`${new URL(server!.baseUrl).origin}/optimade`);
    expect(summary.failure_messages).toEqual([]);
    expect(summary.failure_count).toBe(0);
    expect(summary.internal_failure_count).toBe(0);
    expect(summary.success_count).toBeGreaterThan(30);
  }, 300_000);

  it.for(["nelements=2", "nsites >= 1", 'elements HAS "Og"'])(
    "matframe reads its own provider with the same rows as the reference client: %s",
    async (filter, context) => {
      skipWithReason(context, "the reference client on matframe serve");
      const base = `${new URL(server!.baseUrl).origin}/optimade`;
      const expected = await referenceClient(base, filter, FIELDS);
      const op = new OptimadeClient({ baseUrl: base });
      const mine = [];
      for await (const s of op.structures.iterate({ filter, fields: FIELDS, pageSize: 7 })) mine.push(s);
      await op.close();
      expect(mine.map((s) => s.id)).toEqual(expected.map((e) => e.id));
      expect(byId(mine as { id: string; attributes: Record<string, unknown> }[])).toEqual(byId(expected));
    },
  );
});

/** A DataFrame cell back to the value sent: lists are kept as JSON text in a frame. */
function parseCell(cell: unknown): unknown {
  if (typeof cell === "string" && (cell.startsWith("[") || cell.startsWith("{"))) return JSON.parse(cell);
  return cell;
}
