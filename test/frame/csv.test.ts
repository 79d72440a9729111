import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parse } from "csv-parse/sync";
import { csvField, csvLine } from "../../src/frame/export/csv";

describe("csvField", () => {
  it.each([
    ["plain", "plain"],
    ["Fe2O3, hematite", '"Fe2O3, hematite"'],
    ['say "hi"', '"say ""hi"""'],
    ["two\nlines", '"two\nlines"'],
    ["cr\rhere", '"cr\rhere"'],
    ["", ""],
    [null, ""],
    [undefined, ""],
    [3.25, "3.25"],
    [0, "0"],
    [NaN, ""],
    [true, "true"],
    [{ a: 1, b: "x" }, '"{""a"":1,""b"":""x""}"'],
    [["3D", "bulk"], '"[""3D"",""bulk""]"'],
  ])("%j -> %j", (value, text) => {
    expect(csvField(value)).toBe(text);
  });
});

describe("csvLine", () => {
  it("survives a round trip through csv-parse for any strings, without formula escaping", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary", minLength: 1 }), { minLength: 1, maxLength: 6 }), (cells) => {
        const text = `${csvLine(cells, false)}\n${csvLine(cells, false)}\n`;
        expect(parse(text, { relax_column_count: false })).toEqual([cells, cells]);
      }),
      { numRuns: 1000 },
    );
  });

  it("with formula escaping, a cell comes back the same or with one leading ' before = + - @ tab or CR", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary", minLength: 1 }), { minLength: 1, maxLength: 6 }), (cells) => {
        const [parsed] = parse(`${csvLine(cells)}\n`, { relax_column_count: false }) as string[][];
        expect(parsed).toEqual(cells.map((c) => (/^[=+\-@\t\r]/.test(c) ? `'${c}` : c)));
      }),
      { numRuns: 1000 },
    );
  });
});
