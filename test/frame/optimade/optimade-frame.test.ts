import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { DuckDBInstance } from "@duckdb/node-api";
import {
  OptimadeClient,
  OptimadeFilterError,
  fromPoscar,
  type FrameWarning,
  type OptimadeTableProgress,
} from "../../../src";
import { ATOMIC_WEIGHTS } from "../../../src/structure/composition";
import { resumePaths } from "../../../src/frame/export/resume/progress-files";
import { startFakeProvider, type FakeProvider } from "../../support/optimade-fake";
import { at, defined } from "../../support/checked";

// OPTIMADE entries in the same tables and files as a collection's: property columns as sent,
// matframe's symmetry and the platform's derived properties computed from the structure, and
// the exports (CSV, Parquet, structure files, resumable) of a real fake provider's pages.

let provider: FakeProvider;
let op: OptimadeClient;
let dir: string;

beforeAll(async () => {
  provider = await startFakeProvider({ count: 30, next: "object", dropResponseFields: true });
  op = new OptimadeClient({ baseUrl: provider.base });
  dir = mkdtempSync(join(tmpdir(), "matframe-optimade-"));
});

afterAll(async () => {
  await op?.close();
  await provider?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The fake provider's cell edge of entry i (a cubic cell of two atoms). */
const edge = (i: number) => 4 + i / 10;
const G_PER_CM3 = 1.6605390666; // amu/Å³ in g/cm³

describe("op.structures.toDataFrame", () => {
  it("gives the property columns, computed symmetry and derived properties, paging by pageSize", async () => {
    const progress: OptimadeTableProgress[] = [];
    const df = await op.structures.toDataFrame({
      filter: "nelements=2",
      columns: [
        "id",
        "chemical_formula_reduced",
        "nsites",
        "_fake_energy",
        "matframe:spaceGroupSymbol",
        "matframe:volumePerAtom",
        "derivedProperties.density",
      ],
      pageSize: 4,
      onProgress: (p) => progress.push(p),
    });
    expect(df.columns).toEqual([
      "id",
      "chemical_formula_reduced",
      "nsites",
      "_fake_energy",
      "matframe:spaceGroupSymbol",
      "matframe:volumePerAtom",
      "derivedProperties.density",
    ]);
    const rows = df.values as unknown[][];
    expect(rows).toHaveLength(15);
    const formulaWeight = defined(ATOMIC_WEIGHTS.Na, "Na's weight") + defined(ATOMIC_WEIGHTS.Cl, "Cl's weight");
    for (const [k, row] of rows.entries()) {
      const i = 2 * k;
      const a = edge(i);
      expect(row.slice(0, 5)).toEqual([`fake-${String(i).padStart(4, "0")}`, "ClNa", 2, -1 - i, "Pm-3m"]);
      expect(row[5]).toBeCloseTo(a ** 3 / 2, 9);
      expect(row[6]).toBeCloseTo((formulaWeight / a ** 3) * G_PER_CM3, 5);
    }
    expect(progress.at(-1)).toEqual({ pages: 4, items: 15, total: 15 });
    // Every field the columns need went out as response_fields.
    const first = provider.requests.find((u) => u.searchParams.get("filter") === "nelements=2")!;
    expect(first.searchParams.get("response_fields")!.split(",").sort()).toEqual(
      [
        "_fake_energy",
        "cartesian_site_positions",
        "chemical_formula_reduced",
        "lattice_vectors",
        "nsites",
        "species",
        "species_at_sites",
      ].sort(),
    );
  });

  it("a disordered site (a mixture of species) leaves the computed columns empty, and only them", async () => {
    const mixed = await startFakeProvider({ count: 6, mixedSites: [2] });
    const c = new OptimadeClient({ baseUrl: mixed.base });
    try {
      const df = await c.structures.toDataFrame({
        filter: "nelements=2",
        columns: ["id", "nsites", "matframe:spaceGroupSymbol", "derivedProperties.density"],
      });
      const rows = df.values as unknown[][];
      expect(rows.map((r) => r.slice(0, 3))).toEqual([
        ["fake-0000", 2, "Pm-3m"],
        ["fake-0002", 2, null],
        ["fake-0004", 2, "Pm-3m"],
      ]);
      expect(rows.map((r) => r[3] === null)).toEqual([false, true, false]);

      // Structure files skip it, saying so, and write the others.
      const out = join(dir, "mixed-poscars");
      const warnings: FrameWarning[] = [];
      const result = await c.structures.exportStructures(out, {
        format: "poscar",
        filter: "nelements=2",
        onWarning: (w) => warnings.push(w),
      });
      expect(result.items).toBe(2);
      expect(result.skipped).toBe(1);
      expect(readdirSync(out).filter((f) => f.endsWith(".vasp"))).toHaveLength(2);
      expect(warnings.map((w) => [w.code, w.ids])).toEqual([["INVALID_STRUCTURE", ["fake-0002"]]]);
      expect(at(warnings, 0, "the warnings").message).toMatch(
        /a site that is not one element \(a mixture, a vacancy or an unknown atom\)/,
      );
    } finally {
      await c.close();
      await mixed.close();
    }
  });

  it("a malformed filter fails before any table is made", async () => {
    await expect(op.structures.toDataFrame({ filter: "nelements=" })).rejects.toBeInstanceOf(OptimadeFilterError);
  });
});

describe("op.structures exports", () => {
  it("CSV holds only the columns asked for, whatever later pages carry", async () => {
    const file = join(dir, "all.csv");
    const result = await op.structures.exportCsv(file, { columns: ["id", "nsites", "elements"], pageSize: 7 });
    expect(result.items).toBe(30);
    const rows = parse(readFileSync(file, "utf8"), { columns: true }) as Record<string, string>[];
    expect(Object.keys(at(rows, 0, "the CSV's rows"))).toEqual(["id", "nsites", "elements"]);
    expect(rows[3]).toEqual({ id: "fake-0003", nsites: "2", elements: '["Si"]' });
  });

  it("Parquet and NDJSON write the same rows", async () => {
    const columns = ["id", "nelements", "matframe:spaceGroupNumber"];
    const nd = join(dir, "some.ndjson");
    await op.structures.exportNdjson(nd, { columns, maxItems: 5 });
    const lines = readFileSync(nd, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l["matframe:spaceGroupNumber"])).toEqual([221, 229, 221, 229, 221]);
    const pq = join(dir, "some.parquet");
    await op.structures.exportParquet(pq, { columns, maxItems: 5 });
    const hyparquet = (await import("hyparquet")) as unknown as {
      asyncBufferFromFile(f: string): Promise<unknown>;
      parquetReadObjects(o: { file: unknown }): Promise<Record<string, unknown>[]>;
    };
    const read = await hyparquet.parquetReadObjects({ file: await hyparquet.asyncBufferFromFile(pq) });
    expect(
      read.map((r) => ({
        ...r,
        nelements: Number(r.nelements),
        "matframe:spaceGroupNumber": Number(r["matframe:spaceGroupNumber"]),
      })),
    ).toEqual(lines);
  });

  it("structure files are made from lattice_vectors, cartesian_site_positions and species_at_sites", async () => {
    const out = join(dir, "poscars");
    const result = await op.structures.exportStructures(out, { format: "poscar", filter: "nelements=2", maxItems: 3 });
    expect(result.items).toBe(3);
    const files = readdirSync(out)
      .filter((f) => f.endsWith(".vasp"))
      .sort();
    expect(files).toHaveLength(3);
    const structure = fromPoscar(readFileSync(join(out, at(files, 1, "the POSCAR files")), "utf8"));
    expect(structure.lattice.a).toBeCloseTo(edge(2), 9);
    expect(structure.basis.elements.map((e) => e.value)).toEqual(["Na", "Cl"]);
  });

  it("an interrupted export resumes to the same bytes as an uninterrupted one", async () => {
    const whole = join(dir, "whole.csv");
    await op.structures.exportCsv(whole, { columns: ["id", "chemical_formula_reduced"], pageSize: 6 });
    const target = join(dir, "resumed.csv");
    const stop = new AbortController();
    await expect(
      op.structures.exportCsv(target, {
        columns: ["id", "chemical_formula_reduced"],
        pageSize: 6,
        resume: true,
        signal: stop.signal,
        onProgress: (p) => {
          if (p.pages === 2) stop.abort();
        },
      }),
    ).rejects.toThrow();
    expect(existsSync(target)).toBe(false);
    expect(existsSync(resumePaths(target).state)).toBe(true);
    const result = await op.structures.exportCsv(target, {
      columns: ["id", "chemical_formula_reduced"],
      pageSize: 6,
      resume: true,
    });
    expect(result.resumedFrom).toBe(12);
    expect(result.items).toBe(30);
    expect(readFileSync(target, "utf8")).toBe(readFileSync(whole, "utf8"));
  });
});

describe("op.structures refuses options it does not take, before any request", () => {
  // Each of these, dropped, read the whole provider unfiltered and looked like success.
  it.each([
    [
      "toDataFrame",
      { filtr: "nelements=2" },
      /structures\.toDataFrame does not use the option "filtr" \(did you mean "filter"\?\); it takes filter, .*columns/,
    ],
    ["toDataFrame", { colums: ["id"] }, /does not use the option "colums" \(did you mean "columns"\?\)/],
    [
      "toDataFrame",
      { query: { nelements: 2 } },
      /does not use the option "query" \(OPTIMADE reads take filter, an OPTIMADE filter string/,
    ],
    [
      "toDataFrame",
      { sort: "-nsites" },
      /does not use the option "sort" \(entries come in the provider's own order: sorting is optional in OPTIMADE/,
    ],
    [
      "toDataFrame",
      { fields: ["nsites"] },
      /does not use the option "fields" \(a table reads the properties its columns name: list them in columns\)/,
    ],
    [
      "toArrow",
      { fitler: "nelements=2" },
      /structures\.toArrow does not use the option "fitler" \(did you mean "filter"\?\)/,
    ],
  ] as const)("%s(%j)", async (method, options, message) => {
    const before = provider.requests.length;
    await expect((op.structures[method] as (o: object) => Promise<unknown>)(options)).rejects.toThrow(message);
    expect(provider.requests.length).toBe(before);
  });

  it("each export names the options of its own format", async () => {
    const before = provider.requests.length;
    const target = join(dir, "refused.out");
    await expect(op.structures.exportCsv(target, { filtr: "nelements=2" } as object)).rejects.toThrow(
      /structures\.exportCsv does not use the option "filtr" \(did you mean "filter"\?\); it takes .*escapeFormulas/,
    );
    await expect(op.structures.exportNdjson(target, { header: false } as object)).rejects.toThrow(
      /structures\.exportNdjson does not use the option "header"; it takes filter, /,
    );
    await expect(op.structures.exportParquet(target, { query: {} } as object)).rejects.toThrow(
      /structures\.exportParquet does not use the option "query" \(OPTIMADE reads take filter/,
    );
    await expect(
      op.structures.exportStructures(join(dir, "refused-dir"), { format: "cif", colums: ["id"] } as never),
    ).rejects.toThrow(/structures\.exportStructures does not use the option "colums"/);
    expect(provider.requests.length).toBe(before);
    expect(readdirSync(dir).filter((f) => f.startsWith("refused"))).toEqual([]);
  });

  it("iterate, pages and get too; an option left undefined passes", async () => {
    const before = provider.requests.length;
    const first = async (o: object) => {
      for await (const s of op.structures.iterate(o)) return s.id;
      return undefined;
    };
    await expect(first({ filtr: "nelements=2" })).rejects.toThrow(
      /structures\.iterate does not use the option "filtr" \(did you mean "filter"\?\); it takes filter, fields, pageSize, maxItems, signal, onProgress\./,
    );
    expect(() => op.structures.pages({ sort: "-nsites" } as object)).toThrow(
      /structures\.pages does not use the option "sort" \(entries come in the provider's own order/,
    );
    await expect(op.structures.get("fake-0001", { filter: "nelements=2" } as object)).rejects.toThrow(
      /structures\.get does not use the option "filter"; it takes fields, signal\./,
    );
    expect(provider.requests.length).toBe(before);
    expect(await first({ filter: "nelements=2", query: undefined })).toBe("fake-0000");
  });
});

describe("op.structures derived properties of elements beyond the old atomic-weight table", () => {
  // Ce (a lanthanide) and U have standard atomic weights the table lacked; Xe has one but no
  // electronegativity, which the formula needed; Tc has no stable isotope, so no standard weight.
  const ELEMENTS = { 0: ["Ce", "O"], 1: ["Tc", "Tc"], 2: ["Xe", "Xe"], 3: ["U", "O"], 5: ["Tc", "O"] } as const;
  const COLUMNS = ["id", "derivedProperties.volume", "derivedProperties.density"];

  async function withProvider<T>(
    count: number,
    use: (c: OptimadeClient) => Promise<T>,
    elements: Readonly<Record<number, readonly [string, string]>> = ELEMENTS,
  ): Promise<T> {
    const p = await startFakeProvider({ count, elements });
    const c = new OptimadeClient({ baseUrl: p.base });
    try {
      return await use(c);
    } finally {
      await c.close();
      await p.close();
    }
  }

  it("volume for every structure; density where every element has a standard weight, and a warning naming the rest", async () => {
    const warnings: FrameWarning[] = [];
    const rows = await withProvider(6, async (c) => {
      const df = await c.structures.toDataFrame({ columns: COLUMNS, onWarning: (w) => warnings.push(w) });
      return df.values as [string, number | null, number | null][];
    });
    expect(rows).toHaveLength(6);
    for (const [i, row] of rows.entries()) expect(row[1]).toBeCloseTo(edge(i) ** 3, 5);
    expect(rows.map((r) => r[2] === null)).toEqual([false, true, false, false, false, true]);
    const weight = (e: string) => defined(ATOMIC_WEIGHTS[e], `${e}'s weight`);
    expect(rows[0]![2]).toBeCloseTo(((weight("Ce") + weight("O")) / edge(0) ** 3) * G_PER_CM3, 5);
    expect(warnings.map((w) => [w.code, w.path, w.rows, w.ids])).toEqual([
      ["NO_ATOMIC_WEIGHT", "derivedProperties.density", 2, ["fake-0001", "fake-0005"]],
    ]);
    expect(at(warnings, 0, "the warning").message).toMatch(
      /^derivedProperties\.density is empty in 2 rows: no standard atomic weight is known for Tc \(an element without a stable isotope has none, nor has a symbol that is not an element's, such as X or D\).*derivedProperties\.volume is given/,
    );
  });

  it("a density column empty only for want of atomic weights is not called a field the records lack", async () => {
    const warnings: FrameWarning[] = [];
    const output = join(dir, "tc-only.csv");
    const result = await withProvider(
      2,
      (c) => c.structures.exportCsv(output, { columns: COLUMNS, onWarning: (w) => warnings.push(w) }),
      { 0: ["Tc", "Tc"], 1: ["Tc", "O"] },
    );
    expect(result.items).toBe(2);
    // The NO_ATOMIC_WEIGHT warning alone: no EMPTY_COLUMN saying the records do not carry the field.
    expect(warnings.map((w) => [w.code, w.rows])).toEqual([["NO_ATOMIC_WEIGHT", 2]]);
    // The export's result lists the warnings it reported, this one included, once.
    expect(result.warnings).toEqual(warnings);
    const rows = parse(readFileSync(output, "utf8"), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.id, r["derivedProperties.density"], Number(r["derivedProperties.volume"])])).toEqual([
      ["fake-0000", "", Number((edge(0) ** 3).toFixed(6))],
      ["fake-0001", "", Number((edge(1) ** 3).toFixed(6))],
    ]);
  });

  it("a resumable Parquet export returns the NO_ATOMIC_WEIGHT warning it reported, once", async () => {
    const warnings: FrameWarning[] = [];
    const output = join(dir, "tc-resumable.parquet");
    const result = await withProvider(6, (c) =>
      c.structures.exportParquet(output, { columns: COLUMNS, resume: true, onWarning: (w) => warnings.push(w) }),
    );
    expect(result.items).toBe(6);
    expect(warnings.map((w) => [w.code, w.ids])).toEqual([["NO_ATOMIC_WEIGHT", ["fake-0001", "fake-0005"]]]);
    expect(result.warnings).toEqual(warnings);
  });
});

describe("op.structures.exportParquet and the spec's integer properties", () => {
  async function duckRead(file: string): Promise<{ types: Record<string, string>; rows: Record<string, unknown>[] }> {
    const duck = await (await DuckDBInstance.create(":memory:")).connect();
    try {
      const read = async (q: string) => (await duck.runAndReadAll(q)).getRowObjectsJS() as Record<string, unknown>[];
      const described = await read(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
      return {
        types: Object.fromEntries(described.map((r) => [r.column_name as string, r.column_type as string])),
        rows: await read(`SELECT * FROM read_parquet('${file}') ORDER BY id`),
      };
    } finally {
      duck.closeSync();
    }
  }

  it("writes nsites, nelements, nperiodic_dimensions and dimension_types' items as INT64", async () => {
    const p = await startFakeProvider({
      count: 3,
      attributes: { 0: { nperiodic_dimensions: 3, dimension_types: [1, 1, 1] }, 1: { nperiodic_dimensions: 0 } },
    });
    const c = new OptimadeClient({ baseUrl: p.base });
    const file = join(dir, "integers.parquet");
    try {
      const warnings: FrameWarning[] = [];
      await c.structures.exportParquet(file, {
        columns: ["id", "nsites", "nelements", "nperiodic_dimensions", "dimension_types.2", "_fake_energy"],
        onWarning: (w) => warnings.push(w),
      });
      expect(warnings.map((w) => w.code)).toEqual([]);
    } finally {
      await c.close();
      await p.close();
    }
    const { types, rows } = await duckRead(file);
    expect(types).toEqual({
      id: "VARCHAR",
      nsites: "BIGINT",
      nelements: "BIGINT",
      nperiodic_dimensions: "BIGINT",
      "dimension_types.2": "BIGINT",
      // Not one of the spec's properties: typed by its values, as before.
      _fake_energy: "DOUBLE",
    });
    expect(rows.map((r) => [r.nsites, r.nelements, r.nperiodic_dimensions, r["dimension_types.2"]])).toEqual([
      [2n, 2n, 3n, 1n],
      [2n, 1n, 0n, null],
      [2n, 2n, null, null],
    ]);
  });

  it("a provider's non-integer in an integer property is left empty with a warning naming it and the provider", async () => {
    const p = await startFakeProvider({
      count: 6,
      attributes: { 1: { nsites: 2.5 }, 3: { nsites: "2" }, 4: { nelements: 1e300 } },
    });
    const c = new OptimadeClient({ baseUrl: p.base });
    const file = join(dir, "off-spec.parquet");
    const warnings: FrameWarning[] = [];
    try {
      const result = await c.structures.exportParquet(file, {
        columns: ["id", "nsites", "nelements"],
        pageSize: 2,
        onWarning: (w) => warnings.push(w),
      });
      expect(result.items).toBe(6);
      expect(result.warnings).toEqual(warnings);
    } finally {
      await c.close();
      await p.close();
    }
    expect(warnings.map((w) => [w.code, w.path, w.rows, w.ids])).toEqual([
      ["OFF_SPEC_VALUE", "nsites", 2, ["fake-0001", "fake-0003"]],
      ["OFF_SPEC_VALUE", "nelements", 1, ["fake-0004"]],
    ]);
    expect(at(warnings, 0, "the nsites warning").message).toBe(
      `nsites is empty in 2 rows: the OPTIMADE provider ${p.base} sent values that are not integers (2.5, "2"), ` +
        "where the OPTIMADE specification has an integer. Ids: fake-0001, fake-0003.",
    );
    const { types, rows } = await duckRead(file);
    expect([types.nsites, types.nelements]).toEqual(["BIGINT", "BIGINT"]);
    expect(rows.map((r) => [r.id, r.nsites, r.nelements])).toEqual([
      ["fake-0000", 2n, 2n],
      ["fake-0001", null, 1n],
      ["fake-0002", 2n, 2n],
      ["fake-0003", null, 1n],
      ["fake-0004", 2n, null],
      ["fake-0005", 2n, 1n],
    ]);
  });

  it("types names another type for a spec integer, and the provider's values are written as they are", async () => {
    const p = await startFakeProvider({ count: 2, attributes: { 1: { nsites: 2.5 } } });
    const c = new OptimadeClient({ baseUrl: p.base });
    const file = join(dir, "nsites-double.parquet");
    const warnings: FrameWarning[] = [];
    try {
      await c.structures.exportParquet(file, {
        columns: ["id", "nsites"],
        types: { nsites: "double" },
        onWarning: (w) => warnings.push(w),
      });
    } finally {
      await c.close();
      await p.close();
    }
    expect(warnings).toEqual([]);
    const { types, rows } = await duckRead(file);
    expect(types.nsites).toBe("DOUBLE");
    expect(rows.map((r) => r.nsites)).toEqual([2, 2.5]);
  });
});
