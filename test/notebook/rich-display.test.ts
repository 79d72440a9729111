// The display conventions of pictures, checked on tslab's real executor (the code that runs a
// cell and prints its last value) and on the bundle a Deno kernel would read.
import { Console } from "node:console";
import { createRequire } from "node:module";
import { inspect } from "node:util";
import { PNG } from "pngjs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { barChart, progress, scatterChart, show, type Chart } from "../../src/notebook";
import { resetResvgForTests } from "../../src/notebook/pictures/picture-bundle";
import { at, captured, defined, first } from "../structure/support/checked";

const requireHere = createRequire(__filename);

/** Decodes a base64 PNG and counts its pixels that are neither white nor transparent. */
function inkOf(base64: string): { width: number; height: number; ink: number } {
  const png = PNG.sync.read(Buffer.from(base64, "base64"));
  let ink = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    const [r, g, b, a] = first(png.data.subarray(i, i + 4), 4, "a pixel's RGBA");
    if (a > 0 && (r < 230 || g < 230 || b < 230)) ink += 1;
  }
  return { width: png.width, height: png.height, ink };
}

const bars = [{ k: "alpha" }, { k: "beta" }, { k: "beta" }];

describe("a chart's MIME bundle", () => {
  afterEach(() => resetResvgForTests("unloaded"));

  it("holds a PNG at twice the SVG's size, drawn, with the display size in its metadata, and a text fallback", async () => {
    const chart = await barChart(bars, { x: "k" });
    const bundle = chart.mimeBundle();
    expect(Object.keys(bundle.data).sort()).toEqual(["application/vnd.vegalite.v5+json", "image/png", "text/plain"]);
    expect(bundle.data["text/plain"]).toBe(chart.summary());
    const { width, height } = chart.size;
    expect(bundle.metadata["image/png"]).toEqual({ width, height });
    const png = inkOf(bundle.data["image/png"] as string);
    expect([png.width, png.height]).toEqual([2 * width, 2 * height]);
    // Two bars, axes and labels: far more than a blank image's none, far less than all.
    expect(png.ink).toBeGreaterThan(0.02 * png.width * png.height);
    expect(png.ink).toBeLessThan(0.8 * png.width * png.height);
  });

  it("carries its Vega-Lite 5 spec, data included, which Vega draws with the same bars", async () => {
    const chart = await barChart(bars, { x: "k", title: "Two kinds" });
    const spec = chart.mimeBundle().data["application/vnd.vegalite.v5+json"] as {
      $schema: string;
      data: { values: unknown[] };
    };
    expect(spec.$schema).toBe("https://vega.github.io/schema/vega-lite/v5.json");
    expect(spec.data.values).toEqual([
      { category: "alpha", value: 1 },
      { category: "beta", value: 2 },
    ]);
    // Drawn by Vega itself (as a front end would): two bars, the title, no error.
    const vega = requireHere("vega") as typeof import("vega");
    const vegaLite = requireHere("vega-lite") as typeof import("vega-lite");
    const view = new vega.View(vega.parse(vegaLite.compile(spec as never).spec), { renderer: "none" });
    const svg = await view.toSVG();
    view.finalize();
    expect(svg.match(/aria-label="k: [a-z]+; count: \d"/g)).toEqual([
      'aria-label="k: alpha; count: 1"',
      'aria-label="k: beta; count: 2"',
    ]);
    expect(svg).toContain("Title text 'Two kinds'");
  });

  it("holds no SVG, which nbconvert's HTML export would pick and strip", async () => {
    const chart = await barChart(bars, { x: "k" });
    expect(chart.mimeBundle().data["image/svg+xml"]).toBeUndefined();
  });

  it("without resvg, holds the SVG inside an <img> as HTML", async () => {
    resetResvgForTests("missing");
    const chart = await barChart(bars, { x: "k" });
    const html = chart.mimeBundle().data["text/html"] as string;
    const { width, height } = chart.size;
    expect(html).toMatch(
      new RegExp(
        `^<img src="data:image/svg\\+xml;base64,[A-Za-z0-9+/=]+" width="${width}" height="${height}" alt="\\[bar chart: 2 bars`,
      ),
    );
    const src = captured(/src="data:image\/svg\+xml;base64,([^"]+)"/, html, "the SVG data URL");
    expect(Buffer.from(src, "base64").toString("utf8")).toBe(chart.svg);
    expect(() => chart.png()).toThrow(/npm install @resvg\/resvg-js/);
  });

  it('is what Deno\'s Jupyter kernel reads from Symbol.for("Jupyter.display")', async () => {
    const chart = await barChart(bars, { x: "k" });
    const display = defined(
      (chart as unknown as Record<symbol, () => Record<string, string>>)[Symbol.for("Jupyter.display")],
      "the chart's Jupyter.display method",
    );
    expect(display.call(chart)).toEqual(chart.mimeBundle().data);
  });

  it("inspects as one short line outside a notebook", async () => {
    const chart = await scatterChart([{ x: 1, y: 2 }], { x: "x", y: "y" });
    expect(inspect(chart)).toMatch(/^\[scatter chart: 1 point, \d+×\d+ px\]$/);
    expect(inspect([chart])).toMatch(/^\[ \[scatter chart: 1 point, \d+×\d+ px\] \]$/);
  });
});

/**
 * tslab's own executor, as its kernel builds it (tslab `src/main.ts`): cells are compiled as
 * TypeScript, and what the kernel would send is collected from its display writer and stdout.
 */
