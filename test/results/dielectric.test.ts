import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type DataFrame } from "../../src";
import type { ServerHandle } from "../../src/server";
import { propertyCells, propertyColumns } from "../../src/frame/results/property-columns";
import { listAll } from "../collections/helpers";
import { login, startTestServer, type Session } from "../server/helpers";

// The reference results' dielectric properties against pandas' reading of matminer's CSV, for all
// 1,056 materials: the records as served (every number equal, not close), ESSE's validator on the
// one kind ESSE names, the results frame, and its CSV and Parquet as pandas and DuckDB read them.

const run = promisify(execFile);
const PYTHON = "/usr/bin/python3";
const CSV = path.join(__dirname, "..", "..", "data", "sources", "matminer-dielectric_constant.csv.gz");
/** ESSE's example dielectric_tensor record (a spin-resolved calculation's). */
const ESSE_EXAMPLE = path.join(
  __dirname,
  "../../node_modules/@mat3ra/esse/example/properties_directory/non-scalar/dielectric_tensor.json",
);
const KINDS = ["dielectric_tensor", "dielectric_constant", "refractive_index"];

interface SourceRow {
  band_gap: number;
  e_electronic: number[][];
  e_total: number[][];
  poly_electronic: number;
  poly_total: number;
  n: number;
  pot_ferroelectric: boolean;
}

let server: ServerHandle;
let session: Session;
let client: Client;
let dir: string;
/** pandas' reading of the CSV, by Materials Project id. */
let source: Record<string, SourceRow>;

