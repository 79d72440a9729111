import { describe, expect, it } from "vitest";
import { inspect } from "node:util";
import { barChart, scatterChart } from "../../src/notebook";
import { first, group } from "../structure/support/checked";

/** The data marks vega drew, with their accessible labels (vega-lite writes one per mark). */
function marks(svg: string, role: "bar" | "point" | "text mark") {
  const re = new RegExp(
    `<(?:path|text) aria-label="([^"]*)" role="graphics-symbol" aria-roledescription="${role}"([^>]*)>`,
    "g",
  );
  return [...svg.matchAll(re)].map((m) => ({ label: group(m, 1), attrs: group(m, 2) }));
}

/** Left edge of a vega bar path "M x,y ...". */
function barX(attrs: string): number {
  return Number(/d="M([\d.-]+),/.exec(attrs)?.[1]);
}

/** Height of a vega bar path "M x,y h w v h h -w Z". */
function barHeight(attrs: string): number {
  const d = /d="M[\d.-]+,[\d.-]+h[\d.-]+v([\d.-]+)h/.exec(attrs);
  if (!d) throw new Error(`not a bar path: ${attrs}`);
  return Number(d[1]);
}

describe("barChart", () => {
  const records = [
    { method: { subtype: "paw" } },
    { method: { subtype: "nc" } },
    { method: { subtype: "nc" } },
    { method: { subtype: "nc" } },
    { method: { subtype: "us" } },
    { method: { subtype: "us" } },
    {},
  ];

  it("counts rows per category and draws one bar each, heights proportional to the counts", async () => {
    const chart = await barChart(records, { x: "method.subtype", xTitle: "method subtype", yTitle: "materials" });
    expect(chart.svg.startsWith("<svg")).toBe(true);
    expect(chart.svg.trimEnd().endsWith("</svg>")).toBe(true);
    // vega writes marks in data order; their x positions give the drawn (descending) order.
    const bars = marks(chart.svg, "bar").sort((p, q) => barX(p.attrs) - barX(q.attrs));
    expect(bars.map((b) => b.label).slice(0, 2)).toEqual([
      "method subtype: nc; materials: 3",
      "method subtype: us; materials: 2",
    ]);
    expect(
      bars
        .map((b) => b.label)
        .slice(2)
        .sort(),
    ).toEqual(["method subtype: (none); materials: 1", "method subtype: paw; materials: 1"]);
    const heights = bars.map((b) => barHeight(b.attrs));
    const [nc, us, one] = first(heights, 3, "the bar heights");
    expect(nc / one).toBeCloseTo(3, 5);
    expect(us / one).toBeCloseTo(2, 5);
    expect(chart.marks).toBe(4);
  });

  it("titles the axes, the value axis with its unit", async () => {
    const chart = await barChart(
      [
        { system: "cubic", volume: 20.5 },
        { system: "hexagonal", volume: 40 },
      ],
      {
        x: "system",
        y: "volume",
        xTitle: "lattice system",
        yTitle: "mean volume per atom",
        yUnit: "Å³",
        title: "Volumes",
      },
    );
    expect(chart.svg).toContain(">lattice system</text>");
    expect(chart.svg).toContain(">mean volume per atom (Å³)</text>");
    expect(chart.svg).toContain(">Volumes</text>");
    const heights = marks(chart.svg, "bar").map((b) => barHeight(b.attrs));
    const [cubic, hexagonal] = first(heights, 2, "the bar heights");
    expect(hexagonal / cubic).toBeCloseTo(40 / 20.5, 5);
  });

  it("escapes category names in the SVG", async () => {
    const chart = await barChart([{ k: "<script>alert(1)</script>" }], { x: "k" });
    expect(chart.svg).not.toContain("<script>");
    expect(chart.svg).toContain("&lt;script&gt;");
  });

  it("says which bar is not a number", async () => {
    await expect(barChart([{ k: "a", v: "12" }], { x: "k", y: "v" })).rejects.toThrow(
      /column "v" must hold numbers; the bar "a"/,
    );
  });

  it("prints as a one-line summary, not as SVG text", async () => {
    const chart = await barChart([{ k: "a" }], { x: "k" });
    expect(inspect(chart)).toMatch(/^\[bar chart: 1 bar, \d+×\d+ px\]$/);
    expect(String(chart)).toBe(chart.svg);
  });
});

describe("scatterChart", () => {
  const rows = [
    { formula: "Si", "volume per atom": 20.4, density: 2.28, system: "cubic" },
    { formula: "GaAs", "volume per atom": 23.7, density: 5.07, system: "cubic" },
    { formula: "ZnO", "volume per atom": 12.4, density: 5.44, system: "hexagonal" },
    { formula: "broken", "volume per atom": null, density: 1, system: "cubic" },
  ];

  it("draws one point per row with numbers, labelled, with axis titles and units", async () => {
    const chart = await scatterChart(rows, {
      x: "volume per atom",
      xUnit: "Å³",
      y: "density",
      yUnit: "g/cm³",
      label: "formula",
      color: "system",
      colorTitle: "lattice system",
    });
    expect(chart.marks).toBe(3);
    const points = marks(chart.svg, "point");
    expect(points.map((p) => p.label)).toEqual([
      "volume per atom (Å³): 20.4; density (g/cm³): 2.28; lattice system: cubic",
      "volume per atom (Å³): 23.7; density (g/cm³): 5.07; lattice system: cubic",
      "volume per atom (Å³): 12.4; density (g/cm³): 5.44; lattice system: hexagonal",
    ]);
    const labels = [...chart.svg.matchAll(/aria-roledescription="text mark"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(labels).toEqual(["Si", "GaAs", "ZnO"]);
    expect(chart.svg).toContain(">volume per atom (Å³)</text>");
    expect(chart.svg).toContain(">density (g/cm³)</text>");
    expect(chart.svg).toContain(">lattice system</text>"); // legend title
    expect(chart.svg).not.toContain("broken");
  });

  it("places points by their values: higher density is drawn higher", async () => {
    const chart = await scatterChart(rows.slice(0, 3), { x: "volume per atom", y: "density" });
    const ys = marks(chart.svg, "point").map((p) => Number(/translate\([\d.-]+,([\d.-]+)\)/.exec(p.attrs)?.[1]));
    // SVG y grows downwards: Si (2.28) lowest on the page, ZnO (5.44) highest.
    const [si, gaas, zno] = first(ys, 3, "the points' heights");
    expect(si).toBeGreaterThan(gaas);
    expect(gaas).toBeGreaterThan(zno);
  });
});
