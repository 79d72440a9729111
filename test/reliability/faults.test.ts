import { parse } from "csv-parse/sync";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  Client,
  ConnectionError,
  DuplicateRecordError,
  MatframeError,
  RateLimitError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  type ClientOptions,
} from "../../src";
import { startFaultServer, type Fault, type FaultServer, type FaultServerOptions } from "../support/fault-server";
import { Figures } from "./support/report";

// Long walks and exports against a real misbehaving loopback server (test/support/fault-server):
// each scenario runs in five modes (offset paging at concurrency 1 and 3, keyset paging, CSV
// export by offset paging, NDJSON export by keyset paging) and must end with every record exactly once, or with a clear
// MatframeError and, for exports, no file at the target (nor a temporary file left beside it).

const RECORDS = 2_000;
const PAGE_SIZE = 100;
/** The list request that misbehaves: mid-walk, after several pages were written. */
const AT = 8;

const figures = new Figures("faults");
const dir = mkdtempSync(path.join(tmpdir(), "matframe-faults-"));
afterAll(() => figures.write());

type Mode = "offset c=1" | "offset c=3" | "keyset" | "export csv" | "export ndjson";
const MODES: Mode[] = ["offset c=1", "offset c=3", "keyset", "export csv", "export ndjson"];

type ErrorClass = abstract new (...args: never[]) => MatframeError;

interface Scenario {
  name: string;
  /** Builds the fault callback; `server` is the fault server once started (for revoke). */
  fault: (server: () => FaultServer) => FaultServerOptions["fault"];
  /** "complete": every record exactly once; otherwise the error class the user must get. */
  expect: "complete" | ErrorClass;
  client?: Partial<ClientOptions>;
  /** Modes where the scenario makes no sense (e.g. a duplicate in keyset paging is a different fault). */
  skip?: Mode[];
}

/** Faults list requests number `from` to `from + times - 1`. */
function onList(fault: Fault, from = AT, times = 1): Scenario["fault"] {
  return () => (r, n) => (r.path.endsWith("/materials") && n.list >= from && n.list < from + times ? fault : undefined);
}

const SCENARIOS: Scenario[] = [
  { name: "connection dropped mid-body", fault: onList({ kind: "drop-mid-body" }), expect: "complete" },
  { name: "connection reset before the headers", fault: onList({ kind: "reset-before-headers" }), expect: "complete" },
  { name: "a burst of two 500s", fault: onList({ kind: "status", status: 500 }, AT, 2), expect: "complete" },
  { name: "a burst of two 503s", fault: onList({ kind: "status", status: 503 }, AT, 2), expect: "complete" },
  {
    name: "502 then 504",
    fault: () => (r, n) =>
      r.path.endsWith("/materials") && (n.list === AT || n.list === AT + 1)
        ? { kind: "status", status: n.list === AT ? 502 : 504 }
        : undefined,
    expect: "complete",
  },
  {
    name: "429 with Retry-After: 1",
    fault: onList({ kind: "status", status: 429, headers: { "retry-after": "1" } }),
    expect: "complete",
  },
  {
    name: "one stalled answer (timeout 500 ms)",
    fault: onList({ kind: "stall" }),
    expect: "complete",
    client: { timeout: 500 },
  },
  {
    name: "503 for good",
    fault: onList({ kind: "status", status: 503 }, AT, 1_000),
    expect: ServerError,
    client: { maxRetries: 1 },
  },
  {
    name: "500 for good",
    fault: onList({ kind: "status", status: 500 }, AT, 1_000),
    expect: ServerError,
    client: { maxRetries: 1 },
  },
  {
    name: "429 asking for an hour",
    fault: onList({ kind: "status", status: 429, headers: { "retry-after": "3600" } }),
    expect: RateLimitError,
  },
  {
    name: "stalled for good (timeout 300 ms)",
    fault: onList({ kind: "stall" }, AT, 1_000),
    expect: TimeoutError,
    client: { timeout: 300, maxRetries: 1 },
  },
  {
    name: "dropped mid-body for good",
    fault: onList({ kind: "drop-mid-body" }, AT, 1_000),
    expect: ConnectionError,
    client: { maxRetries: 1 },
  },
  { name: "a truncated JSON body", fault: onList({ kind: "truncated-json" }), expect: ResponseValidationError },
  { name: "a non-JSON (HTML) body", fault: onList({ kind: "non-json" }), expect: ResponseValidationError },
  {
    name: "data that is not an array",
    fault: onList({ kind: "wrong-shape", body: { status: "success", data: { items: [] } } }),
    expect: ResponseValidationError,
  },
  {
    name: "a 200 that is a JSend error",
    fault: onList({ kind: "wrong-shape", body: { status: "error", message: "database offline" } }),
    expect: ResponseValidationError,
  },
  {
    name: "token revoked mid-walk",
    fault: (server) => (r, n) => {
      if (r.path.endsWith("/materials") && n.list === AT) server().revoke();
      return undefined;
    },
    expect: AuthenticationError,
  },
  {
    name: "a record of page 1 sent again on a later page (offset)",
    fault: onList({ kind: "duplicate-first", id: "m000005" }),
    expect: DuplicateRecordError,
    skip: ["keyset", "export ndjson"],
  },
  // In keyset paging a repeat from an older page is not "the collection changed": the server
  // broke the `_id > cursor` contract, so a clear ResponseValidationError is wanted.
  {
    name: "a record of page 1 sent again on a later page (keyset)",
    fault: onList({ kind: "duplicate-first", id: "m000005" }),
    expect: ResponseValidationError,
    skip: ["offset c=1", "offset c=3", "export csv"],
  },
];

