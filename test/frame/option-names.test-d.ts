import { describe, expectTypeOf, it } from "vitest";
import type {
  ArrowOptions,
  CsvExportOptions,
  ExportCsvOptions,
  ExportNdjsonOptions,
  ExportOptions,
  ExportParquetOptions,
  ParquetExportOptions,
  ToArrowOptions,
} from "../../src";
import type { exportCsv, exportNdjson, exportParquet, toArrow } from "../../src";

// Options are named per verb and format (`exportCsv` takes `ExportCsvOptions`); the 0.2 names stay
// as deprecated aliases of the same types, so 0.x code compiles unchanged. Compiled by
// `npm run typecheck`, not run.
describe("options named per verb and format", () => {
  it("each verb takes the options named for it", () => {
    expectTypeOf<Parameters<typeof exportCsv>[2]>().toEqualTypeOf<ExportCsvOptions | undefined>();
    expectTypeOf<Parameters<typeof exportNdjson>[2]>().toEqualTypeOf<ExportNdjsonOptions | undefined>();
    expectTypeOf<Parameters<typeof exportParquet>[2]>().toEqualTypeOf<ExportParquetOptions | undefined>();
    expectTypeOf<Parameters<typeof toArrow>[1]>().toEqualTypeOf<ToArrowOptions | undefined>();
    expectTypeOf<ExportNdjsonOptions>().toEqualTypeOf<ExportOptions>();
  });

  it("the 0.2 names are the same types", () => {
    expectTypeOf<CsvExportOptions>().toEqualTypeOf<ExportCsvOptions>();
    expectTypeOf<ParquetExportOptions>().toEqualTypeOf<ExportParquetOptions>();
    expectTypeOf<ArrowOptions>().toEqualTypeOf<ToArrowOptions>();
  });
});
