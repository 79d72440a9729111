import type * as Vega from "vega";
import type { TopLevelSpec } from "vega-lite";
import { MissingDependencyError } from "../../errors";
import { readableTitle } from "./axis-defaults";
import { Picture } from "../pictures/picture";
import { inNotebook } from "../kernel/kernel";
import type { MimeBundle } from "../kernel/mime-bundle";

/** The MIME type of a Vega-Lite 5 spec, which JupyterLab and VS Code draw as an interactive chart. */
export const VEGA_LITE_MIME = "application/vnd.vegalite.v5+json";
const VEGA_LITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json";

/**
 * A rendered chart. In a notebook it has already been displayed (as a PNG with a text fallback,
 * which survives HTML export, and its Vega-Lite spec, which front ends that draw Vega-Lite show
 * interactively); as a cell's last expression it is not shown a second time. Its `svg` is a
 * standalone SVG document to save or embed.
 */
export class Chart extends Picture {
  constructor(
    /** "bar", "scatter", "histogram" or "box". */
    readonly kind: string,
    /** The SVG document, starting with `<svg`. */
    readonly svg: string,
    /** Bars, points, bins or boxes drawn. */
    readonly marks: number,
    /**
     * The Vega-Lite 5 spec drawn, data included (a scatter chart's labels sit on their points
     * there: the placement that keeps them apart is made for the picture only).
     * @default none (the bundle then holds the picture only)
     */
    readonly vegaLite?: Record<string, unknown>,
  ) {
    super();
  }

  /** The picture's bundle (PNG and text), with the Vega-Lite spec beside them. */
  override mimeBundle(): MimeBundle {
    const bundle = super.mimeBundle();
    if (!this.vegaLite) return bundle;
    return { data: { ...bundle.data, [VEGA_LITE_MIME]: this.vegaLite }, metadata: bundle.metadata };
  }

  summary(): string {
    const { width, height } = this.size;
    const unit = MARK_NAMES[this.kind] ?? ["point", "points"];
    const kind = this.kind === "box" ? "box plot" : this.kind === "histogram" ? "histogram" : `${this.kind} chart`;
    return `[${kind}: ${this.marks} ${unit[this.marks === 1 ? 0 : 1]}, ${width}×${height} px]`;
  }
}

/** What a chart's marks are called in its text summary, singular and plural. */
const MARK_NAMES: Readonly<Record<string, readonly [string, string]>> = {
  bar: ["bar", "bars"],
  histogram: ["bin", "bins"],
  box: ["box", "boxes"],
};

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

type VegaLite = typeof import("vega-lite");

/**
 * Loads vega and vega-lite on the first chart: optional peers of matframe (about 28 MB
 * installed, 20 ms and 8 MiB to load), which only the chart helpers need.
 * @throws MissingDependencyError when either is not installed.
 */
function loadVega(): { vega: typeof Vega; vegaLite: VegaLite } {
  const load = <T>(name: string): T => {
    try {
      return require(name) as T;
    } catch (error) {
      if (
        (error as { code?: unknown }).code === "MODULE_NOT_FOUND" &&
        String((error as Error).message).includes(`'${name}'`)
      ) {
        throw new MissingDependencyError(name, "A chart", {
          cause: error,
          hint: "Charts need both: npm install vega@5 vega-lite@5",
        });
      }
      throw error;
    }
  };
  return { vega: load<typeof Vega>("vega"), vegaLite: load<VegaLite>("vega-lite") };
}

/**
 * Compiles a Vega-Lite spec, renders it headless to SVG, and displays it in a notebook.
 * `adjust` may change the compiled Vega spec first (see scatter labels).
 * @internal
 */
export async function renderChart(
  kind: string,
  spec: TopLevelSpec,
  marks: number,
  adjust?: (compiled: Vega.Spec, vega: typeof Vega) => Promise<void>,
): Promise<Chart> {
  const { vega, vegaLite } = loadVega();
  // A copy as JSON (what the bundle carries) before `adjust` may change shared data objects.
  const interactive = JSON.parse(JSON.stringify({ $schema: VEGA_LITE_SCHEMA, config: CONFIG, ...spec })) as Record<
    string,
    unknown
  >;
  const compiled = vegaLite.compile({ config: CONFIG, ...spec } as TopLevelSpec).spec;
  await adjust?.(compiled, vega);
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  try {
    const svg = await view.toSVG();
    const chart = new Chart(kind, svg, marks, interactive);
    if (inNotebook()) chart.display();
    return chart;
  } finally {
    view.finalize();
  }
}

/**
 * "volume per atom (Å³)": an axis title with its unit, when there is one; without a title, the
 * column's readable name ("derivedProperties.density" → "density").
 */
export function axisTitle(column: string, title?: string, unit?: string): string {
  const base = title ?? readableTitle(column);
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
