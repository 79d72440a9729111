import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import type { FrameWarning } from "../../src";
import { planColumns } from "../../src/frame/table/column-spec";
import { usePlatform } from "../support/platform";
import { hasPymatgen, python, refOf, type Reference } from "../support/symmetry-ref";
import { runCli } from "../cli-export/run-cli";
import { at, defined } from "../support/checked";

// The derived-property columns (`derivedProperties.symmetry.spaceGroupSymbol`,
// `derivedProperties.elemental_ratio.Si`, `derivedProperties.p-norm.2`) and the computed columns
// (`matframe:spaceGroupSymbol` ...) in every table and export, against spglib and pymatgen.

type Rec = {
  _id: string;
  name: string;
  formula: string;
  lattice: object;
  basis: { elements: { value: string }[] };
  derivedProperties: object[];
};
const bundled = JSON.parse(readFileSync(join(__dirname, "../../data/materials.json"), "utf8")) as Rec[];
/** The same materials as a platform that never computed derived properties would serve them. */
const bare = bundled.map(({ derivedProperties: _dropped, ...rest }) => rest);

const PLATFORM_COLUMNS = [
  "formula",
  "derivedProperties.symmetry.spaceGroupSymbol",
  "derivedProperties.elemental_ratio.Si",
  "derivedProperties.p-norm.2",
  "derivedProperties.p-norm.0",
];
const COMPUTED = [
  "matframe:spaceGroupNumber",
  "matframe:spaceGroupSymbol",
  "matframe:crystalSystem",
  "matframe:pointGroup",
  "matframe:nsites",
  "matframe:volumePerAtom",
];

const refs: Reference[] = hasPymatgen ? python(["analyze"], JSON.stringify(bundled.map((r) => refOf(r as never)))) : [];
const byId = new Map(bundled.map((r, i) => [r._id, i]));

/** A bundled material and pymatgen's reference for it, by the id a row of a table carries. */
function material(id: unknown): { record: Rec; ref: Reference } {
  const i = defined(byId.get(id as string), `bundled material ${JSON.stringify(id)}`);
  return { record: at(bundled, i, "the bundled materials"), ref: at(refs, i, "pymatgen's references") };
}

function siRatio(r: Rec): number | null {
  const n = r.basis.elements.filter((e) => e.value === "Si").length;
  return n === 0 ? null : n / r.basis.elements.length;
}

describe("column planning", () => {
  it("a keyed entry or a computed column fetches what it reads, and nothing a platform field could be mistaken for", () => {
    expect(planColumns(["derivedProperties.p-norm.2", "derivedProperties.elemental_ratio.Si"]).fields).toEqual({
      _id: 1,
      "derivedProperties.name": 1,
      "derivedProperties.degree": 1,
      "derivedProperties.element": 1,
      "derivedProperties.value": 1,
      "derivedProperties.elemental_ratio.Si": 1,
      // `2` is read as an array index, so the projection stops before it.
      "derivedProperties.p-norm": 1,
    });
    expect(planColumns(["matframe:crystalSystem", "formula"]).fields).toEqual({
      _id: 1,
      basis: 1,
      formula: 1,
      lattice: 1,
    });
    expect(() => planColumns(["matframe:spacegroup"])).toThrow(
      /is not one of the computed columns \(matframe:spaceGroupNumber, matframe:spaceGroupSymbol, matframe:crystalSystem, matframe:pointGroup, matframe:nsites, matframe:volumePerAtom\)/,
    );
    // A slip of case or a letter gets the name it was meant to be.
    expect(() => planColumns(["matframe:crystalsystem"])).toThrow(/: did you mean matframe:crystalSystem\?$/);
    expect(() => planColumns(["matframe:pointgrup"])).toThrow(/: did you mean matframe:pointGroup\?$/);
  });
});

