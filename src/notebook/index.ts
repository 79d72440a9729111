// matframe/notebook: display helpers for notebooks on the tslab and Deno kernels (plain text elsewhere).
import { warmFrames } from "../frame/warm-frames";
import { loadPool } from "../client/transport/dispatcher";
import { warmListOptions } from "../client/config/validate-options";
export { show, toHtmlTable, toTextTable, DEFAULT_MAX_ROWS, Table } from "./tables/show";
export type { ShowOptions } from "./tables/show";
export type { TableInput, DataFrameLike, TableSlice } from "./tables/table-input";
export { barChart } from "./charts/bar-chart";
export type { BarChartOptions } from "./charts/bar-chart";
export { scatterChart } from "./charts/scatter-chart";
export type { ScatterChartOptions } from "./charts/scatter-chart";
export { histogram } from "./charts/histogram";
export type { HistogramOptions } from "./charts/histogram";
export { boxPlot } from "./charts/box-plot";
export type { BoxPlotOptions } from "./charts/box-plot";
export { Chart } from "./charts/chart";
export type { ChartOptions } from "./charts/chart";
export { structureView, StructureView } from "./pictures/structure-view";
export type { StructureViewOptions } from "./pictures/structure-view";
export { progress } from "./progress";
export type { Progress, ProgressOptions, ProgressUpdate } from "./progress";
export { inNotebook } from "./kernel/kernel";
export type { MimeBundle } from "./kernel/mime-bundle";
export { RichOutput, JUPYTER_DISPLAY } from "./kernel/rich-output";
export { Picture } from "./pictures/picture";
export { matframeCommand } from "./kernel/command";

export type { Command } from "./kernel/command";

// A notebook builds frames: danfojs-node (when installed) and the frame's table code are loaded
// and run once by the cell that imports this entry, so a notebook's first toDataFrame costs what
// later ones do (docs/performance.md, "The first call"). The root entry and the CLI load them on
// first use only.
warmFrames();
// Likewise the HTTP transport (undici's Pool, 20-30 ms of a fresh process), which the root entry
// leaves to a client's first request: a notebook sends requests, and its first table should not pay it.
loadPool();
warmListOptions();