interface Outcome {
  ids: string[];
  error?: unknown;
  /** Exports: whether a file is at the target, and temporary files left in its directory. */
  targetExists?: boolean;
  leftovers?: string[];
}

async function run(mode: Mode, server: FaultServer, clientOptions: Partial<ClientOptions>): Promise<Outcome> {
  const client = new Client({
    baseUrl: server.origin,
    accountId: server.accountId,
    authToken: server.authToken,
    ...clientOptions,
  });
  // CSV exports page by offset, NDJSON exports by keyset, so both paging modes are exported.
  const paging = mode === "keyset" || mode === "export ndjson" ? "keyset" : "offset";
  const concurrency = mode === "offset c=1" ? 1 : 3;
  try {
    if (!mode.startsWith("export")) {
      const ids: string[] = [];
      try {
        for await (const m of client.materials.iterate({ pageSize: PAGE_SIZE, paging, concurrency })) ids.push(m._id);
        return { ids };
      } catch (error) {
        return { ids, error };
      }
    }
    const sub = mkdtempSync(path.join(dir, "export-"));
    const target = path.join(sub, mode === "export csv" ? "materials.csv" : "materials.ndjson");
    const options = { columns: ["name", "formula"], pageSize: PAGE_SIZE, paging, concurrency } as const;
    let error: unknown;
    try {
      if (mode === "export csv") await client.materials.exportCsv(target, options);
      else await client.materials.exportNdjson(target, options);
    } catch (e) {
      error = e;
    }
    const targetExists = existsSync(target);
    const leftovers = readdirSync(sub).filter((f) => f !== path.basename(target));
    let ids: string[] = [];
    if (targetExists) {
      const text = readFileSync(target, "utf8");
      ids =
        mode === "export csv"
          ? (parse(text, { columns: true }) as Array<{ _id: string }>).map((row) => row._id)
          : text
              .trimEnd()
              .split("\n")
              .map((line) => (JSON.parse(line) as { _id: string })._id);
    }
    return { ids, error, targetExists, leftovers };
  } finally {
    await client.close();
  }
}