describe.runIf(hasPymatgen)("derived-property columns from the local platform", () => {
  const platform = usePlatform("matframe-derived-columns-");

  it("toDataFrame: symbol, Si ratio and p-norms equal pymatgen's; computed columns equal spglib's", async () => {
    const df = await platform.client.materials.toDataFrame({ columns: [...PLATFORM_COLUMNS, ...COMPUTED] });
    const rows = df.values as unknown[][];
    const names = df.columns as string[];
    expect(names).toEqual(["_id", ...PLATFORM_COLUMNS, ...COMPUTED]);
    expect(rows.length).toBe(bundled.length);
    for (const row of rows) {
      const { record, ref } = material(row[0]);
      const what = record.name;
      const cell = (name: string) => row[names.indexOf(name)];
      expect(cell("derivedProperties.symmetry.spaceGroupSymbol"), what).toBe(ref.symbol);
      const si = siRatio(record);
      if (si === null) expect(cell("derivedProperties.elemental_ratio.Si") ?? null, what).toBeNull();
      else expect(cell("derivedProperties.elemental_ratio.Si"), what).toBeCloseTo(si, 12);
      const f = ref.ratios.map((r) => r[1]);
      expect(cell("derivedProperties.p-norm.2"), what).toBeCloseTo(Math.sqrt(f.reduce((s, x) => s + x * x, 0)), 12);
      expect(cell("derivedProperties.p-norm.0"), what).toBe(f.length);
      expect(cell("matframe:spaceGroupNumber"), what).toBe(ref.spglib.number);
      expect(cell("matframe:spaceGroupSymbol"), what).toBe(ref.spglib.international);
      expect(cell("matframe:pointGroup"), what).toBe(ref.spglib.pointgroup);
      expect(cell("matframe:crystalSystem"), what).toBe(ref.crystalSystem);
      // pymatgen's len(structure) and structure.volume / len(structure); and len(basis.elements).
      expect(cell("matframe:nsites"), what).toBe(ref.nsites);
      expect(cell("matframe:nsites"), what).toBe(record.basis.elements.length);
      expect(cell("matframe:volumePerAtom"), what).toBeCloseTo(ref.volume / ref.nsites, 9);
    }
    expect(rows.filter((r) => r[names.indexOf("derivedProperties.elemental_ratio.Si")] != null).length).toBeGreaterThan(
      0,
    );
    // The bundled cells differ in size, so the comparison can fail.
    expect(new Set(rows.map((r) => r[names.indexOf("matframe:nsites")])).size).toBeGreaterThan(4);
  });

  it("CSV, NDJSON and Parquet exports carry the same columns; csv-parse and DuckDB read them back", async () => {
    const columns = [...PLATFORM_COLUMNS, ...COMPUTED];
    const csvPath = join(platform.dir, "d.csv");
    const ndPath = join(platform.dir, "d.ndjson");
    const pqPath = join(platform.dir, "d.parquet");
    await platform.client.materials.exportCsv(csvPath, { columns });
    await platform.client.materials.exportNdjson(ndPath, { columns });
    await platform.client.materials.exportParquet(pqPath, { columns });
    const csv = parse(readFileSync(csvPath, "utf8"), { columns: true }) as Record<string, string>[];
    const nd = readFileSync(ndPath, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const duck = await (await DuckDBInstance.create(":memory:")).connect();
    const pq = (await (
      await duck.runAndReadAll(`SELECT * FROM read_parquet('${pqPath}')`)
    ).getRowObjectsJS()) as Record<string, unknown>[];
    const arrow = await platform.client.materials.toArrow({ columns });
    expect(arrow.schema.fields.map((f: { name: string }) => f.name)).toEqual(["_id", ...columns]);
    for (const [k, row] of csv.entries()) {
      const { ref } = material(row._id);
      const parquetRow = at(pq, k, "the Parquet rows");
      expect(row["derivedProperties.symmetry.spaceGroupSymbol"]).toBe(ref.symbol);
      expect(row["matframe:spaceGroupSymbol"]).toBe(ref.spglib.international);
      expect(nd[k]["matframe:spaceGroupNumber"]).toBe(ref.spglib.number);
      expect(Number(nd[k]["derivedProperties.p-norm.2"])).toBeCloseTo(Number(row["derivedProperties.p-norm.2"]), 12);
      expect(parquetRow["matframe:spaceGroupNumber"]).toBe(ref.spglib.number);
      expect(parquetRow["derivedProperties.symmetry.spaceGroupSymbol"]).toBe(ref.symbol);
      expect(parquetRow["derivedProperties.p-norm.2"]).toBeCloseTo(Number(row["derivedProperties.p-norm.2"]), 12);
    }
    duck.closeSync();
  });

  it("the CLI: --columns takes them", async () => {
    const result = await runCli([
      "export",
      "--output",
      "-",
      "--quiet",
      "--columns",
      "formula,derivedProperties.symmetry.spaceGroupSymbol,derivedProperties.elemental_ratio.Si,matframe:crystalSystem",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const rows = parse(result.stdout, { columns: true }) as Record<string, string>[];
    expect(rows.length).toBe(bundled.length);
    for (const row of rows) {
      const { ref } = material(row._id);
      expect(row["derivedProperties.symmetry.spaceGroupSymbol"]).toBe(ref.symbol);
      expect(row["matframe:crystalSystem"]).toBe(ref.crystalSystem);
    }
    const wrong = await runCli(["export", "--output", "-", "--columns", "matframe:sg"]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('Column "matframe:sg" is not one of the computed columns');
  });
});

describe.runIf(hasPymatgen)("computed columns for records without derived properties", () => {
  const broken = {
    ...bare[0],
    _id: "broken-1",
    name: "two atoms on one spot",
    basis: {
      units: "crystal",
      elements: [
        { id: 0, value: "Si" },
        { id: 1, value: "Si" },
      ],
      coordinates: [
        { id: 0, value: [0, 0, 0] },
        { id: 1, value: [0, 0, 0.00001] },
      ],
    },
  };
  const platform = usePlatform("matframe-computed-columns-", { data: [...bare, broken] });

  it("space group number and symbol, crystal system and point group equal spglib's; a structure without a group is null with one warning", async () => {
    const warnings: FrameWarning[] = [];
    const df = await platform.client.materials.toDataFrame({
      columns: ["derivedProperties.symmetry.spaceGroupSymbol", ...COMPUTED.slice(0, 4)],
      onWarning: (w) => warnings.push(w),
    });
    const rows = df.values as unknown[][];
    expect(rows.length).toBe(bundled.length + 1);
    for (const row of rows) {
      if (row[0] === "broken-1") {
        expect(row.slice(2).every((x) => x === null || x === undefined || Number.isNaN(x))).toBe(true);
        continue;
      }
      const { ref } = material(row[0]);
      expect(row[1] ?? null).toBeNull();
      expect(row.slice(2)).toEqual([
        ref.spglib.number,
        ref.spglib.international,
        ref.crystalSystem,
        ref.spglib.pointgroup,
      ]);
    }
    const structural = warnings.filter((w) => w.code === "INVALID_STRUCTURE");
    expect(structural).toHaveLength(1);
    // A structure without a space group still has its atoms and volume.
    // The tolerances reach the search: pymatgen's answer at symprec 0.1 Å and angles judged as a distance.
    const loose = await platform.client.materials.toDataFrame({
      columns: ["matframe:spaceGroupNumber"],
      symmetry: { symprec: 0.1, angleTolerance: -1 },
      query: { _id: { $ne: "broken-1" } },
    });
    const theirs = python(
      ["analyze"],
      JSON.stringify(
        (loose.values as [string, number][]).map(([id]) => ({
          ...refOf(material(id).record as never),
          symprec: 0.1,
          angleTolerance: -1,
        })),
      ),
    ) as Reference[];
    expect((loose.values as [string, number][]).map((r) => r[1])).toEqual(theirs.map((t) => t.number));
    await expect(
      platform.client.materials.toDataFrame({ columns: ["matframe:spaceGroupNumber"], symmetry: { symprec: -1 } }),
    ).rejects.toThrow(/symprec must be a positive distance/);
    const sizes = await platform.client.materials.toDataFrame({
      columns: ["matframe:nsites", "matframe:volumePerAtom"],
      query: { _id: "broken-1" },
    });
    const { volume } = at(refs, 0, "pymatgen's references"); // the broken record has the first bundled material's cell
    expect(sizes.values).toEqual([["broken-1", 2, expect.closeTo(volume / 2, 9)]]);
    // The warning names the columns that are null, not the atom count that is there.
    const mixed: FrameWarning[] = [];
    await platform.client.materials.toDataFrame({
      columns: ["matframe:nsites", "matframe:spaceGroupNumber"],
      query: { _id: "broken-1" },
      onWarning: (w) => mixed.push(w),
    });
    expect(mixed.map((w) => w.message)).toEqual([
      expect.stringMatching(/^matframe:spaceGroupNumber is null in 1 row without a usable structure/),
    ]);
    const warning = at(structural, 0, "the structure warnings");
    expect(warning.rows).toBe(1);
    expect(warning.ids).toEqual(["broken-1"]);
    expect(warning.message).toMatch(
      /matframe:spaceGroupNumber, .* are null in 1 row without a usable structure \(no space group found with symprec 0.01/,
    );
  });
});
