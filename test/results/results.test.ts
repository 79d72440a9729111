import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { DuckDBInstance } from "@duckdb/node-api";
import { Client, ValidationError } from "../../src";
import type { ServerHandle } from "../../src/server";
import { at, defined } from "../support/checked";
import { rawLogin } from "../support/raw-login";
import { startHttpProxy, type HttpProxy } from "../support/http-proxy";
import { login, startTestServer, type Session } from "../server/helpers";
import { listAll } from "../collections/helpers";
import { planResults } from "../../src/frame/results";

// The results view against the local platform's reference results (1,056 Materials Project band
// gaps as finished VASP jobs): its rows against an independent read over raw HTTP, against the
// platform's own Python client where its source is given, and its CSV against pandas; and the
// requests it sends, counted by a real proxy in between.

const run = promisify(execFile);
const SOURCE = process.env.MATFRAME_PYTHON_CLIENT_SRC;

let server: ServerHandle;
let session: Session;
let proxy: HttpProxy;
let client: Client;
let dir: string;
let savedProxy: string | undefined;
/** What raw HTTP says each row must be, by "jobId unitId", in the properties' `_id` order. */
let expected: Map<string, Record<string, unknown>>;

beforeAll(async () => {
  server = await startTestServer();
  session = await login(server);
  proxy = await startHttpProxy({ hosts: { "platform.test": "127.0.0.1" } });
  // Through the proxy by a name only it resolves, so that every request the client sends is counted.
  savedProxy = process.env.HTTP_PROXY;
  process.env.HTTP_PROXY = proxy.url;
  const port = new URL(server.baseUrl).port;
  client = new Client({
    baseUrl: `http://platform.test:${port}/api/2018-10-01`,
    ...(await rawLogin(server.baseUrl, "demo", "demo")),
  });
  dir = mkdtempSync(path.join(tmpdir(), "matframe-results-"));
  expected = await independentRead();
});
afterAll(async () => {
  if (savedProxy === undefined) delete process.env.HTTP_PROXY;
  else process.env.HTTP_PROXY = savedProxy;
  await client?.close();
  await proxy?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The rows as a reader would assemble them by hand from whole records: every property, its job, the job's unit and material. */
async function independentRead(): Promise<Map<string, Record<string, unknown>>> {
  const read = (collection: string) => listAll(server, session, collection);
  const [properties, jobs, materials, bank] = await Promise.all([
    read("properties"),
    read("jobs"),
    read("materials"),
    read("bank-materials"),
  ]);
  const jobById = new Map(jobs.map((j) => [j._id, j]));
  const materialById = new Map([...materials, ...bank].map((m) => [m._id, m]));
  const rows = new Map<string, Record<string, unknown>>();
  // In `_id` order, as the table gives its rows.
  const bandGaps = properties.filter((p) => p.slug === "band_gaps").sort((a, b) => (a._id < b._id ? -1 : 1));
  for (const property of bandGaps) {
    const job = jobById.get(property.source.info.jobId);
    const subworkflow = job.workflow.subworkflows.find((s: any) =>
      s.units.some((u: any) => u.flowchartId === property.source.info.unitId),
    );
    const value = (type: string) => property.data.values.find((v: any) => v.type === type)?.value ?? null;
    rows.set(`${job._id} ${property.source.info.unitId}`, {
      "material._id": job._material._id,
      "material.formula": materialById.get(job._material._id).formula,
      "job.status": job.status,
      "application.name": subworkflow.application.name,
      "application.version": subworkflow.application.version,
      "model.type": subworkflow.model.type,
      "model.subtype": subworkflow.model.subtype,
      "method.type": subworkflow.model.method.type,
      "method.subtype": subworkflow.model.method.subtype,
      "model.hubbardType": subworkflow.model.hubbardType ?? null,
      "band_gaps.direct": value("direct"),
      "band_gaps.indirect": value("indirect"),
      "material.derivedProperties.density":
        materialById.get(job._material._id).derivedProperties.find((d: any) => d.name === "density")?.value ?? null,
    });
  }
  return rows;
}

/** Requests the proxy forwarded since `from`, by collection path. */
function requestsSince(from: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of proxy.forwarded.slice(from)) {
    const name = new URL(at(line.split(" "), 1, "the URL of a forwarded request")).pathname.split("/").pop()!;
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

describe("client.results.toDataFrame", () => {
  it("gives one row per finished job unit with a band gap, equal to the records, one request per page of each collection", async () => {
    const from = proxy.forwarded.length;
    const df = await client.results.toDataFrame({
      properties: ["band_gaps"],
      columns: ["material.derivedProperties.density", "material.derivedProperties.symmetry.spaceGroupSymbol"],
    });
    expect(df.columns).toEqual([
      "material._id",
      "material.formula",
      "job._id",
      "job.status",
      "unit.flowchartId",
      "application.name",
      "application.version",
      "model.type",
      "model.subtype",
      "model.hubbardType",
      "method.type",
      "method.subtype",
      "band_gaps.direct",
      "band_gaps.indirect",
      "material.derivedProperties.density",
      "material.derivedProperties.symmetry.spaceGroupSymbol",
    ]);
    expect(expected.size).toBe(1056);
    expect(df.shape[0]).toBe(expected.size);
    const rows = df.values as unknown[][];
    const col = (name: string) => df.columns.indexOf(name);
    const seen = new Set<string>();
    for (const row of rows) {
      const key = `${row[col("job._id")]} ${row[col("unit.flowchartId")]}`;
      seen.add(key);
      const want = expected.get(key);
      expect(want, key).toBeDefined();
      for (const [name, value] of Object.entries(want!)) {
        const cell = row[col(name)];
        if (typeof value === "number") expect(cell as number, `${key} ${name}`).toBeCloseTo(value, 4);
        else expect(cell, `${key} ${name}`).toBe(value);
      }
      expect(row[col("job.status")]).toBe("finished");
      expect(typeof row[col("material.derivedProperties.symmetry.spaceGroupSymbol")]).toBe("string");
    }
    expect(seen.size).toBe(expected.size);
    // The pages' joins overlap, but the rows keep the order of their property records.
    expect(rows.map((row) => `${row[col("job._id")]} ${row[col("unit.flowchartId")]}`)).toEqual([...expected.keys()]);
    // The Materials Project's GGA+U results: their jobs' model says so.
    expect(rows.some((row) => row[col("model.hubbardType")] === "u")).toBe(true);
    // 1,056 properties in pages of 200: six pages (and the empty page that ends a keyset walk),
    // and per page one request for its jobs and one each for its materials in materials and in
    // bank-materials (the reference ones live there): never one request per value.
    // One more for properties: the check that the platform holds band_gaps at all.
    expect(requestsSince(from)).toEqual({ properties: 8, jobs: 6, materials: 6, "bank-materials": 6 });
  });

  it("takes computed material columns and stops after maxItems property records", async () => {
    const from = proxy.forwarded.length;
    const df = await client.results.toDataFrame({
      properties: ["band_gaps"],
      columns: ["material.matframe:spaceGroupNumber", "job.name"],
      maxItems: 30,
      pageSize: 20,
    });
    expect(df.shape).toEqual([30, 16]);
    const rows = df.values as unknown[][];
    const numbers = rows.map((row) => row[df.columns.indexOf("material.matframe:spaceGroupNumber")]);
    expect(numbers.every((n) => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 230)).toBe(true);
    expect(rows.every((row) => String(row[df.columns.indexOf("job.name")]).startsWith("Band Gap "))).toBe(true);
    expect(requestsSince(from)).toEqual({ properties: 3, jobs: 2, materials: 2, "bank-materials": 2 });
  });

  it("checks its options before any request", async () => {
    const from = proxy.forwarded.length;
    await expect(client.results.toDataFrame({ properties: [] })).rejects.toThrow(ValidationError);
    await expect(client.results.toDataFrame({ properties: ["Band Gaps"] })).rejects.toThrow(/not a property slug/);
    await expect(client.results.toDataFrame({ properties: ["band_gaps"], columns: ["lattice.a"] })).rejects.toThrow(
      /"material\." \+ a material column/,
    );
    await expect(client.results.toDataFrame({ properties: ["band_gaps"], pageSize: 500 })).rejects.toThrow(
      /pageSize must be a whole number from 1 to 250/,
    );
    // An option the method does not use is refused, never ignored.
    await expect(
      client.results.toDataFrame({ properties: ["band_gaps"], sort: { formula: 1 } } as never),
    ).rejects.toThrow(/client.results.toDataFrame does not use the option "sort"/);
    await expect(client.results.toDataFrame({ properties: ["band_gaps"], units: true } as never)).rejects.toThrow(
      ValidationError,
    );
    await expect(
      client.results.exportNdjson(path.join(dir, "h.ndjson"), { properties: ["band_gaps"], header: false } as never),
    ).rejects.toThrow(/exportNdjson does not use the option "header"/);
    await expect(
      client.results.exportCsv(path.join(dir, "c.csv"), { properties: ["band_gaps"], compression: "gzip" } as never),
    ).rejects.toThrow(/exportCsv does not use the option "compression"/);
    // A kind whose records hold a curve or a value per atom has no cell to fill: said, with where to read it.
    await expect(client.results.toDataFrame({ properties: ["band_gaps", "band_structure"] })).rejects.toThrow(
      /"band_structure": a record of that kind holds energies of every band along a path of k-points, not a value a table row can hold; read such records whole with client\.properties\.list\(\{ query: \{ slug: "band_structure" \} \}\)/,
    );
    await expect(client.results.toDataFrame({ properties: ["atomic_forces"] })).rejects.toThrow(
      /"atomic_forces": a record of that kind holds a force on each atom/,
    );
    expect(proxy.forwarded.length).toBe(from);
    // A job column over the workflow fetches it whole, never both a path and one under it.
    expect(planResults({ properties: ["band_gaps"], columns: ["job.workflow"] }).jobFields).toEqual({
      _id: 1,
      _material: 1,
      status: 1,
      workflow: 1,
    });
  });

  it("filters on its columns: conditions on plain fields go with each collection's request, the rest on the rows", async () => {
    const from = proxy.forwarded.length;
    const df = await client.results.toDataFrame({
      properties: ["band_gaps"],
      query: { "material.formula": "GaN", "band_gaps.indirect": { $gt: 1 }, "job.status": "finished" },
    });
    const want = [...expected.values()].filter(
      (row) => row["material.formula"] === "GaN" && (row["band_gaps.indirect"] as number) > 1,
    );
    expect(want.length).toBeGreaterThan(0);
    expect(df.shape[0]).toBe(want.length);
    expect(new Set(df.column("material.formula").values)).toEqual(new Set(["GaN"]));
    const sent = proxy.forwarded.slice(from).map((line) => decodeURIComponent(line));
    // The value condition travels with the properties (one page of them is all that comes back),
    // the formula with the materials, the status with the jobs.
    expect(sent.filter((line) => line.includes("/properties?")).some((line) => line.includes('"$elemMatch"'))).toBe(
      true,
    );
    expect(sent.filter((line) => line.includes("/materials?")).every((line) => line.includes('"formula":"GaN"'))).toBe(
      true,
    );
    expect(sent.filter((line) => line.includes("/jobs?")).every((line) => line.includes('"status":"finished"'))).toBe(
      true,
    );
    // Only the records with a gap over 1 eV come, in pages of 200, after the kind check; the empty page ends the walk.
    const over1 = [...expected.values()].filter((row) => (row["band_gaps.indirect"] as number) > 1).length;
    expect(over1).toBeLessThan(expected.size);
    expect(requestsSince(from).properties).toBe(1 + Math.ceil(over1 / 200) + 1);

    // A condition a missing value meets ($ne, null) is applied to the rows only: no row is lost.
    const notGaN = await client.results.toDataFrame({
      properties: ["band_gaps"],
      query: { "material.formula": { $ne: "GaN" } },
    });
    const gan = [...expected.values()].filter((row) => row["material.formula"] === "GaN").length;
    expect(notGaN.shape[0]).toBe(expected.size - gan);
  });

  it("refuses a query on a column the table does not have, or with an operator it does not know, before any request", async () => {
    const from = proxy.forwarded.length;
    await expect(
      client.results.toDataFrame({ properties: ["band_gaps"], query: { "material.formul": "GaN" } }),
    ).rejects.toThrow(/not a column of this results table \(did you mean "material.formula"\?\)/);
    await expect(
      client.results.toDataFrame({ properties: ["band_gaps"], query: { "material.lattice.a": { $gt: 3 } } }),
    ).rejects.toThrow(/add a material or job column with columns/);
    await expect(
      client.results.toDataFrame({ properties: ["band_gaps"], query: { "band_gaps.indirect": { $where: "1" } } }),
    ).rejects.toThrow(ValidationError);
    await expect(client.results.toDataFrame({ properties: ["band_gaps"], query: "GaN" as never })).rejects.toThrow(
      /query must be an object/,
    );
    expect(proxy.forwarded.length).toBe(from);
    // Once the column is added, the same condition is taken.
    const df = await client.results.toDataFrame({
      properties: ["band_gaps"],
      columns: ["material.lattice.a"],
      query: { "material.lattice.a": { $gt: 8 } },
    });
    expect((df.column("material.lattice.a").values as number[]).every((a) => a > 8)).toBe(true);
  });

  it("refuses a property kind the platform holds none of, with the kinds it holds and the nearest", async () => {
    const error = await client.results.toDataFrame({ properties: ["band_gap"] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).option).toBe("properties");
    expect((error as Error).message).toMatch(/no property records of kind "band_gap"/);
    expect((error as Error).message).toMatch(
      /The kinds it holds: band_gaps, dielectric_constant, dielectric_tensor, refractive_index\./,
    );
    expect((error as Error).message).toMatch(/Did you mean "band_gaps" for "band_gap"\?/);
    // matminer's column names, near the platform's kinds.
    const near = await client.results
      .toDataFrame({ properties: ["refractive_indx", "dielectric_constants"] })
      .catch((e: unknown) => e);
    expect((near as Error).message).toMatch(
      /Did you mean "refractive_index" for "refractive_indx"\?; did you mean "dielectric_constant" for "dielectric_constants"\?/,
    );
    const both = await client.results
      .toDataFrame({ properties: ["band_gaps", "total_energy"] })
      .catch((e: unknown) => e);
    expect((both as Error).message).toMatch(
      /no property records of kind "total_energy".*The kinds it holds: band_gaps, dielectric_constant, dielectric_tensor, refractive_index\.$/,
    );
    // An export of a kind with no records leaves no file behind.
    const file = path.join(dir, "none.csv");
    await expect(client.results.exportCsv(file, { properties: ["total_energy"] })).rejects.toThrow(ValidationError);
    expect(existsSync(file)).toBe(false);
  });

  it("agrees with the platform's own Python client's get_indirect_band_gap(job_id, unit_id)", async (context) => {
    if (!SOURCE) {
      console.warn(
        "\n*** SKIPPED the Python client comparison: set MATFRAME_PYTHON_CLIENT_SRC to a checkout of Exabyte-io/api-client (see test/python-client). ***\n",
      );
      context.skip();
      return;
    }
    const sample = [...expected.keys()].filter((_, i) => i % 53 === 0).map((key) => key.split(" "));
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      API_HOST: "127.0.0.1",
      API_PORT: new URL(server.baseUrl).port,
      PYTHONPATH: path.join(SOURCE, "src", "py"),
    };
    let stdout: string;
    try {
      const child = run("python3", [path.join(__dirname, "band-gaps.py")], { env, timeout: 120_000 });
      child.child.stdin!.end(JSON.stringify(sample));
      ({ stdout } = await child);
    } catch (error) {
      const why = String((error as { stderr?: string }).stderr ?? error)
        .trim()
        .split("\n")
        .pop();
      console.warn(`\n*** SKIPPED the Python client comparison: its source did not run with python3 (${why}). ***\n`);
      context.skip();
      return;
    }
    const gaps = JSON.parse(stdout) as Record<string, { indirect: number; direct: number | null }>;
    const df = await client.results.toDataFrame({ properties: ["band_gaps"] });
    const rows = df.values as unknown[][];
    const col = (name: string) => df.columns.indexOf(name);
    for (const [job, unit] of sample) {
      const row = rows.find((r) => r[col("job._id")] === job && r[col("unit.flowchartId")] === unit)!;
      const gap = defined(gaps[`${job} ${unit}`], `the Python client's band gaps of ${job} ${unit}`);
      expect(row[col("band_gaps.indirect")] as number).toBeCloseTo(gap.indirect, 5);
      expect(row[col("band_gaps.direct")]).toBe(gap.direct);
    }
  });
});

describe("client.results.exportCsv", () => {
  it("writes the same rows, as pandas reads them", async () => {
    const file = path.join(dir, "band-gaps.csv");
    const told: string[] = [];
    const result = await client.results.exportCsv(file, {
      properties: ["band_gaps"],
      columns: ["material.derivedProperties.density"],
      onWarning: (warning) => told.push(warning.message),
    });
    expect(result.items).toBe(expected.size);
    // No direct gap in these sources: an empty property column is data, not a misspelt path.
    expect(told).toEqual([]);
    expect(result.warnings).toEqual([]);
    const { stdout } = await run("/usr/bin/python3", [path.join(__dirname, "read_csv.py"), file], {
      maxBuffer: 64 * 1024 * 1024,
    });
    const read = JSON.parse(stdout) as {
      columns: string[];
      dtypes: Record<string, string>;
      rows: Record<string, unknown>[];
    };
    expect(read.dtypes["band_gaps.indirect"]).toBe("float64");
    expect(read.rows).toHaveLength(expected.size);
    for (const row of read.rows) {
      const want = expected.get(`${row["job._id"]} ${row["unit.flowchartId"]}`)!;
      expect(want).toBeDefined();
      for (const [name, value] of Object.entries(want)) {
        if (typeof value === "number") expect(row[name] as number).toBeCloseTo(value, 6);
        else expect(row[name]).toBe(value);
      }
    }
  });
});

describe("client.results.exportParquet and exportNdjson", () => {
  it("write the same rows with typed columns, as DuckDB reads them", async () => {
    const file = path.join(dir, "band-gaps.parquet");
    await client.results.exportParquet(file, { properties: ["band_gaps"] });
    const duck = await (await DuckDBInstance.create(":memory:")).connect();
    const types = Object.fromEntries(
      (await duck.runAndReadAll(`DESCRIBE SELECT * FROM '${file}'`)).getRows().map((r) => [r[0], r[1]]),
    );
    expect(types["band_gaps.indirect"]).toBe("DOUBLE");
    // No direct gap in the source: a column of nulls, typed by the property's schema all the same.
    expect(types["band_gaps.direct"]).toBe("DOUBLE");
    expect(types["model.hubbardType"]).toBe("VARCHAR");
    expect(types["method.subtype"]).toBe("VARCHAR");
    const rows = (
      await duck.runAndReadAll(
        `SELECT "job._id", "unit.flowchartId", "band_gaps.indirect", "band_gaps.direct", "method.type" FROM '${file}'`,
      )
    ).getRows();
    expect(rows).toHaveLength(expected.size);
    for (const [job, unit, indirect, direct, method] of rows) {
      const want = expected.get(`${job} ${unit}`)!;
      expect(indirect).toBe(want["band_gaps.indirect"]);
      expect(direct).toBeNull();
      expect(method).toBe(want["method.type"]);
    }
    duck.closeSync();

    const ndjson = path.join(dir, "band-gaps.ndjson");
    await client.results.exportNdjson(ndjson, { properties: ["band_gaps"] });
    const lines = readFileSync(ndjson, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(expected.size);
    for (const line of lines)
      expect(line["band_gaps.indirect"]).toBe(
        expected.get(`${line["job._id"]} ${line["unit.flowchartId"]}`)!["band_gaps.indirect"],
      );
  });
});
