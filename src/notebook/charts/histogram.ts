import { ValidationError } from "../../errors";
import { axisTitle, chartFrame, renderChart, type Chart, type ChartOptions } from "./chart";
import { binCounts, binEdges, distributionOf } from "./distribution-values";
import { recordsOf, type TableInput } from "../tables/table-input";

/** Options of {@link histogram}. */
export interface HistogramOptions extends ChartOptions {
  /**
   * Column of numbers whose distribution is drawn.
   * @example "band_gaps.indirect"
   */
  x: string;
  /**
   * Number of bins of equal width, from the smallest value to the largest (numpy's and
   * matplotlib's rule: the last bin holds the largest value).
   * @default 20
   */
  bins?: number;
  /**
   * Column of categories: one stacked colour per category (rows without one are "(none)").
   * @default one colour
   */
  color?: string;
  /**
   * Title of the value axis.
   * @default the `x` column's readable name
   */
  xTitle?: string;
  /** Unit of the values, in brackets after the axis title. @example "eV" */
  xUnit?: string;
  /**
   * Title of the count axis.
   * @default "count"
   */
  yTitle?: string;
}

/**
 * Draws a histogram of a column to SVG (Vega-Lite, rendered in Node), displays it in a notebook and
 * returns it. The bins are counted here, so the picture, the Vega-Lite spec and `chart.bins` agree.
 * Missing values are left out.
 *
 * @example
 * await histogram(df, { x: "band_gaps.indirect", xUnit: "eV", color: "model.hubbardType" });
 */
export async function histogram(table: TableInput, options: HistogramOptions): Promise<Chart> {
  const bins = options.bins ?? 20;
  if (!Number.isInteger(bins) || bins < 1 || bins > 1000)
    throw new ValidationError("bins", `histogram(): bins must be a whole number from 1 to 1000; got ${String(bins)}.`);
  const { groups } = distributionOf(recordsOf(table), options.x, options.color, "histogram", "x");
  const edges = binEdges([...groups.values()].flat(), bins);
  const values = [...groups].flatMap(([group, numbers]) =>
    binCounts(numbers, edges).map((count, i) => ({ start: edges[i], end: edges[i + 1], count, group })),
  );
  const xTitle = axisTitle(options.x, options.xTitle, options.xUnit);
  const yTitle = options.yTitle ?? "count";
  return renderChart(
    "histogram",
    {
      ...chartFrame(options),
      data: { values },
      mark: { type: "bar", tooltip: true, binSpacing: 1 },
      encoding: {
        x: { field: "start", type: "quantitative", bin: { binned: true }, title: xTitle },
        x2: { field: "end" },
        y: { field: "count", type: "quantitative", stack: "zero", title: yTitle },
        ...(options.color !== undefined
          ? { color: { field: "group", type: "nominal", title: axisTitle(options.color) } }
          : {}),
      },
    },
    edges.length - 1,
  );
}
