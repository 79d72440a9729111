import type * as Vega from "vega";
import { axisTitle, fieldValue, chartFrame, renderChart, type Chart, type ChartOptions } from "./chart";
import { niceDomain, readableTitle } from "./axis-defaults";
import { DIRECTIONS, placeLabels } from "./label-placement";
import { recordsOf, type TableInput } from "../tables/table-input";

const POINT_AREA = 60;
const LABEL_FONT_SIZE = 10;

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
   * @default the `x` column's readable name ("volumePerAtom" → "volume per atom")
   */
  xTitle?: string;
  /**
   * Unit of `x`, shown in brackets after its title.
   * @example "Å³/atom"
   */
  xUnit?: string;
  /**
   * Title of the vertical axis.
   * @default the `y` column's readable name ("derivedProperties.density" → "density")
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
   * @default the `color` column's readable name
   */
  colorTitle?: string;
}

/**
 * Draws a scatter plot to SVG, optionally with labelled and coloured points,
 * displays it in a notebook and returns it. Rows whose x or y is not a number
 * are left out (the returned chart's `marks` says how many were drawn). Axes run between round
 * values around the data, from 0 at the lowest for data that is never negative. Labels never
 * overlap: one that cannot be placed clear of the others is left out.
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
  // Round domains with room at the extremes, never crossing zero where the data does not.
  const scale = (axis: "x" | "y") => ({
    domain: niceDomain(values.map((v) => v[axis] as number)),
    nice: false,
    zero: false,
  });
  const x = {
    field: "x",
    type: "quantitative" as const,
    title: axisTitle(options.x, options.xTitle, options.xUnit),
    scale: scale("x"),
  };
  const y = {
    field: "y",
    type: "quantitative" as const,
    title: axisTitle(options.y, options.yTitle, options.yUnit),
    scale: scale("y"),
  };
  const color =
    options.color === undefined
      ? {}
      : {
          color: {
            field: "color",
            type: "nominal" as const,
            title: options.colorTitle ?? readableTitle(options.color),
          },
        };
  const points = {
    mark: { type: "point" as const, filled: true, size: POINT_AREA, tooltip: true },
    encoding: { x, y, ...color },
  };
  const labels = {
    mark: { type: "text" as const, fontSize: LABEL_FONT_SIZE },
    encoding: { x, y, text: { field: "label", type: "nominal" as const, title: options.label } },
  };
  return renderChart(
    "scatter",
    {
      ...chartFrame(options),
      data: { values },
      layer: options.label === undefined ? [points] : [points, labels],
    },
    values.length,
    options.label === undefined ? undefined : spreadLabels,
  );
}

/**
 * Moves each point's label to a side where it overlaps no other label or point: the points'
 * pixel positions come from the scales of a first, unrendered run of the same spec; the chosen
 * offsets go into the data, and the compiled text mark reads them per point.
 */
async function spreadLabels(compiled: Vega.Spec, vega: typeof Vega): Promise<void> {
  const source = compiled.data?.find((d): d is Vega.ValuesData => Array.isArray((d as Vega.ValuesData).values));
  const text = compiled.marks?.find((m) => m.type === "text");
  if (!source || !text?.encode?.update) return;
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  try {
    await view.runAsync();
    const xScale = view.scale("x");
    const yScale = view.scale("y");
    const values = source.values as { x: number; y: number; label?: string }[];
    const placements = placeLabels(
      values.map((v) => ({ x: xScale(v.x), y: yScale(v.y), text: v.label ?? "" })),
      {
        width: view.width(),
        height: view.height(),
        fontSize: LABEL_FONT_SIZE,
        pointRadius: Math.sqrt(POINT_AREA / Math.PI),
      },
    );
    // A label that would overlap another is left out; its point keeps its tooltip.
    values.forEach((v, i) => {
      Object.assign(
        v,
        placements[i] ? { labelPlacement: placements[i] } : { label: "", labelPlacement: DIRECTIONS[0] },
      );
    });
  } finally {
    view.finalize();
  }
  Object.assign(text.encode.update, {
    dx: { field: "labelPlacement.dx" },
    dy: { field: "labelPlacement.dy" },
    align: { field: "labelPlacement.align" },
    baseline: { field: "labelPlacement.baseline" },
  });
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v);
}