/** Why the outcome is not acceptable, or undefined. */
function judge(scenario: Scenario, mode: Mode, outcome: Outcome, records: string[]): string | undefined {
  if (new Set(outcome.ids).size !== outcome.ids.length)
    return `a record came twice (${outcome.ids.length} ids, ${new Set(outcome.ids).size} distinct)`;
  if (scenario.expect === "complete") {
    if (outcome.error) return `failed: ${(outcome.error as Error)?.name}: ${(outcome.error as Error)?.message}`;
    if (outcome.ids.length !== records.length || outcome.ids.some((id, i) => id !== records[i]))
      return `got ${outcome.ids.length} of ${records.length} records, or out of order`;
    if (outcome.leftovers?.length) return `left ${outcome.leftovers.join(", ")}`;
    return undefined;
  }
  if (!(outcome.error instanceof scenario.expect)) {
    return outcome.error
      ? `expected ${scenario.expect.name}, got ${(outcome.error as Error)?.name}: ${(outcome.error as Error)?.message}`
      : `expected ${scenario.expect.name}, but it ended normally with ${outcome.ids.length} records`;
  }
  const message = (outcome.error as Error).message;
  if (message.length < 20 || /\n\s+at /.test(message)) return `unclear message: ${message}`;
  if (mode.startsWith("export")) {
    if (outcome.targetExists) return "a file was left at the target after the failure";
    if (outcome.leftovers?.length) return `left ${outcome.leftovers.join(", ")}`;
  } else if (outcome.ids.some((id, i) => id !== records[i])) {
    return "the records before the error are not the collection's first records in order";
  }
  return undefined;
}

describe("fault scenarios: long walks and exports against a misbehaving server", () => {
  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: ${scenario.expect === "complete" ? "every record exactly once" : `a clear ${scenario.expect.name}`}`, async () => {
      const modes = MODES.filter((m) => !scenario.skip?.includes(m));
      // The modes run side by side, each against its own server, to keep the test short.
      const failures = await Promise.all(
        modes.map(async (mode) => {
          let server: FaultServer | undefined;
          server = await startFaultServer({ records: RECORDS, fault: scenario.fault(() => server!) });
          try {
            const outcome = await run(mode, server, scenario.client ?? {});
            const problem = judge(
              scenario,
              mode,
              outcome,
              server.records.map((m) => m._id),
            );
            figures.add("scenario runs");
            if (!problem) figures.add("scenarios survived");
            return problem ? `${mode}: ${problem}` : undefined;
          } finally {
            await server.close();
          }
        }),
      );
      expect(failures.filter(Boolean)).toEqual([]);
    });
  }

  it("random mixes of faults: every record exactly once, or a MatframeError and no file", {
    timeout: 180_000,
  }, async () => {
    const recoverable: Fault[] = [
      { kind: "status", status: 503 },
      { kind: "status", status: 500 },
      { kind: "status", status: 429, headers: { "retry-after": "0" } },
      { kind: "drop-mid-body" },
      { kind: "reset-before-headers" },
      { kind: "stall" },
    ];
    const any: Fault[] = [
      ...recoverable,
      { kind: "truncated-json" },
      { kind: "non-json" },
      { kind: "status", status: 401 },
      { kind: "status", status: 404 },
    ];
    const plan = fc.record({
      faults: fc.array(fc.option(fc.constantFrom(...any), { nil: undefined, freq: 3 }), {
        minLength: 1,
        maxLength: 12,
      }),
      mode: fc.constantFrom(...MODES),
    });
    await fc.assert(
      fc.asyncProperty(plan, async ({ faults, mode }) => {
        const server = await startFaultServer({
          records: 600,
          fault: (r, n) => (r.path.endsWith("/materials") ? faults[n.list - 1] : undefined),
        });
        try {
          const outcome = await run(mode, server, { timeout: 300, maxRetries: 2 });
          const records = server.records.map((m) => m._id);
          const expected: Scenario = {
            name: "random",
            fault: () => undefined,
            expect: outcome.error ? MatframeError : "complete",
          };
          const problem = judge(expected, mode, outcome, records);
          figures.add("random fault plans");
          if (problem) throw new Error(`${mode} with ${JSON.stringify(faults)}: ${problem}`);
          figures.add("random fault plans survived");
        } finally {
          await server.close();
        }
      }),
      { numRuns: 25, endOnFailure: true },
    );
  });
});
