// matframe/notebook: display helpers for notebooks on the tslab and Deno kernels (plain text elsewhere).
export { show, toHtmlTable, toTextTable, DEFAULT_MAX_ROWS, Table } from "./show";
export type { ShowOptions } from "./show";
export type { TableInput, DataFrameLike } from "./table-input";
export { barChart } from "./bar-chart";
export type { BarChartOptions } from "./bar-chart";
export { scatterChart } from "./scatter-chart";
export type { ScatterChartOptions } from "./scatter-chart";
export { Chart } from "./chart";
export type { ChartOptions } from "./chart";
export { structureView, StructureView } from "./structure-view";
export type { StructureViewOptions } from "./structure-view";
export { progress } from "./progress";
export type { Progress, ProgressOptions, ProgressUpdate } from "./progress";
export { inNotebook } from "./kernel";
export type { MimeBundle } from "./mime-bundle";
export { RichOutput, JUPYTER_DISPLAY } from "./rich-output";
export { Picture } from "./picture";