describe("in tslab's executor", () => {
  type Executor = { execute(code: string): Promise<boolean> };
  let executor: Executor;
  let jupyter: { lastWriteDisplayData: unknown };
  const displays: {
    data: Record<string, string>;
    metadata: Record<string, unknown>;
    transient: { display_id?: string };
    update: boolean;
  }[] = [];
  let stdout = "";
  const realWrite = process.stdout.write;
  // The kernel's console writes to process.stdout; vitest's own console writes elsewhere.
  const kernelConsole = new Console(process.stdout, process.stdout);
  const testConsole = globalThis.console;

  beforeAll(() => {
    const { createExecutor } = requireHere("tslab/dist/executor");
    const { createConverter } = requireHere("tslab/dist/converter");
    jupyter = requireHere("tslab/dist/jupyter");
    const node = createConverter({ isJS: false, isBrowser: false });
    executor = createExecutor(
      process.cwd(),
      { node, browser: node },
      { log: kernelConsole.log, error: kernelConsole.error },
    );
  });

  afterAll(() => {
    delete (globalThis as { __tslab__?: unknown }).__tslab__;
    delete (globalThis as { matframeTest?: unknown }).matframeTest;
  });

  /** Runs one cell the way tslab's kernel does: a fresh display writer, stdout captured. */
  async function runCell(code: string): Promise<{ displays: typeof displays; stdout: string }> {
    displays.length = 0;
    stdout = "";
    jupyter.lastWriteDisplayData = (content: (typeof displays)[number], update: boolean) =>
      displays.push({ ...content, update });
    process.stdout.write = ((chunk: string) => {
      stdout += chunk;
      return true;
    }) as typeof process.stdout.write;
    globalThis.console = kernelConsole;
    try {
      const ok = await executor.execute(code);
      expect(ok, stdout).toBe(true);
    } finally {
      process.stdout.write = realWrite;
      globalThis.console = testConsole;
    }
    return { displays: [...displays], stdout };
  }

  const state = globalThis as unknown as {
    matframeTest: { barChart: typeof barChart; show: typeof show; progress: typeof progress; chart?: Chart };
  };

  it("hands the test's objects to the cells through a global", async () => {
    state.matframeTest = { barChart, show, progress };
    const cell = await runCell(`const matframeTest = (globalThis as any).matframeTest;`);
    expect(cell.stdout).toBe("");
  });

  it("a chart drawn in a cell is displayed once, as one bundle, and as the cell's last value adds no text line", async () => {
    const cell = await runCell(`await matframeTest.barChart([{ k: "a" }, { k: "b" }], { x: "k" })`);
    expect(cell.displays).toHaveLength(1);
    expect(Object.keys(at(cell.displays, 0, "the displays").data).sort()).toEqual([
      "application/vnd.vegalite.v5+json",
      "image/png",
      "text/plain",
    ]);
    expect(cell.stdout).toBe("");
  });

  it("a chart from an earlier cell, as a cell's last value, is displayed again", async () => {
    await runCell(`matframeTest.chart = await matframeTest.barChart([{ k: "a" }], { x: "k" }); 1`);
    const cell = await runCell(`matframeTest.chart`);
    expect(cell.displays).toHaveLength(1);
    expect(at(cell.displays, 0, "the displays").data["text/plain"]).toMatch(/^\[bar chart: 1 bar, /);
    expect(cell.stdout).toBe("");
  });

  it("console.log of a chart prints its summary line, and nothing is swallowed", async () => {
    const cell = await runCell(`console.log(matframeTest.chart); console.log(""); "after"`);
    expect(cell.displays).toHaveLength(0);
    expect(cell.stdout).toMatch(/^\[bar chart: 1 bar, \d+×\d+ px\]\n\nafter\n$/);
  });

  it("a chart inside an array that is a cell's value prints as its summary", async () => {
    const cell = await runCell(`[matframeTest.chart]`);
    expect(cell.displays).toHaveLength(0);
    expect(cell.stdout).toMatch(/^\[ \[bar chart: 1 bar, \d+×\d+ px\] \]\n$/);
  });

  it("show() as a cell's last expression displays the table once, HTML with its text fallback", async () => {
    const cell = await runCell(`matframeTest.show([{ formula: "Si", atoms: 2 }])`);
    expect(cell.displays).toHaveLength(1);
    const { data } = at(cell.displays, 0, "the displays");
    expect(Object.keys(data).sort()).toEqual(["text/html", "text/plain"]);
    expect(data["text/plain"]).toContain("(1 row × 2 columns)");
    expect(cell.stdout).toBe("");
  });

  it("a progress display updates one output in place, each state HTML with a text fallback", async () => {
    const cell = await runCell(`const p = matframeTest.progress({ label: "materials", expected: 10 }); p.done(10);`);
    expect(cell.displays.length).toBeGreaterThanOrEqual(1);
    const ids = new Set(cell.displays.map((d) => d.transient.display_id));
    expect(ids.size).toBe(1);
    expect(cell.displays.map((d) => d.update)).toEqual(cell.displays.map((_, i) => i > 0));
    const last = cell.displays.at(-1)!;
    expect(last.data["text/plain"]).toBe("done: 10 / 10 materials (100%)");
    expect(last.data["text/html"]).toContain('<progress value="10" max="10"');
  });
});
