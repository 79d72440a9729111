import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type DataFrame } from "../../src";
import type { ServerHandle } from "../../src/server";
import { startTestServer } from "../server/helpers";

// The numbers notebook 08 shows, computed with matframe's frames, against pandas reading the same
// table from CSV: count, mean and median band gap per method and per crystal system (a median of an
// even count is the mean of the two middle values, as pandas takes it: GGA+U 2.34, not 2.36).

const PYTHON = "/usr/bin/python3";
const hasPandas = existsSync(PYTHON);

let server: ServerHandle;
let client: Client;
let dir: string;
let full: DataFrame;
let csv: string;
const COLUMNS = ["material.derivedProperties.density", "material.matframe:crystalSystem"];

beforeAll(async () => {
  server = await startTestServer();
  client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
  dir = mkdtempSync(path.join(tmpdir(), "matframe-results-pandas-"));
  full = await client.results.toDataFrame({ properties: ["band_gaps"], columns: COLUMNS });
  csv = path.join(dir, "gaps.csv");
  await client.results.exportCsv(csv, { properties: ["band_gaps"], columns: COLUMNS });
});
afterAll(async () => {
  await client?.logout();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function pandasWith(asked: { groups: string[][]; filters: string[] }) {
  return new Promise<{ groups: Record<string, unknown>[][]; filters: string[][] }>((resolve, reject) => {
    const child = execFile(
      PYTHON,
      [path.join(__dirname, "results_pandas.py"), csv],
      { maxBuffer: 64 << 20 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
    );
    child.stdin!.end(JSON.stringify(asked));
  });
}

/** A frame's rows as objects, by column name. */
function records(df: DataFrame): Record<string, unknown>[] {
  return (df.values as unknown[][]).map((row) => Object.fromEntries(df.columns.map((name, i) => [name, row[i]])));
}

/** Each query, and the same filter in pandas' words. */
const FILTERS: [Record<string, unknown>, string][] = [
  [{ "material.formula": "GaN" }, '`material.formula` == "GaN"'],
  [{ "band_gaps.indirect": { $gt: 1 } }, "`band_gaps.indirect` > 1"],
  [{ "material.matframe:crystalSystem": "cubic" }, '`material.matframe:crystalSystem` == "cubic"'],
  [
    { "model.hubbardType": "u", "band_gaps.indirect": { $lte: 2 }, "material.derivedProperties.density": { $gt: 4 } },
    '`model.hubbardType` == "u" and `band_gaps.indirect` <= 2 and `material.derivedProperties.density` > 4',
  ],
  [
    { $or: [{ "material.matframe:crystalSystem": "hexagonal" }, { "band_gaps.indirect": { $gte: 5 } }] },
    '`material.matframe:crystalSystem` == "hexagonal" or `band_gaps.indirect` >= 5',
  ],
  [{ "model.hubbardType": { $ne: "u" } }, '`model.hubbardType` != "u"'],
  [{ "band_gaps.direct": null }, "`band_gaps.direct`.isna()"],
  [{ "material.formula": { $in: ["Si", "GaAs", "ZnO"] } }, '`material.formula`.isin(["Si", "GaAs", "ZnO"])'],
];

describe.runIf(hasPandas)("a filtered results table, against pandas' filter of the whole table", () => {
  it("keeps the rows pandas keeps, for conditions sent to the platform and conditions on computed columns", async () => {
    const expected = await pandasWith({ groups: [], filters: FILTERS.map(([, pandas]) => pandas) });
    for (const [i, [query]] of FILTERS.entries()) {
      const df = await client.results.toDataFrame({ properties: ["band_gaps"], columns: COLUMNS, query });
      const ids = (df.column("job._id").values as string[]).slice().sort();
      expect(ids, JSON.stringify(query)).toEqual(expected.filters[i]);
      expect(ids.length, JSON.stringify(query)).toBeGreaterThan(0);
      expect(df.columns).toEqual(full.columns);
    }
  });
});

describe.runIf(hasPandas)("the results table's statistics, against pandas", () => {
  it("count, mean and median band gap by method (U named) and by crystal system, as notebook 08 computes them", async () => {
    const groups = [
      ["model.type", "model.subtype", "U", "method.type", "method.subtype"],
      ["material.matframe:crystalSystem"],
    ];
    const expected = await pandasWith({ groups, filters: [] });
    const labelled = full.addColumn("U", full.column("model.hubbardType").fillNa("none"));
    groups.forEach((keys, g) => {
      const ours = records(labelled.groupby(keys).agg({ "band_gaps.indirect": ["count", "mean", "median"] }));
      const theirs = expected.groups[g]!;
      expect(ours.map((row) => keys.map((k) => row[k]))).toEqual(theirs.map((row) => keys.map((k) => row[k])));
      ours.forEach((row, i) => {
        expect(row["band_gaps.indirect_count"]).toBe(theirs[i]!.count);
        expect(row["band_gaps.indirect_mean"] as number).toBeCloseTo(theirs[i]!.mean as number, 12);
        expect(row["band_gaps.indirect_median"] as number).toBeCloseTo(theirs[i]!.median as number, 12);
      });
    });
    // The figures the issue found wrong, now as pandas gives them.
    const gga = records(labelled.groupby(["U"]).agg({ "band_gaps.indirect": "median" }));
    expect(gga.find((row) => row.U === "u")!["band_gaps.indirect_median"]).toBeCloseTo(2.34, 2);
  });
});
