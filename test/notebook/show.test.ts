import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { DataFrame } from "danfojs-node";
import { show, toHtmlTable, toTextTable } from "../../src/notebook";
import { defined } from "../structure/support/checked";

/** Collects what show() writes outside a notebook. */
function sink() {
  let text = "";
  return {
    write: (s: string) => (text += s),
    get text() {
      return text;
    },
  };
}

const rows = [
  { formula: "Si", name: "Silicon <b>bold</b> & \"quoted\" 'x'", "lattice.a": 3.867 },
  { formula: "GaAs", name: "Gallium arsenide", "lattice.a": 4.0633 },
  { formula: "NaCl", name: "Salt", "lattice.a": 3.9922 },
];

describe("table cells", () => {
  it("line up decimal points: a float column gets the decimals its longest fraction needs, up to four", () => {
    const text = toTextTable([
      { formula: "AlN", c: 5.017, n: 2, tiny: 0.00123 },
      { formula: "ZnO", c: 5.3068, n: 4, tiny: 0.5 },
      { formula: "Au", c: 23.36251, n: 1, tiny: null },
    ]);
    const lines = text.split("\n");
    expect(lines[2]).toBe("AlN       5.0170  2  0.00123");
    expect(lines[3]).toBe("ZnO       5.3068  4      0.5");
    expect(lines[4]).toBe("Au       23.3625  1");
  });

  it("put a leading _id last: tables read from their first columns", () => {
    const text = toTextTable([{ _id: "2rSzeBnPq6SRikyPh", formula: "ZnO" }]);
    expect(text.split("\n")[0]).toBe("formula  _id");
    expect(text.split("\n")[2]).toBe("ZnO      2rSzeBnPq6SRikyPh");
    expect(toHtmlTable([{ _id: "x", formula: "Si" }])).toMatch(/<th[^>]*>formula<\/th><th[^>]*>_id<\/th>/);
  });
});

describe("toHtmlTable", () => {
  it("escapes markup in cells and column names", () => {
    const html = toHtmlTable([{ "<script>": "<img src=x onerror=alert(1)>", ok: "a & b" }]);
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;script&gt;");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain("a &amp; b");
  });

  it("escapes quotes, so cell text cannot break out of an attribute either", () => {
    const html = toHtmlTable(rows);
    expect(html).toContain("Silicon &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot; &#39;x&#39;");
  });

  it("right-aligns numbers and left-aligns text", () => {
    const html = toHtmlTable(rows);
    const cells = [...html.matchAll(/<td style="([^"]*)">([^<]*)<\/td>/g)];
    const number = cells.find((c) => c[2] === "3.8670");
    const text = cells.find((c) => c[2] === "Si");
    expect(number?.[1]).toContain("text-align:right");
    expect(text?.[1]).toContain("text-align:left");
  });

  it("shows at most maxRows rows and says how many there are in the caption", () => {
    const many = Array.from({ length: 57 }, (_, i) => ({ i, square: i * i }));
    const html = toHtmlTable(many, { maxRows: 5 });
    expect(html.match(/<tr>/g)).toHaveLength(6); // header + 5
    expect(html).toMatch(/<caption[^>]*>first 5 of 57 rows × 2 columns<\/caption>/);
    expect(html).toContain(">16<"); // row 4: 4 * 4
    expect(html).not.toContain(">25<"); // row 5 is cut
  });

  it("gives every column, even one only later rows have, and leaves missing cells empty", () => {
    const html = toHtmlTable([{ a: 1 }, { a: 2, b: "late" }]);
    expect(html).toContain(">b</th>");
    expect(html.match(/<td[^>]*><\/td>/g)).toHaveLength(1);
  });

  it("reads a danfo DataFrame", () => {
    const df = new DataFrame(rows.map((r) => ({ formula: r.formula, a: r["lattice.a"] })));
    const html = toHtmlTable(df, { maxRows: 2 });
    expect(html).toContain(">formula</th>");
    expect(html).toContain(">GaAs</td>");
    expect(html).not.toContain(">NaCl</td>");
    expect(html).toContain("first 2 of 3 rows × 2 columns");
  });

  it("rejects a maxRows that is not a row count", () => {
    expect(() => toHtmlTable(rows, { maxRows: -1 })).toThrow(/maxRows must be a whole number/);
    expect(() => toHtmlTable(rows, { maxRows: 2.5 })).toThrow(/maxRows/);
  });

  it("takes rows typed by an interface, which has no index signature", () => {
    interface Crystal {
      formula: string;
      atoms: number;
    }
    const crystals: Crystal[] = [{ formula: "Si", atoms: 2 }];
    expect(toHtmlTable(crystals)).toContain('<td style="text-align:right">2</td>');
  });

  it("says what it takes when given something else", () => {
    expect(() => toHtmlTable(null as never)).toThrow(/array of row objects or a DataFrame/);
  });
});

describe("toTextTable", () => {
  it("aligns columns, numbers to the right", () => {
    const text = toTextTable([
      { formula: "Si", atoms: 2 },
      { formula: "Al2O3", atoms: 10 },
    ]);
    expect(text.split("\n")).toEqual([
      "formula  atoms",
      "-------  -----",
      "Si           2",
      "Al2O3       10",
      "(2 rows × 2 columns)",
    ]);
  });

  it("rounds long floats and cuts long text", () => {
    const text = toTextTable([{ x: 1 / 3, tiny: 0.000123456, long: "y".repeat(200) }]);
    expect(text).toContain("0.3333");
    expect(text).toContain("0.000123");
    expect(text).toContain(`${"y".repeat(79)}…`);
    expect(text).not.toContain("y".repeat(80));
  });
});

describe("show outside a notebook", () => {
  it("prints plain text, not HTML", () => {
    const out = sink();
    const result = show(rows, { maxRows: 2, output: out });
    expect(inspect(result)).toBe("[table: first 2 of 3 rows × 3 columns]");
    expect(out.text).not.toContain("<table");
    expect(out.text).toContain("Silicon <b>bold</b>"); // plain text is not escaped
    expect(out.text).toContain("(first 2 of 3 rows × 3 columns)");
    expect(out.text.endsWith("\n")).toBe(true);
  });

  it("defaults to 20 rows", () => {
    const out = sink();
    show(
      Array.from({ length: 30 }, (_, i) => ({ i })),
      { output: out },
    );
    expect(out.text).toContain("(first 20 of 30 rows × 1 column)");
  });
});

describe("the table show returns", () => {
  it("carries the HTML table and the text table as its fallback, for Deno's Jupyter.display too", () => {
    const table = show(rows, { maxRows: 2, output: sink() });
    const bundle = table.mimeBundle();
    expect(bundle.data["text/html"]).toBe(toHtmlTable(rows, { maxRows: 2 }));
    expect(bundle.data["text/plain"]).toBe(toTextTable(rows, { maxRows: 2 }));
    const display = defined(
      (table as unknown as Record<symbol, () => Record<string, string>>)[Symbol.for("Jupyter.display")],
      "the table's Jupyter.display method",
    );
    expect(display.call(table)).toEqual(bundle.data);
  });
});
