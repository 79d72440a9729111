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
