import { axisTitle, fieldValue, chartFrame, renderChart, type Chart, type ChartOptions } from "./chart";
import { estimateTextWidth } from "./label-placement";
import { recordsOf, type TableInput } from "../tables/table-input";
import { ValidationError } from "../../errors";

/** Options of {@link barChart}. */
export interface BarChartOptions extends ChartOptions {
  /**
   * Column of categories, one bar each (dotted paths reach into nested records).
   * @example "method.subtype"
   */
  x: string;
  /**
   * Column of values; leave it out to count the rows in each category.
   * @default count of rows
   */
  y?: string;
  /**
   * Title of the category axis.
   * @default the `x` column's readable name ("method.subtype" → "subtype")
   */
  xTitle?: string;
  /**
   * Title of the value axis.
   * @default the `y` column's readable name, or "count"
   */
  yTitle?: string;
  /**
   * Unit of the values, shown in brackets after the value axis title.
   * @example "Å³"
   */
  yUnit?: string;
  /**
   * Bar order.
   * @default "descending" (largest first)
   */
  sort?: "descending" | "ascending" | "none";
}

/** Shown for rows without a category, so that they are counted rather than dropped. */
const MISSING = "(none)";

/**
 * Draws a bar chart to SVG (Vega-Lite, rendered in Node), displays it in a
 * notebook and returns it.
 *
 * @example
 * await barChart(records, { x: "method.subtype", xTitle: "method subtype", yTitle: "materials" });
 */
export async function barChart(table: TableInput, options: BarChartOptions): Promise<Chart> {
  const bars = barValues(recordsOf(table), options);
  const sort = options.sort ?? "descending";
  const values = bars.map(([category, value]) => ({ category, value }));
  return renderChart(
    "bar",
    {
      ...chartFrame(options),
      data: { values },
      mark: { type: "bar", tooltip: true },
      encoding: {
        x: {
          field: "category",
          type: "nominal",
          title: axisTitle(options.x, options.xTitle),
          sort: sort === "none" ? null : { field: "value", order: sort },
          axis: { labelAngle: labelsFitFlat(bars, chartFrame(options).width) ? 0 : -30 },
        },
        y: {
          field: "value",
          type: "quantitative",
          title: axisTitle(options.y ?? "count", options.yTitle, options.yUnit),
        },
      },
    },
    bars.length,
  );
}

/** Font size of axis labels (CONFIG in chart.ts). */
const LABEL_FONT_SIZE = 11;

/** True when every category label fits under its bar unrotated (short labels read best flat). */
function labelsFitFlat(bars: [string, number][], width: number): boolean {
  const band = width / Math.max(1, bars.length);
  return bars.every(([category]) => estimateTextWidth(category, LABEL_FONT_SIZE) <= band - 4);
}

/** [category, value] per bar: the `y` values as given, or row counts per category. */
function barValues(records: Record<string, unknown>[], options: BarChartOptions): [string, number][] {
  const category = (r: Record<string, unknown>) => {
    const v = fieldValue(r, options.x);
    return v === undefined || v === null || v === "" ? MISSING : String(v);
  };
  if (options.y === undefined) {
    const counts = new Map<string, number>();
    for (const r of records) counts.set(category(r), (counts.get(category(r)) ?? 0) + 1);
    return [...counts];
  }
  const y = options.y;
  return records.map((r) => {
    const v = fieldValue(r, y);
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw new ValidationError(
        "y",
        `barChart(): column "${y}" must hold numbers; the bar "${category(r)}" has ${JSON.stringify(v)}. ` +
          `Leave out "y" to count rows per category instead.`,
      );
    }
    return [category(r), v];
  });
}
