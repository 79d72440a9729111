import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { structureOf, type StructureRecord } from "../../src";
import { planStructureExport } from "../../src/frame/export/structure-export";
import { makeSyntheticMaterials } from "../../src/server/records/synthetic";
import {
  IMPORT_FORMATS,
  STRUCTURE_FILE_FORMATS,
  STRUCTURE_FORMATS,
  type StructureFileFormat,
} from "../../src/structure/formats";
import { runCli } from "../cli-export/run-cli";

// The structure formats' registry is the one list: every format in it writes files its own
// reader reads back, and every list users see (the CLI's help, the messages) is the registry's.

const bundled = JSON.parse(readFileSync(join(__dirname, "../../data/materials.json"), "utf8")) as (StructureRecord & {
  _id: string;
})[];
const records = [...bundled, ...(makeSyntheticMaterials(40, bundled as never) as unknown as typeof bundled)];
/** The registry as its readers see it: every field of the record type, optional ones too. */
const FORMATS: readonly StructureFileFormat[] = STRUCTURE_FILE_FORMATS;
const names = FORMATS.map((f) => f.name);

function expectClose(actual: readonly (readonly number[])[], expected: readonly (readonly number[])[], what: string) {
  expect(actual.length, what).toBe(expected.length);
  actual.forEach((row, i) => {
    row.forEach((x, k) => {
      expect(Math.abs(x - expected[i]![k]!), `${what} [${i}][${k}]`).toBeLessThan(1e-6);
    });
  });
}

describe("the structure formats' registry", () => {
  it("names each format once, with an extension, a label and a description", () => {
    expect(new Set(names).size).toBe(names.length);
    expect(STRUCTURE_FORMATS).toEqual(names);
    for (const format of FORMATS) {
      expect(format.extension, format.name).toMatch(/^[a-z0-9]+$/);
      expect(format.label, format.name).not.toBe("");
      expect(format.description, format.name).not.toBe("");
      expect(format.cells, format.name).toContain("as-is");
      if (format.cells.length < 3) expect(format.cellsReason, format.name).toBeDefined();
    }
    // The platform imports only what matframe can read itself (the client checks the file first).
    for (const name of IMPORT_FORMATS) expect(FORMATS.find((f) => f.name === name)?.read).toBeDefined();
  });

  // Formats without a reader of their own (cif-symmetrized: fromCif reads it) are read by
  // pymatgen and ASE in format-registry-readers.test.ts.
  for (const format of FORMATS) {
    const read = format.read;
    if (!read) continue;
    it(`${format.name}: its own reader gives back the cell, positions and species order of ${records.length} materials within 1e-6 Å`, () => {
      for (const record of records) {
        const back = structureOf(read(format.write(record)));
        const { cell, sites } = structureOf(record);
        expectClose(back.cell, cell, `${record._id} cell`);
        expectClose(
          back.sites.map((s) => s.cartesian),
          sites.map((s) => s.cartesian),
          `${record._id} positions`,
        );
        expect(back.sites.map((s) => s.element)).toEqual(sites.map((s) => s.element));
      }
    });
  }

  it("an unknown format is refused with the registry's names, in order", () => {
    expect(() => planStructureExport({ format: "pdb" as never })).toThrow(
      `format must be ${names
        .slice(0, -1)
        .map((n) => `"${n}"`)
        .join(", ")} or "${names.at(-1)}"; got "pdb".`,
    );
  });

  it("`matframe export --help` lists exactly the registry's formats, and --format takes each of them", async () => {
    const { code, stdout } = await runCli(["export", "--help"]);
    expect(code).toBe(0);
    const text = stdout.replace(/\s+/g, " ");
    const listedNames = /structure format: (.*?) \(/.exec(text)?.[1];
    expect(listedNames?.split(/, | or /)).toEqual(names);
    for (const format of FORMATS) expect(text).toContain(`${format.name} ${format.description}`);
    const bad = await runCli(["export", "--format", "pdb", "--output", "out"]);
    expect(bad.code).toBe(1);
    for (const name of names) expect(bad.stderr).toContain(name);
  });
});
