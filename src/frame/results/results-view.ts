// `client.results`, registered on `Client` from the frame side (the client knows nothing of
// tables). Its work loads on first call, so `require("matframe")` stays light.
import { Client } from "../../client/client";
import type {
  ResultsCsvOptions,
  ResultsFrameOptions,
  ResultsNdjsonOptions,
  ResultsParquetOptions,
} from "./results-plan";
import type { DataFrame } from "../dataframe/dataframe";
import type { ExportResult, ExportTarget } from "../export/export";

/** What the view calls of ./index.ts, which loads on first use. */
type ResultsEntry = Pick<typeof import("./index.js"), "resultsFrame" | "exportResults">;
let loaded: ResultsEntry | undefined;

/**
 * Hands the view ./index.ts where a process has loaded it already (the notebook entry does, at
 * import): its first table then skips Node's ES module loader, whose first use in a CommonJS
 * process cost 3-4 ms of a first results table (docs/performance.md, "The first call").
 */
export function resultsLoaded(entry: ResultsEntry): void {
  loaded = entry;
}

const load = async (): Promise<ResultsEntry> => (loaded ??= await import("./index.js"));

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
   * (`band_gaps.direct`, `band_gaps.indirect` in eV; `dielectric_tensor.xx`, `.yy`, `.zz`;
   * `dielectric_constant.electronic`, `.total`; `NAME.value` for a scalar property such as
   * `total_energy` or `refractive_index`; docs/tables.md), then
   * the `columns` you add (`material.derivedProperties.density`, `material.matframe:crystalSystem`,
   * `job.name`).
   * @example const df = await client.results.toDataFrame({ properties: ["band_gaps"], columns: ["material.derivedProperties.density"] });
   */
  async toDataFrame(options: ResultsFrameOptions): Promise<DataFrame> {
    const results = await load();
    return results.resultsFrame(this.client, options);
  }

  /** Writes the rows of {@link ResultsView.toDataFrame} as CSV to a file (atomically) or a stream. */
  async exportCsv(target: ExportTarget, options: ResultsCsvOptions): Promise<ExportResult> {
    const results = await load();
    return results.exportResults(this.client, target, "csv", options);
  }

  /** Writes the rows of {@link ResultsView.toDataFrame} as NDJSON, one object per line. */
  async exportNdjson(target: ExportTarget, options: ResultsNdjsonOptions): Promise<ExportResult> {
    const results = await load();
    return results.exportResults(this.client, target, "ndjson", options);
  }

  /** Writes the rows of {@link ResultsView.toDataFrame} as one Parquet file with typed columns. */
  async exportParquet(target: ExportTarget, options: ResultsParquetOptions): Promise<ExportResult> {
    const results = await load();
    return results.exportResults(this.client, target, "parquet", options);
  }
}

declare module "../../client/client" {
  interface Client {
    /**
     * Results beside their material and the method that computed them: properties joined to their
     * jobs' workflow units and materials, as a DataFrame or a file (see docs/tables.md, "Results").
     * @example const df = await client.results.toDataFrame({ properties: ["band_gaps"] });
     */
    readonly results: ResultsView;
  }
}

Object.defineProperty(Client.prototype, "results", {
  configurable: true,
  get(this: Client): ResultsView {
    return new ResultsView(this);
  },
});
