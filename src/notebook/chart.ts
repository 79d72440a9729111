import { inspect } from "node:util";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { tslabModule } from "./tslab-display";

/**
 * A rendered chart. In a notebook it has already been displayed; its `svg`
 * is a standalone SVG document to save or embed.
 */
export class Chart {
  constructor(
    /** "bar" or "scatter". */
    readonly kind: string,
    /** The SVG document, starting with `<svg`. */
    readonly svg: string,
    /** Bars or points drawn. */
    readonly marks: number,
  ) {}

  /** The SVG, so a chart can be written straight to a file. */
  toString(): string {
    return this.svg;
  }

  // tslab prints a cell's last value with console.log: a one-line summary, not pages of SVG.
  [inspect.custom](): string {
    return `[${this.kind} chart: ${this.marks} ${this.kind === "bar" ? "bars" : "points"}]`;
  }
}

/** Options every chart takes. */
export interface ChartOptions {
  /**
   * Title above the chart.
   * @default no title
   */
  title?: string;
  /**
   * Width of the plotting area in pixels.
   * @default 480
   */
  width?: number;
  /**
   * Height of the plotting area in pixels.
   * @default 300
   */
  height?: number;
}

/** The title and plotting-area size of a spec, with the defaults documented on `ChartOptions`. */
export function chartFrame(options: ChartOptions): { title?: string; width: number; height: number } {
  return {
    ...(options.title ? { title: options.title } : {}),
    width: options.width ?? 480,
    height: options.height ?? 300,
  };
}

/** Shared look: white background (readable in dark themes), one sans-serif font. */
const CONFIG = {
  background: "white",
  font: "sans-serif",
  axis: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: "normal" as const },
  title: { fontSize: 14, anchor: "start" as const },
};

/**
 * Compiles a Vega-Lite spec, renders it headless to SVG, and displays it in a notebook.
 * `adjust` may change the compiled Vega spec first (see scatter labels).
 */
export async function renderChart(
  kind: string,
  spec: TopLevelSpec,
  marks: number,
  adjust?: (compiled: vega.Spec) => Promise<void>,
): Promise<Chart> {
  const compiled = compile({ config: CONFIG, ...spec } as TopLevelSpec).spec;
  await adjust?.(compiled);
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  try {
    const svg = await view.toSVG();
    const chart = new Chart(kind, svg, marks);
    tslabModule()?.display.svg(svg);
    return chart;
  } finally {
    view.finalize();
  }
}

/** "volume per atom (Å³)": an axis title with its unit, when there is one. */
export function axisTitle(column: string, title?: string, unit?: string): string {
  const base = title ?? column;
  return unit ? `${base} (${unit})` : base;
}

/**
 * A field of a record: a flat key first (DataFrame columns are named
 * "lattice.a"), then a dotted path into nested objects (raw records).
 */
export function fieldValue(record: Record<string, unknown>, field: string): unknown {
  if (Object.hasOwn(record, field)) return record[field];
  let value: unknown = record;
  for (const part of field.split(".")) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
