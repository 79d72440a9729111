import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { isValidMethod } from "../../src/frame/table/method-check";
import { Method } from "../../src/schemas";

describe("isValidMethod", () => {
  it.each([
    [{ type: "pseudopotential", subtype: "us" }, true],
    [{ type: "DFT", subtype: "GGA", precision: { kgrid: 4 }, data: { pseudo: [] }, extra: 1 }, true],
    [{ type: "DFT" }, false],
    [{ type: "DFT", subtype: 3 }, false],
    [{ type: null, subtype: "x" }, false],
    [{ type: "a", subtype: "b", precision: [] }, false],
    [{ type: "a", subtype: "b", data: "x" }, false],
    [{ type: "a", subtype: "b", data: null }, false],
    ["DFT", false],
    [["DFT", "GGA"], false],
    [null, false],
    [42, false],
  ])("%j -> %s, as the Method schema says", (value, valid) => {
    expect(isValidMethod(value)).toBe(valid);
    expect(Method.safeParse(value).success).toBe(valid);
  });

  it("agrees with Method.safeParse on arbitrary JSON values", () => {
    const json = fc.jsonValue({ maxDepth: 2 });
    const methodLike = fc.record(
      {
        type: fc.oneof(fc.string(), json),
        subtype: fc.oneof(fc.string(), json),
        precision: fc.oneof(fc.dictionary(fc.string(), json), json),
        data: fc.oneof(fc.dictionary(fc.string(), json), json),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(methodLike, json), (value) => {
        // Round-trip through JSON: records arrive parsed from JSON.
        const parsed = JSON.parse(JSON.stringify(value) ?? "null");
        expect(isValidMethod(parsed)).toBe(Method.safeParse(parsed).success);
      }),
      { numRuns: 2000 },
    );
  });
});
