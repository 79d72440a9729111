import { axisTitle, chartFrame, renderChart, type Chart, type ChartOptions } from "./chart";
import { distributionOf } from "./distribution-values";
import { recordsOf, type TableInput } from "../tables/table-input";

/** Options of {@link boxPlot}. */
export interface BoxPlotOptions extends ChartOptions {
  /**
   * Column of numbers whose spread is drawn.
   * @example "band_gaps.indirect"
   */
  y: string;
  /**
   * Column of categories, one box each (rows without one are "(none)").
   * @default one box for all rows
   */
  x?: string;
  /** Title of the category axis. @default the `x` column's readable name */
  xTitle?: string;
  /** Title of the value axis. @default the `y` column's readable name */
  yTitle?: string;
  /** Unit of the values, in brackets after the value axis title. @example "eV" */
  yUnit?: string;
}

/**
 * Draws a box plot to SVG (Vega-Lite, rendered in Node), displays it in a notebook and returns
 * it: per category the median, the quartiles (the box), whiskers to the furthest values within
 * 1.5 interquartile ranges of the box (Tukey's rule, as matplotlib and pandas draw them) and the
 * values beyond as points. Missing values are left out.
 *
 * @example
 * await boxPlot(df, { x: "model.hubbardType", y: "band_gaps.indirect", yUnit: "eV" });
 */
export async function boxPlot(table: TableInput, options: BoxPlotOptions): Promise<Chart> {
  const { groups } = distributionOf(recordsOf(table), options.y, options.x, "boxPlot", "y");
  const values = [...groups].flatMap(([group, numbers]) => numbers.map((value) => ({ group, value })));
  const yTitle = axisTitle(options.y, options.yTitle, options.yUnit);
  return renderChart(
    "box",
    {
      ...chartFrame(options),
      data: { values },
      mark: { type: "boxplot", extent: 1.5 },
      encoding: {
        ...(options.x !== undefined
          ? {
              x: {
                field: "group",
                type: "nominal",
                title: axisTitle(options.x, options.xTitle),
                axis: { labelAngle: 0 },
              },
            }
          : {}),
        y: { field: "value", type: "quantitative", title: yTitle },
      },
    },
    groups.size,
  );
}