beforeAll(async () => {
  server = await startTestServer();
  session = await login(server);
  client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
  dir = mkdtempSync(path.join(tmpdir(), "matframe-dielectric-"));
  if (!existsSync(PYTHON)) return;
  const { stdout } = await run(PYTHON, [path.join(__dirname, "dielectric_source.py"), CSV], { maxBuffer: 64 << 20 });
  source = JSON.parse(stdout);
});
afterAll(async () => {
  await client?.logout();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The diagonal of a 3×3 tensor. */
const diagonal = (t: number[][]) => [t[0]![0], t[1]![1], t[2]![2]];

/** A frame's rows as objects, by column name. */
function records(df: DataFrame): Record<string, unknown>[] {
  return (df.values as unknown[][]).map((row) => Object.fromEntries(df.columns.map((name, i) => [name, row[i]])));
}

/** What each value column must hold for a material, from pandas' row. */
function expectedCells(row: SourceRow): Record<string, number> {
  const [xx, yy, zz] = diagonal(row.e_electronic);
  return {
    "dielectric_tensor.xx": xx!,
    "dielectric_tensor.yy": yy!,
    "dielectric_tensor.zz": zz!,
    "dielectric_constant.electronic": row.poly_electronic,
    "dielectric_constant.total": row.poly_total,
    "refractive_index.value": row.n,
  };
}

describe.runIf(existsSync(PYTHON))("the reference dielectric properties, against pandas' reading of the CSV", () => {
  it("serves, per material, three records of its band-gap job's unit, every number as pandas reads it", async () => {
    expect(Object.keys(source)).toHaveLength(1056);
    const jobs = await listAll(server, session, "jobs", { tags: "reference" });
    const mpOfJob = new Map(jobs.map((job) => [job._id, job._material.slug as string]));
    const all = await listAll(server, session, "properties", { slug: { $in: ["band_gaps", ...KINDS] } });
    const byMaterial = new Map<string, Record<string, any>>();
    for (const property of all) {
      const mp = mpOfJob.get(property.source.info.jobId)!;
      byMaterial.set(mp, { ...byMaterial.get(mp), [property.slug]: property });
    }
    expect([...byMaterial.keys()].sort()).toEqual(Object.keys(source).sort());
    for (const [mp, row] of Object.entries(source)) {
      const { band_gaps, dielectric_tensor, dielectric_constant, refractive_index } = byMaterial.get(mp)!;
      // The same job, unit and material as the band gap, and the same source.
      for (const property of [dielectric_tensor, dielectric_constant, refractive_index]) {
        expect(property.source).toEqual(band_gaps.source);
        expect(property.exabyteId).toEqual(band_gaps.exabyteId);
        expect(property.source.url).toBe(`https://next-gen.materialsproject.org/materials/${mp}`);
        expect(property.description).toMatch(/Petousis et al\., Sci\. Data 4, 160134 \(2017\).*CC BY 4\.0/);
      }
      expect(dielectric_tensor.data, mp).toEqual({
        name: "dielectric_tensor",
        values: [{ part: "real", frequencies: [0], components: [diagonal(row.e_electronic)] }],
      });
      expect(dielectric_constant.data, mp).toEqual({
        name: "dielectric_constant",
        values: [
          { type: "electronic", value: row.poly_electronic, units: "dimensionless", tensor: row.e_electronic },
          { type: "total", value: row.poly_total, units: "dimensionless", tensor: row.e_total },
        ],
        potentiallyFerroelectric: row.pot_ferroelectric,
      });
      expect(refractive_index.data, mp).toEqual({ name: "refractive_index", value: row.n, units: "dimensionless" });
      expect(band_gaps.data.values[0].value, mp).toBe(row.band_gap);
    }
    // The dataset's flag, counted: 709 potentially ferroelectric.
    expect(Object.values(source).filter((row) => row.pot_ferroelectric)).toHaveLength(709);
  });

  it("validates the dielectric_tensor records with ESSE's validator, and says the other two are matframe's own", async () => {
    const { validate } = require("@mat3ra/esse/dist/js/utils/ajv") as {
      validate: (data: object, schema: object) => { isValid: boolean; errors: unknown };
    };
    const schemas = require("@mat3ra/esse/dist/js/schemas.json") as { $id: string }[];
    const esse = schemas.find((s) => s.$id === "properties-directory/non-scalar/dielectric-tensor")!;
    const tensors = await listAll(server, session, "properties", { slug: "dielectric_tensor" });
    expect(tensors).toHaveLength(1056);
    const failing = tensors.filter((p) => !validate(structuredClone(p.data), esse).isValid);
    expect(failing.map((p) => p._id)).toEqual([]);
    // ESSE's checker does refuse a broken one (a tensor row of two numbers).
    const broken = { name: "dielectric_tensor", values: [{ part: "real", frequencies: [0], components: [[1, 2]] }] };
    expect(validate(broken, esse).isValid).toBe(false);
    for (const name of ["dielectric_constant", "refractive_index"]) {
      expect(schemas.some((s) => s.$id.endsWith(`/${name.replaceAll("_", "-")}`))).toBe(false);
      const [one] = await listAll(server, session, "properties", { slug: name });
      expect(one.description).toMatch(
        new RegExp(`^"${name}" is matframe's own property kind: ESSE has no schema for it`),
      );
    }
  });

  it("gives a results frame of each kind equal to pandas' table, one DOUBLE column per part", async () => {
    for (const kind of KINDS) {
      const df = await client.results.toDataFrame({ properties: [kind], columns: ["material.external.id"] });
      expect(df.shape[0]).toBe(1056);
      const parts = df.columns.filter((name) => name.startsWith(`${kind}.`));
      expect(parts.length).toBeGreaterThan(0);
      for (const row of records(df)) {
        const want = expectedCells(source[row["material.external.id"] as string]!);
        for (const part of parts) expect(row[part], `${row["material.external.id"]} ${part}`).toBe(want[part]);
      }
    }
    // Filters on the new columns keep what pandas' table keeps.
    const high = await client.results.toDataFrame({
      properties: ["refractive_index"],
      columns: ["material.external.id"],
      query: { "refractive_index.value": { $gt: 3 } },
    });
    const wantHigh = Object.entries(source).filter(([, row]) => row.n > 3);
    expect(wantHigh.length).toBeGreaterThan(0);
    expect((high.column("material.external.id").values as string[]).sort()).toEqual(wantHigh.map(([mp]) => mp).sort());
    const anisotropic = await client.results.toDataFrame({
      properties: ["dielectric_tensor"],
      columns: ["material.external.id"],
      query: { "dielectric_tensor.zz": { $gt: 10 } },
    });
    const wantAnisotropic = Object.values(source).filter((row) => row.e_electronic[2]![2]! > 10).length;
    expect(wantAnisotropic).toBeGreaterThan(0);
    expect(anisotropic.shape[0]).toBe(wantAnisotropic);
  });

  it("writes CSV that pandas reads as floats, and Parquet that DuckDB types DOUBLE, with the same numbers", async () => {
    const properties = ["dielectric_tensor", "dielectric_constant", "refractive_index"];
    const columns = ["material.external.id"];
    const csv = path.join(dir, "dielectric.csv");
    await client.results.exportCsv(csv, { properties, columns });
    const { stdout } = await run(PYTHON, [path.join(__dirname, "read_csv.py"), csv], { maxBuffer: 64 << 20 });
    const read = JSON.parse(stdout) as { dtypes: Record<string, string>; rows: Record<string, unknown>[] };
    const valueColumns = Object.keys(expectedCells(Object.values(source)[0]!));
    for (const name of valueColumns) expect(read.dtypes[name], name).toBe("float64");
    // One row per record: each row holds its own kind's values, the others' empty.
    expect(read.rows).toHaveLength(3 * 1056);
    for (const row of read.rows) {
      const want = expectedCells(source[row["material.external.id"] as string]!);
      const held = valueColumns.filter((name) => row[name] !== null);
      expect(held.length).toBeGreaterThan(0);
      for (const name of held) expect(row[name] as number, name).toBeCloseTo(want[name]!, 12);
    }

    const parquet = path.join(dir, "dielectric.parquet");
    await client.results.exportParquet(parquet, { properties, columns });
    const duck = await (await DuckDBInstance.create(":memory:")).connect();
    const types = Object.fromEntries(
      (await duck.runAndReadAll(`DESCRIBE SELECT * FROM '${parquet}'`)).getRows().map((r) => [r[0], r[1]]),
    );
    for (const name of valueColumns) expect(types[name], name).toBe("DOUBLE");
    const rows = (
      await duck.runAndReadAll(
        `SELECT "material.external.id", ${valueColumns.map((c) => `"${c}"`).join(", ")} FROM '${parquet}'`,
      )
    ).getRows();
    expect(rows).toHaveLength(3 * 1056);
    for (const [mp, ...cells] of rows) {
      const want = expectedCells(source[mp as string]!);
      valueColumns.forEach((name, i) => {
        if (cells[i] !== null) expect(cells[i], `${mp} ${name}`).toBe(want[name]);
      });
    }
    duck.closeSync();
  });
});

it("reads a dielectric_tensor record of a calculation only where it has one real part at frequency 0", () => {
  const columns = propertyColumns("dielectric_tensor");
  const cells = (values: unknown[]) =>
    propertyCells(columns, { _id: "p", slug: "dielectric_tensor", data: { name: "dielectric_tensor", values } });
  // ESSE's own example: a spin-resolved calculation, one real part per spin, so no single value.
  const example = JSON.parse(readFileSync(ESSE_EXAMPLE, "utf8"));

  expect(cells(example.values)).toEqual({
    "dielectric_tensor.xx": undefined,
    "dielectric_tensor.yy": undefined,
    "dielectric_tensor.zz": undefined,
  });
  const spinless = example.values.filter((v: { spin: number }) => v.spin === 0.5);
  expect(cells(spinless)).toEqual({
    "dielectric_tensor.xx": 0,
    "dielectric_tensor.yy": 0,
    "dielectric_tensor.zz": 0,
  });
  expect(
    cells([
      {
        part: "real",
        frequencies: [0.5, 1],
        components: [
          [1, 2, 3],
          [4, 5, 6],
        ],
      },
    ]),
  ).toEqual({
    "dielectric_tensor.xx": undefined,
    "dielectric_tensor.yy": undefined,
    "dielectric_tensor.zz": undefined,
  });
});
