import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServe, type ServeProcess } from "./support/cli";
import { backtrackingPattern } from "./support/hostile";
import { contractViolation, login, materialsPath, send, type Session } from "./support/http";
import { Figures } from "./support/report";
import { at } from "../support/checked";

// Regexes built to make a backtracking engine run for minutes (ReDoS). A regex that slips past
// the server's guard blocks its event loop inside one RegExp.test call, where no budget can stop
// it, so these go to `matframe serve` in a child process: a hang fails the test after
// HANG_MS instead of freezing the test runner, and the child is killed afterwards.

const HANG_MS = 10_000;
const figures = new Figures("hostile-regex");

/** Where a pattern goes in the query: directly, negated, inside $elemMatch, inside $or. */
const placements = [
  (regex: string, options: string) => ({ name: { $regex: regex, $options: options } }),
  (regex: string, options: string) => ({ formula: { $not: { $regex: regex, $options: options } } }),
  (regex: string, options: string) => ({ tags: { $elemMatch: { $regex: regex, $options: options } } }),
  (regex: string, options: string) => ({
    $or: [{ formula: "none" }, { "owner.slug": { $regex: regex, $options: options } }],
  }),
];

async function ask(server: ServeProcess, session: Session, query: unknown) {
  const res = await send(server.port, "GET", materialsPath(JSON.stringify(query), '{"limit":5}'), {
    headers: { ...session },
    hangMs: HANG_MS,
  });
  figures.add("inputs");
  figures.add(`answered ${res.status}`);
  return res;
}

describe("regexes built to backtrack", () => {
  let server: ServeProcess;
  let session: Session;
  beforeAll(async () => {
    server = await startServe(["--synthetic", "300", "--quiet"]);
    session = await login(server.port);
  });
  afterAll(async () => {
    figures.write();
    await server?.stop();
  });

  it("are refused with 400 or answered, never a 500 or a hang", async () => {
    await fc.assert(
      fc.asyncProperty(
        backtrackingPattern,
        fc.constantFrom("", "i", "s", "ims", "x", "g"),
        fc.constantFrom(at(placements, 0, "a placement"), ...placements),
        async (regex, options, place) => {
          const query = place(regex, options);
          const res = await ask(server, session, query);
          const violation = contractViolation(res, "array");
          if (violation) throw new Error(`${JSON.stringify(query).slice(0, 300)} -> ${violation}`);
        },
      ),
      // No shrinking: after a hang the server is stuck, so every later input would hang too.
      { numRuns: 250, endOnFailure: true },
    );
  });

  it("a refused pattern gets a message saying what to change", async () => {
    const cases: Array<[string, RegExp]> = [
      ["(a+)+$", /nested repetition|repeats a group/],
      ["(a|aa)*b", /repeats a group|alternates/],
      ["(a)\\1", /back-reference/],
      ["a".repeat(201), /at most 200/],
      [".*.*.*.*x", /unbounded quantifiers/],
      ["(", /not a valid regular expression/],
    ];
    for (const [regex, hint] of cases) {
      const res = await ask(server, session, { name: { $regex: regex } });
      expect(res.status, regex).toBe(400);
      expect(res.body.message, regex).toMatch(hint);
    }
  });
});

describe("patterns that take exponential time without a nested group", () => {
  // Found by the property above: only a quantifier on a repeating group, back-references and
  // more than three of * + {n,} are refused, so k optional or bounded atoms in a row followed by
  // a literal that never matches (2^k or 10^k paths on every record name) pass the guard and
  // run inside one RegExp.test call.
  const cases = [
    ["25 optional atoms", `^${".?".repeat(25)}ZZZ`],
    ["12 bounded atoms", `^${".{0,9}".repeat(12)}ZZZ`],
    ["30 optional letters", `${"[a-z]?".repeat(30)}[a-z]{30}!`],
  ] as const;
  for (const [label, regex] of cases) {
    it(`are refused or answered within ${HANG_MS / 1000} s: ${label} (${regex.slice(0, 30)}...)`, async () => {
      const server = await startServe(["--quiet"]);
      try {
        const session = await login(server.port);
        const res = await ask(server, session, { name: { $regex: regex } });
        expect(contractViolation(res, "array")).toBeUndefined();
      } finally {
        await server.stop();
      }
    });
  }
});
