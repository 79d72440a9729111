// Chart defaults a reader notices: axes that respect the data's sign, readable titles, flat short
// bar labels. (Label overlap is covered in label-placement.test.ts.)
import { describe, expect, it } from "vitest";
import { barChart, scatterChart } from "../../src/notebook";
import { niceDomain, readableTitle } from "../../src/notebook/charts/axis-defaults";
import { group } from "../structure/support/checked";

/** Numbers written as text in an SVG (tick labels), with Vega's minus sign read as "-". */
function numbersIn(svg: string): number[] {
  return [...svg.matchAll(/>([−-]?[\d.,]+)<\/text>/g)].map((m) =>
    Number(group(m, 1).replace("−", "-").replace(/,/g, "")),
  );
}

/** The x-axis label elements of a Vega SVG (text marks inside the axis-label group). */
function axisLabelTags(svg: string): string[] {
  return [
    ...svg.matchAll(/<text [^>]*>(?:nc|us|paw|a rather long category name|another long category name)<\/text>/g),
  ].map((m) => m[0]);
}

describe("niceDomain", () => {
  it("starts non-negative data at 0 at the lowest and ends at round values", () => {
    expect(niceDomain([1.84, 18.0])).toEqual([0, 20]);
    expect(niceDomain([0.1, 0.3])).toEqual([0.05, 0.35]);
    expect(niceDomain([0.0001, 0.0004])).toEqual([0, 0.0005]);
  });

  it("keeps room around data far from zero, and ends non-positive data at 0 at the highest", () => {
    expect(niceDomain([8.7, 28])).toEqual([5, 30]);
    expect(niceDomain([-3, -1])).toEqual([-3.5, -0.5]);
    expect(niceDomain([-0.3, -0.01])[1]).toBe(0);
  });

  it("spans data of both signs, and gives a single value or none some room", () => {
    const [lo, hi] = niceDomain([-2, 7]);
    expect(lo).toBeLessThan(-2);
    expect(hi).toBeGreaterThan(7);
    expect(niceDomain([5])).toEqual([4, 6]);
    expect(niceDomain([0])).toEqual([0, 1]);
    expect(niceDomain([])).toEqual([0, 1]);
  });
});

describe("readableTitle", () => {
  it("names a column by its last path segment, spaced, keeping the parent of a one-letter one", () => {
    expect(readableTitle("derivedProperties.density")).toBe("density");
    expect(readableTitle("volumePerAtom")).toBe("volume per atom");
    expect(readableTitle("lattice.a")).toBe("lattice a");
    expect(readableTitle("band_gap")).toBe("band gap");
    expect(readableTitle("volume per atom (Å³)")).toBe("volume per atom (Å³)");
    expect(readableTitle("derivedProperties.density [g/cm^3]")).toBe("density (g/cm^3)");
    expect(readableTitle("lattice.a [angstrom]")).toBe("lattice a (angstrom)");
  });
});

describe("scatterChart defaults", () => {
  const records = [
    { lattice: { a: 3.867 }, derivedProperties: { density: 2.28 } },
    { lattice: { a: 2.556 }, derivedProperties: { density: 8.92 } },
    { lattice: { a: 2.884 }, derivedProperties: { density: 19.3 } },
    { lattice: { a: 4.02 }, derivedProperties: { density: 0.53 } },
  ];

  it("draws no negative tick for data that is never negative", async () => {
    const chart = await scatterChart(records, { x: "lattice.a", y: "derivedProperties.density" });
    const ticks = numbersIn(chart.svg);
    expect(ticks.length).toBeGreaterThan(6);
    expect(Math.min(...ticks)).toBe(0);
  });

  it("titles the axes with readable names, not dotted paths", async () => {
    const chart = await scatterChart(records, { x: "lattice.a", y: "derivedProperties.density", xUnit: "Å" });
    expect(chart.svg).toContain(">density</text>");
    expect(chart.svg).toContain(">lattice a (Å)</text>");
    expect(chart.svg).not.toContain("derivedProperties");
  });

  it("leaves out a label that would overlap another, keeping the point", async () => {
    const crowded = Array.from({ length: 9 }, (_, i) => ({
      x: 1 + (i % 3) * 0.001,
      y: 1 + Math.floor(i / 3) * 0.001,
      name: `Crowded${i}`,
    }));
    const chart = await scatterChart([...crowded, { x: 2, y: 2, name: "alone" }], { x: "x", y: "y", label: "name" });
    expect(chart.marks).toBe(10);
    const labels = [...chart.svg.matchAll(/aria-roledescription="text mark"[^>]*>([^<]*)<\/text>/g)]
      .map((m) => m[1])
      .filter((t) => t !== "");
    expect(labels).toContain("alone");
    expect(labels.length).toBeLessThan(10);
  });
});

describe("barChart defaults", () => {
  it("draws short category labels flat and long ones slanted", async () => {
    const short = await barChart([{ k: "nc" }, { k: "us" }, { k: "paw" }], { x: "k", width: 360 });
    const flat = axisLabelTags(short.svg);
    expect(flat).toHaveLength(3);
    for (const tag of flat) expect(tag).not.toMatch(/rotate\(/);

    const long = await barChart(
      [{ k: "a rather long category name" }, { k: "another long category name" }, { k: "nc" }],
      { x: "k", width: 200 },
    );
    // Vega writes -30° as rotate(330).
    expect(axisLabelTags(long.svg).find((tag) => tag.endsWith(">nc</text>"))).toMatch(/rotate\(330\)/);
  });

  it("titles the category axis by the column's readable name", async () => {
    const chart = await barChart([{ method: { subtype: "nc" } }], { x: "method.subtype" });
    expect(chart.svg).toContain(">subtype</text>");
  });
});
