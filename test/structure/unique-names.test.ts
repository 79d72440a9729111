import { describe, expect, it } from "vitest";
import { fileName } from "../../src/frame/export/structure-export";
import { UniqueNames } from "../../src/frame/export/unique-names";

// Records whose file names share their base: ids longer than the 64 characters a name keeps.
const sharedPrefix = (n: number) => ({ _id: `${"x".repeat(64)}${n}`, formula: "Si" }) as Parameters<typeof fileName>[0];

describe("structure file names", () => {
  it("stay unique for 8,000 records sharing a name, with lookups linear in the records", () => {
    const taken = new UniqueNames(["index.csv"]);
    const names = Array.from({ length: 8000 }, (_, n) => fileName(sharedPrefix(n), "cif", taken));
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(8000);
    expect(names[0]).toBe(`Si_${"x".repeat(64)}.cif`);
    expect(names[1]).toBe(`Si_${"x".repeat(64)}-2.cif`);
    expect(names[7999]).toBe(`Si_${"x".repeat(64)}-8000.cif`);
    // A search from -2 for each name makes about n²/2 = 32 million lookups; linear is 2 a name.
    expect(taken.probes).toBeLessThanOrEqual(2 * 8000);
  });

  it("give the first free suffix, past names that other bases or case-blind file systems hold", () => {
    const taken = new UniqueNames(["index.csv", "a-2.cif"]);
    expect(["a", "A", "a", "a-2", "a"].map((base) => taken.take(base, "cif"))).toEqual([
      "a.cif",
      "A-3.cif",
      "a-4.cif",
      "a-2-2.cif",
      "a-5.cif",
    ]);
  });

  it("are the same when a resumed run reserves the names already written", () => {
    const bases = ["a", "b", "a", "a", "b", "a-3", "a", "a"];
    const whole = new UniqueNames();
    const straight = bases.map((base) => whole.take(base, "cif"));
    const first = new UniqueNames();
    const before = bases.slice(0, 4).map((base) => first.take(base, "cif"));
    const resumed = new UniqueNames(before);
    const after = bases.slice(4).map((base) => resumed.take(base, "cif"));
    expect([...before, ...after]).toEqual(straight);
  });
});
