import { axisTitle, fieldValue, renderChart, type Chart, type ChartOptions } from "./chart";
import { recordsOf, type TableInput } from "./table-input";

/** Options of {@link scatterChart}. */
export interface ScatterChartOptions extends ChartOptions {
  /**
   * Column on the horizontal axis (numbers).
   * @example "volumePerAtom"
   */
  x: string;
  /**
   * Column on the vertical axis (numbers).
   * @example "density"
   */
  y: string;
  /**
   * Title of the horizontal axis.
   * @default the `x` column name
   */
  xTitle?: string;
  /**
   * Unit of `x`, shown in brackets after its title.
   * @example "Å³/atom"
   */
  xUnit?: string;
  /**
   * Title of the vertical axis.
   * @default the `y` column name
   */
  yTitle?: string;
  /**
   * Unit of `y`, shown in brackets after its title.
   * @example "g/cm³"
   */
  yUnit?: string;
  /**
   * Column whose text labels each point.
   * @default no labels
   * @example "formula"
   */
  label?: string;
  /**
   * Column of categories that colours the points, with a legend.
   * @default one colour
   * @example "latticeSystem"
   */
  color?: string;
  /**
   * Title of the colour legend.
   * @default the `color` column name
   */
  colorTitle?: string;
}

/**
 * Draws a scatter plot to SVG, optionally with labelled and coloured points,
 * displays it in a notebook and returns it. Rows whose x or y is not a number
 * are left out (the returned chart's `marks` says how many were drawn).
 *
 * @example
 * await scatterChart(rows, { x: "volumePerAtom", xUnit: "Å³", y: "density", yUnit: "g/cm³", label: "formula" });
 */
export async function scatterChart(table: TableInput, options: ScatterChartOptions): Promise<Chart> {
  const values = recordsOf(table)
    .map((r) => ({
      x: fieldValue(r, options.x),
      y: fieldValue(r, options.y),
      label: options.label === undefined ? undefined : String(fieldValue(r, options.label) ?? ""),
      color: options.color === undefined ? undefined : String(fieldValue(r, options.color) ?? "(none)"),
    }))
    .filter((p) => isFiniteNumber(p.x) && isFiniteNumber(p.y));
  // Padding keeps points at the extremes (and their labels) inside the plotting area.
  const scale = { zero: false, padding: 16 };
  const x = { field: "x", type: "quantitative" as const, title: axisTitle(options.x, options.xTitle, options.xUnit), scale };
  const y = { field: "y", type: "quantitative" as const, title: axisTitle(options.y, options.yTitle, options.yUnit), scale };
  const color =
    options.color === undefined
      ? {}
      : { color: { field: "color", type: "nominal" as const, title: options.colorTitle ?? options.color } };
  const points = { mark: { type: "point" as const, filled: true, size: 60, tooltip: true }, encoding: { x, y, ...color } };
  const labels = {
    mark: { type: "text" as const, align: "left" as const, dx: 6, dy: -6, fontSize: 10 },
    encoding: { x, y, text: { field: "label", type: "nominal" as const, title: options.label } },
  };
  return renderChart(
    "scatter",
    {
      ...(options.title ? { title: options.title } : {}),
      width: options.width ?? 480,
      height: options.height ?? 300,
      data: { values },
      layer: options.label === undefined ? [points] : [points, labels],
    },
    values.length,
  );
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v);
}
