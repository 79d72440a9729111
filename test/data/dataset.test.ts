import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MaterialRecord, Method } from "../../src/schemas";

// `npm run dataset` (README, data/README.md) must rebuild exactly the committed file from the
// installed @mat3ra/standata, so the data's provenance can be checked by anyone.
const ROOT = path.join(__dirname, "..", "..");
const COMMITTED = path.join(ROOT, "data", "materials.json");
const dir = mkdtempSync(path.join(tmpdir(), "matframe-dataset-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the bundled dataset", () => {
  it("is rebuilt byte for byte by scripts/build-dataset.js", () => {
    const out = path.join(dir, "materials.json");
    execFileSync(process.execPath, [path.join(ROOT, "scripts", "build-dataset.js")], {
      env: { ...process.env, MATFRAME_DATASET_OUT: out },
      stdio: "pipe",
    });
    expect(readFileSync(out, "utf8")).toBe(readFileSync(COMMITTED, "utf8"));
  });

  it("holds platform-shaped records with valid methods, unique ids and Materials Project / 2dmatpedia sources", () => {
    const records = JSON.parse(readFileSync(COMMITTED, "utf8")) as unknown[];
    expect(records.length).toBe(29);
    const parsed = records.map((r) => MaterialRecord.parse(r));
    expect(new Set(parsed.map((r) => r._id)).size).toBe(parsed.length);
    for (const r of parsed) {
      expect(r._id).toMatch(/^[23456789A-HJ-NP-TW-Za-km-z]{17}$/);
      expect(["Materials Project", "2dmatpedia"]).toContain(r.external?.source);
      if (r.method) expect(Method.safeParse(r.method).success).toBe(true);
    }
    const silicon = parsed.find((r) => r.external?.id === "mp-149")!;
    expect(silicon.formula).toBe("Si");
    expect(silicon.unitCellFormula).toBe("Si2");
    // Two Si atoms (28.085 g/mol) in the relaxed FCC primitive cell: about 2.28 g/cm³.
    const density = silicon.derivedProperties.find((p) => p.name === "density")!.value as number;
    expect(density).toBeGreaterThan(2.2);
    expect(density).toBeLessThan(2.4);
    expect(parsed.filter((r) => r.method).length).toBeGreaterThan(parsed.length / 2);
    expect(parsed.some((r) => !r.method)).toBe(true);
  });
});
