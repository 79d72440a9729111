import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pNorm } from "../../src/structure";
import { elementalRatios } from "../../src/structure/derived-properties";

// The stored p-norms must be the same double on every Node line (V8's Math.pow differs between
// Node 20 and 22 in the last place), so pNorm is correctly rounded. The reference is Python's
// exact fractions and 80-digit decimals (not our algorithm): the sum of the powers of the very
// doubles we pass, exactly, its root to 80 digits, then the nearest double.
const PYTHON = "/usr/bin/python3";
const REFERENCE = `
import json, sys
from decimal import Decimal, getcontext
from fractions import Fraction
getcontext().prec = 80
out = []
for ratios, p in json.load(sys.stdin):
    s = sum(Fraction(abs(r)) ** p for r in ratios)
    root = (Decimal(s.numerator) / Decimal(s.denominator)) ** (Decimal(1) / Decimal(p)) if s else Decimal(0)
    out.append(repr(float(root)))
print(json.dumps(out))
`;

// A seeded generator: the same cases on every run, so a failure can be reproduced.
function* compositions(seed: number, count: number): Generator<number[]> {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return 1 + (state % n);
  };
  for (let i = 0; i < count; i++) {
    const elements = Array.from({ length: next(6) }, (_, k) => Array<string>(next(48)).fill(`E${k}`)).flat();
    yield elementalRatios(elements).map(([, r]) => r);
  }
}

describe.skipIf(!existsSync(PYTHON))("pNorm", () => {
  it("is the correctly rounded p-norm, equal to an 80-digit reference for every degree the platform computes", () => {
    const bundled = (
      JSON.parse(readFileSync(join(__dirname, "..", "..", "data", "materials.json"), "utf8")) as {
        derivedProperties: { name: string; value: number }[];
      }[]
    ).map((m) => m.derivedProperties.filter((p) => p.name === "elemental_ratio").map((p) => p.value));
    const edges = [
      [1],
      [0.5, 0.5],
      [1 / 3, 1 / 3, 1 / 3],
      [0.2, 0.8],
      [0, 0.25, 0.75],
      [1e-300, 2e-300],
      [1e-8, 0.99999999],
    ];
    const ratioSets = [...bundled, ...edges, ...compositions(20261126, 300)];
    const cases = ratioSets.flatMap((ratios) => [2, 3, 5, 7, 10].map((p) => [ratios, p] as const));
    const expected = JSON.parse(
      execFileSync(PYTHON, ["-c", REFERENCE], { input: JSON.stringify(cases), encoding: "utf8", maxBuffer: 64 << 20 }),
    ) as string[];
    const ours = cases.map(([ratios, p]) => String(pNorm(ratios, p)));
    const mismatches = cases
      .map((c, i) => ({ case: c, ours: ours[i], reference: expected[i] }))
      .filter((m) => Number(m.ours) !== Number(m.reference));
    expect(mismatches).toEqual([]);
  });

  it("gives degree 0 as the number of ratios, 0 for no atoms, and refuses a degree that is not a whole number", () => {
    expect(pNorm([0.25, 0.75], 0)).toBe(2);
    expect(pNorm([], 2)).toBe(0);
    expect(pNorm([0.5, NaN], 2)).toBeNaN();
    expect(() => pNorm([0.5, 0.5], 1.5)).toThrow(/whole number, 0 or more.*got 1\.5/);
    expect(() => pNorm([0.5, 0.5], -2)).toThrow(/whole number/);
  });
});
