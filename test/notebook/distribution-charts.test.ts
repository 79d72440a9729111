import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { boxPlot, histogram } from "../../src/notebook";

// The distribution charts against the references a scientist would check them with: numpy's
// histogram for the bin counts, pandas' quantiles for the boxes. Values are seeded, so a failure
// can be replayed.

const PYTHON = "/usr/bin/python3";

function reference(asked: { values: number[]; bins: number; groups: Record<string, number[]> }) {
  return JSON.parse(
    execFileSync(PYTHON, [join(__dirname, "distribution_ref.py")], { input: JSON.stringify(asked) }).toString(),
  ) as {
    counts: number[];
    edges: number[];
    quartiles: Record<string, [number, number, number]>;
  };
}

/** Seeded values in [0, 8) with a spread like band gaps, a few far out. */
function seeded(seed: number, count: number): number[] {
  let state = seed;
  return Array.from({ length: count }, (_, i) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const u = state / 2 ** 31;
    return i % 50 === 0 ? 7.5 + u : Math.round(u * u * 60) / 10;
  });
}

/** The marks vega drew, by role, with their accessible labels. */
function marks(svg: string, role: string): string[] {
  const re = new RegExp(`aria-label="([^"]*)" role="graphics-symbol" aria-roledescription="${role}"`, "g");
  return [...svg.matchAll(re)].map((m) => m[1]!);
}

describe.runIf(existsSync(PYTHON))("histogram and boxPlot", () => {
  const values = seeded(7, 400);
  const rows = values.map((gap, i) => ({ gap, model: i % 3 === 0 ? "GGA+U" : "GGA", skipped: i % 7 ? gap : null }));

  it("histogram: numpy's bin edges and counts, one bar per bin, missing values left out", async () => {
    const ref = reference({ values, bins: 12, groups: {} });
    const chart = await histogram(rows, { x: "gap", bins: 12, xUnit: "eV", title: "gaps" });
    expect(chart.marks).toBe(12);
    expect(chart.summary()).toMatch(/^\[histogram: 12 bins, \d+×\d+ px\]$/);
    const counts = marks(chart.svg, "bar").map((label) => Number(/count: (\d+)/.exec(label)![1]));
    expect(counts).toEqual(ref.counts);
    const edges = marks(chart.svg, "bar").map((label) => Number(/gap \(eV\): ([\d.]+)/.exec(label)![1]));
    for (const [i, edge] of edges.entries()) expect(edge).toBeCloseTo(ref.edges[i]!, 2);
    // Missing values are not counted.
    const some = await histogram(rows, { x: "skipped", bins: 12 });
    const present = rows.filter((r) => r.skipped !== null).length;
    expect(marks(some.svg, "bar").reduce((sum, label) => sum + Number(/count: (\d+)/.exec(label)![1]), 0)).toBe(
      present,
    );
  });

  it("histogram by a category: stacked bars whose counts add up to each group's numpy counts", async () => {
    const chart = await histogram(rows, { x: "gap", bins: 6, color: "model" });
    const labels = marks(chart.svg, "bar");
    expect(labels).toHaveLength(12);
    const gga = labels.filter((l) => l.endsWith("model: GGA")).map((l) => Number(/count: (\d+)/.exec(l)![1]));
    const all = reference({ values, bins: 6, groups: {} }).counts;
    const plus = labels.filter((l) => l.endsWith("model: GGA+U")).map((l) => Number(/count: (\d+)/.exec(l)![1]));
    expect(gga.map((n, i) => n + plus[i]!)).toEqual(all);
  });

  it("boxPlot: one box per category with pandas' quartiles, values beyond 1.5 IQR as points", async () => {
    const groups = {
      GGA: rows.filter((r) => r.model === "GGA").map((r) => r.gap),
      "GGA+U": rows.filter((r) => r.model === "GGA+U").map((r) => r.gap),
    };
    const ref = reference({ values, bins: 1, groups });
    const chart = await boxPlot(rows, { x: "model", y: "gap", yUnit: "eV", xTitle: "method" });
    expect(chart.marks).toBe(2);
    expect(chart.summary()).toMatch(/^\[box plot: 2 boxes, \d+×\d+ px\]$/);
    for (const [name, [q1, median, q3]] of Object.entries(ref.quartiles)) {
      const box = marks(chart.svg, "box").find((label) => label.startsWith(`method: ${name};`))!;
      expect(box, name).toBeDefined();
      expect(Number(/Q1 of gap \(eV\): ([\d.]+)/.exec(box)![1])).toBeCloseTo(q1, 6);
      expect(Number(/Median of gap \(eV\): ([\d.]+)/.exec(box)![1])).toBeCloseTo(median, 6);
      expect(Number(/Q3 of gap \(eV\): ([\d.]+)/.exec(box)![1])).toBeCloseTo(q3, 6);
      const fence = q3 + 1.5 * (q3 - q1);
      const beyond = groups[name as keyof typeof groups].filter((v) => v > fence).length;
      const points = marks(chart.svg, "point").filter((label) => label.startsWith(`method: ${name};`));
      expect(points.length, name).toBe(beyond);
    }
  });

  it("refuses a column that does not hold numbers, naming it", async () => {
    await expect(histogram(rows, { x: "model" })).rejects.toThrow(/column "model" must hold numbers/);
    await expect(boxPlot(rows, { y: "nothing" })).rejects.toThrow(/column "nothing" has no numbers/);
    await expect(histogram(rows, { x: "gap", bins: 0 })).rejects.toThrow(/bins must be a whole number/);
  });
});
