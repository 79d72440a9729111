import fc from "fast-check";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, MatframeError, ValidationError } from "../../src";
import { startFaultServer, type FaultServer } from "../support/fault-server";
import { Figures } from "./support/report";

// The client checks options before it sends anything: a bad pageSize, skip, columns or query
// is a ValidationError (code ERR_INVALID_OPTION) whose message says how to fix it, and the
// server never sees a request. The server here records every request it gets.

const figures = new Figures("client-validation");
let server: FaultServer;
let client: Client;
let dir: string;

beforeAll(async () => {
  server = await startFaultServer({ records: 10 });
  client = new Client({ baseUrl: server.origin, accountId: server.accountId, authToken: server.authToken });
  dir = mkdtempSync(path.join(tmpdir(), "matframe-validation-"));
});

afterAll(async () => {
  figures.write();
  await client?.close();
  await server?.close();
});

/** A fix is named: the rule ("must be ...") or an example. */
const SAYS_HOW = /must|e\.g\.|use |remove|write paths|start with|keep one|leave/i;

function expectRejected(action: () => unknown, option: RegExp): void {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `no error for option ${option}`).toBeInstanceOf(ValidationError);
  const error = thrown as ValidationError;
  expect(error.code).toBe("ERR_INVALID_OPTION");
  expect(error.option).toMatch(option);
  expect(error.message).toMatch(SAYS_HOW);
  figures.add("inputs");
}

async function expectRejectedAsync(action: () => Promise<unknown>, option: RegExp): Promise<ValidationError> {
  const error = await action().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `no error for option ${option}`).toBeInstanceOf(ValidationError);
  expect((error as ValidationError).code).toBe("ERR_INVALID_OPTION");
  expect((error as ValidationError).option).toMatch(option);
  expect((error as ValidationError).message).toMatch(SAYS_HOW);
  figures.add("inputs");
  return error as ValidationError;
}

const isPageSize = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= 500;

describe("client-side validation, before any request", () => {
  it("pageSize: anything but an integer 1..500 is refused with the limit named; valid ones pass", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: -1000, max: 2000 }),
          fc.double(),
          fc.anything(),
          fc.constantFrom(0, 501, 1.5, Number.NaN, Infinity, "10", true),
        ),
        (pageSize) => {
          // undefined and null both mean "the default", as for every optional option.
          fc.pre(pageSize !== undefined && pageSize !== null);
          if (isPageSize(pageSize)) {
            expect(() => client.materials.pages({ pageSize: pageSize as number })).not.toThrow();
            figures.add("inputs");
          } else {
            expectRejected(() => client.materials.pages({ pageSize: pageSize as number }), /^pageSize$/);
            expect(() => client.materials.pages({ pageSize: pageSize as number })).toThrow(/from 1 to 500/);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("skip: a negative, fractional or non-number skip is refused", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ max: -1 }),
          fc.double({ noInteger: true }),
          fc.string(),
          fc.constantFrom(null, Number.NaN, -Infinity, Infinity, [], {}),
        ),
        async (skip) => {
          await expectRejectedAsync(() => client.materials.list({ projection: { skip: skip as number } }), /skip/);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("query: anything but a plain JSON-able object is refused", async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const bad: unknown[] = [
      null,
      "formula=Si",
      42,
      [],
      [{ formula: "Si" }],
      new Date(),
      new Map(),
      /Si/,
      new (class Query {})(),
      circular,
      { n: 10n },
      () => ({}),
    ];
    for (const query of bad) {
      expectRejected(() => client.materials.pages({ query: query as Record<string, unknown> }), /^query$/);
      await expectRejectedAsync(() => client.materials.list({ query: query as Record<string, unknown> }), /^query$/);
    }
    fc.assert(
      fc.property(
        fc.anything().filter((v) => v !== undefined && (typeof v !== "object" || v === null || Array.isArray(v))),
        (query) => {
          expectRejected(() => client.materials.pages({ query: query as Record<string, unknown> }), /^query$/);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("columns: malformed column paths are refused before sending, and no file is created", async () => {
    const bad: unknown[] = [
      [],
      [""],
      ["a..b"],
      [" formula"],
      ["formula "],
      ["$where"],
      ["lattice.$a"],
      ["__proto__"],
      ["a.__proto__"],
      ["0.a"],
      [1],
      [null],
      "formula",
      ["_id", "-_id"],
    ];
    const withoutFix: string[] = [];
    for (const columns of bad) {
      const target = path.join(dir, `bad-${figures.get("inputs")}.csv`);
      for (const action of [
        () => client.materials.toDataFrame({ columns: columns as string[] }),
        () => client.materials.exportCsv(target, { columns: columns as string[] }),
      ]) {
        const error = await action().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, JSON.stringify(columns)).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).option).toBe("columns");
        figures.add("inputs");
        if (!SAYS_HOW.test((error as Error).message)) withoutFix.push((error as Error).message);
      }
      expect(existsSync(target)).toBe(false);
    }
    expect(readdirSync(dir)).toEqual([]);
    // Each message says what to do, not only what is wrong.
    expect([...new Set(withoutFix)]).toEqual([]);
  });

  it("other iterate options: maxItems, concurrency, paging, sort and fields are checked too", async () => {
    expectRejected(() => client.materials.pages({ maxItems: 0 }), /^maxItems$/);
    expectRejected(() => client.materials.pages({ concurrency: 0 }), /^concurrency$/);
    expectRejected(() => client.materials.pages({ concurrency: 1000 }), /^concurrency$/);
    expectRejected(() => client.materials.pages({ paging: "cursor" as "offset" }), /^paging$/);
    expectRejected(() => client.materials.pages({ sort: { formula: 2 as 1 } }), /^sort$/);
    expectRejected(() => client.materials.pages({ paging: "keyset", sort: { formula: 1 } }), /^sort$/);
    expectRejected(() => client.materials.pages({ fields: { formula: true as unknown as 1 } }), /^fields$/);
    await expectRejectedAsync(() => client.materials.list({ projection: { limit: 501 } }), /limit/);
    await expectRejectedAsync(() => client.materials.list({ projection: { bogus: 1 } as never }), /bogus/);
  });

  it("sent no request at all while refusing every option above", () => {
    expect(server.requests).toEqual([]);
    // Validation errors are matframe errors, so one catch handles them with the rest.
    expect(new ValidationError("x", "y")).toBeInstanceOf(MatframeError);
  });
});
