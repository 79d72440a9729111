import { describe, expect, it } from "vitest";
import { groupDigits } from "../../src/frame/table/digit-groups";
import { seededRandom } from "../support/seeded-random";

// groupDigits stands in for toLocaleString("en-US") in messages: the reference is that call.
describe("groupDigits", () => {
  it("writes counts as toLocaleString('en-US') does", () => {
    const random = seededRandom(50);
    const edges = [0, -0, 1, -1, 999, 1000, -1000, 999_999, 1_000_000, 100_029, Number.MAX_SAFE_INTEGER];
    const samples = Array.from({ length: 2000 }, () => {
      const n = Math.floor(random.next() * 10 ** random.int(16));
      return random.int(4) === 0 ? -n : n;
    });
    for (const n of [...edges, ...samples]) expect(groupDigits(n), String(n)).toBe(n.toLocaleString("en-US"));
  });

  it("leaves fractions and huge numbers to toLocaleString", () => {
    for (const n of [1234.5678, -0.5, 2 ** 60, Number.POSITIVE_INFINITY, Number.NaN])
      expect(groupDigits(n)).toBe(n.toLocaleString("en-US"));
  });
});
