import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { exportCsv } from "../../src";
import { COLUMN_TYPE_RECORDS } from "../../src/frame/table/column-type-registry";
import { PYTHON, pythonImports } from "../support/python";

// Every type of the registry, as the CSV export writes it (each cell by its value's kind), read
// back by pandas' read_csv: the dtype the registry declares and the same values. Arrow and
// Parquet are read back in column-type-registry.test.ts.

const hasPandas = pythonImports("pandas");

// Whole numbers come back as text: JSON numbers would round int64's to doubles.
const READ = `
import json, sys
import pandas as pd
out = []
for path in json.load(sys.stdin):
    column = pd.read_csv(path)["v"]
    values = [str(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in column.tolist()]
    out.append({"dtype": str(column.dtype), "values": values})
print(json.dumps(out))
`;

const dir = mkdtempSync(join(tmpdir(), "matframe-column-types-csv-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(hasPandas)("every registered column type, through CSV and pandas", () => {
  it("reads each type's examples with the declared pandas dtype and the same values", async () => {
    const files: string[] = [];
    for (const type of COLUMN_TYPE_RECORDS) {
      const file = join(dir, `${type.name}.csv`);
      const records = type.examples.map((v, i) => ({ _id: `r${i}`, v }));
      await exportCsv([records], file, { columns: ["v"], escapeFormulas: false });
      files.push(file);
    }
    const read = JSON.parse(execFileSync(PYTHON, ["-c", READ], { input: JSON.stringify(files), encoding: "utf8" })) as {
      dtype: string;
      values: unknown[];
    }[];
    COLUMN_TYPE_RECORDS.forEach((type, t) => {
      const expected = type.examples.map((v) => (typeof v === "bigint" || type.pandas === "int64" ? String(v) : v));
      expect(read[t], type.name).toEqual({ dtype: type.pandas, values: expected });
    });
  });
});
