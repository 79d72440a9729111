import type { Client } from "./client";
// Types only: the results view's work lives in the frame layer, loaded on first use.
import type { ResultsCsvOptions, ResultsFrameOptions, ResultsNdjsonOptions, ResultsParquetOptions } from "../frame/results/results-plan";
import type { DataFrame } from "../frame/table/dataframe";
import type { ExportResult, ExportTarget } from "../frame/export/export";

/**
 * Results (property records) beside the material, job, workflow unit, application, model and
 * method that made them, joined by the platform's own links (`source.info.jobId`,
 * `source.info.unitId` = the unit's `flowchartId`, the job's `_material._id`). Each collection is
 * read in pages with projections: a page of properties, then its jobs and its materials by
 * `_id: {$in: [...]}`, one request each.
 */
export class ResultsView {
  readonly client: Client;

  constructor(client: Client) {
    this.client = client;
  }

  /**
   * One row per property record of the given kinds: `material._id`, `material.formula`,
   * `job._id`, `job.status`, `unit.flowchartId`, `application.name`, `application.version`,
   * `model.type`, `model.subtype`, `method.type`, `method.subtype`, then the values
   * (`band_gaps.direct`, `band_gaps.indirect` in eV; `NAME.value` for a scalar property), then
   * the `columns` you add (`material.derivedProperties.density`, `material.matframe:crystalSystem`,
   * `job.name`).
   * @example const df = await client.results.toDataFrame({ properties: ["band_gaps"], columns: ["material.derivedProperties.density"] });
   */
  async toDataFrame(options: ResultsFrameOptions): Promise<DataFrame> {
    const results = await import("../frame/results/index.js");
    return results.resultsFrame(this.client, options);
  }

  /** Writes the rows of {@link ResultsView.toDataFrame} as CSV to a file (atomically) or a stream. */
  async exportCsv(target: ExportTarget, options: ResultsCsvOptions): Promise<ExportResult> {
    const results = await import("../frame/results/index.js");
    return results.exportResults(this.client, target, "csv", options);
  }

  /** Writes the rows of {@link ResultsView.toDataFrame} as NDJSON, one object per line. */
  async exportNdjson(target: ExportTarget, options: ResultsNdjsonOptions): Promise<ExportResult> {
    const results = await import("../frame/results/index.js");
    return results.exportResults(this.client, target, "ndjson", options);
  }

  /** Writes the rows of {@link ResultsView.toDataFrame} as one Parquet file with typed columns. */
  async exportParquet(target: ExportTarget, options: ResultsParquetOptions): Promise<ExportResult> {
    const results = await import("../frame/results/index.js");
    return results.exportResults(this.client, target, "parquet", options);
  }
}
