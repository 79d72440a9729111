import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { computability, computeJob, pseudopotentialRecords } from "../../src/server/compute";
import { espressoContext } from "../../src/server/compute/espresso-context";
import { choosePseudopotential, readUpfHeader } from "../../src/server/compute/pseudopotentials";
import { renderTemplate, sprintf } from "../../src/server/compute/render-template";
import { foldersOutside } from "../../src/server/compute/trusted-templates";
import type { StructureRecord } from "../../src/structure/structure";
import { at } from "../support/checked";
import { bankWorkflow, bulkSilicon, templateOf } from "./fixtures";

// The engine's inputs without running pw.x: the units' own templates rendered with the
// platform's context, the k-grid from a density, the pseudopotential choice, and the reasons a
// job cannot run (no pw.x, VASP, a missing pseudopotential).

const { validate } = require("@mat3ra/esse/dist/js/utils/ajv") as {
  validate: (data: object, schema: object) => { isValid: boolean; errors: unknown };
};
const ESSE = path.dirname(require.resolve("@mat3ra/esse/dist/js/schema/material.json"));

const DEBIAN_PSEUDO = "/usr/share/espresso/pseudo";
const hasDebianPseudo = (() => {
  try {
    return readUpfHeader(path.join(DEBIAN_PSEUDO, "Si.pbe-nl-rrkjus_psl.1.0.0.UPF")) !== undefined;
  } catch {
    return false;
  }
})();
if (!hasDebianPseudo)
  console.warn(
    `Skipping the pseudopotential choices: ${DEBIAN_PSEUDO} has no Si.pbe-nl-rrkjus_psl.1.0.0.UPF (apt install quantum-espresso-data).`,
  );

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function render(workflowName: string, unitName: string): string {
  const workflow = bankWorkflow(workflowName, "espresso");
  const subworkflow = at(workflow.subworkflows as Record<string, unknown>[], 0, "the first subworkflow");
  const unit = (subworkflow.units as Record<string, unknown>[]).find((u) => u.name === unitName)!;
  const template = templateOf(workflow, unitName);
  const { context } = espressoContext({
    material: bulkSilicon() as unknown as StructureRecord,
    unit,
    subworkflow,
    pseudoFile: (element) => `${element}.upf`,
    nonSelfConsistent: unitName === "pw_nscf",
  });
  return renderTemplate(template.name, template.content, context);
}

describe("a unit's own template rendered with the platform's context", () => {
  it("gives Si's SCF input: cell, species, crystal positions, cutoffs and a 6×6×6 grid", () => {
    const input = render("Total Energy", "pw_scf");
    expect(input).toContain("calculation = 'scf'");
    expect(input).toMatch(/ibrav = 0\s+nat = 2\s+ntyp = 1\s+ecutwfc = 40\s+ecutrho = 200/);
    expect(input).toContain("Si 28.085000 Si.upf");
    expect(input).toMatch(/Si\s+0\.875000000\s+0\.875000000\s+0\.875000000\n/);
    // mp-149's a = 3.866976 Å, b = c = 3.866975 Å, given to pw.x equal (their mean), a along x.
    expect(input).toMatch(/CELL_PARAMETERS angstrom\n\s+3\.866975333\s+0\.000000000\s+0\.000000000\n/);
    expect(input).toMatch(/K_POINTS automatic\n6 6 6 0 0 0/);
    // The platform fills the job's folder in at run time; the template keeps the placeholder raw.
    expect(input).toContain("pseudo_dir = '{{ JOB_WORK_DIR }}/pseudo'");
    expect(input).not.toMatch(/undefined|NaN|\[object/);
  });

  it("is the same SCF input in Total Energy and Band Gap (the pw.x tests run it once, in Band Gap)", () => {
    expect(templateOf(bankWorkflow("Total Energy", "espresso"), "pw_scf")).toEqual(
      templateOf(bankWorkflow("Band Gap", "espresso"), "pw_scf"),
    );
    expect(render("Total Energy", "pw_scf")).toBe(render("Band Gap", "pw_scf"));
  });

  it("gives the band gap's NSCF unit the denser grid its bands need", () => {
    expect(render("Band Gap", "pw_nscf")).toMatch(/calculation = 'nscf'[\s\S]*K_POINTS automatic\n12 12 12 0 0 0/);
  });

  it("renders the vc-relax unit without constraints when every atom is free", () => {
    const input = render("Variable-cell Relaxation", "pw_vc-relax");
    expect(input).toContain("calculation = 'vc-relax'");
    expect(input).toMatch(/Si\s+0\.125000000\s+0\.125000000\s+0\.125000000\n/);
  });

  it("formats numbers as Python's % (the platform's sprintf filter) does", () => {
    const cases: [string, unknown][] = [
      ["%14.9f", 3.866976],
      ["%14.9f", -0.1234567891234],
      ["%f", 28.085],
      ["%-3s", "Si"],
      ["%5d", 42],
      ["%.3e", 12345.678],
      ["%08.3f", -1.23456],
    ];
    const ours = cases.map(([format, value]) => sprintf(format, value));
    const script = `import json,sys\nfor f,v in json.load(sys.stdin): print(repr(f % v))`;
    const python = execFileSync("python3", ["-c", script], { input: JSON.stringify(cases) })
      .toString()
      .trim()
      .split("\n")
      .map((line) => line.slice(1, -1));
    expect(ours).toEqual(python);
  });
});

describe.runIf(hasDebianPseudo)("pseudopotentials chosen for the method and functional", () => {
  it("chooses pslibrary's ultrasoft PBE file for Si and says why", () => {
    const choice = choosePseudopotential("Si", "us", "pbe");
    expect(choice).toMatchObject({ found: true, pseudopotential: { filename: "Si.pbe-nl-rrkjus_psl.1.0.0.UPF" } });
  });

  it("never takes a fully relativistic or other-family file in place of the method's", () => {
    const choice = choosePseudopotential("Ge", "us", "pbe");
    expect(choice.found).toBe(false);
    if (!choice.found)
      expect(choice.reason).toMatch(/No us pseudopotential for Ge.*only Ge\.pbe-kjpaw\.UPF \(paw, pbe\)/);
  });

  it("lists what the machine has as ESSE pseudopotential records", () => {
    const records = pseudopotentialRecords();
    expect(records.length).toBeGreaterThan(50);
    const fileSchema = JSON.parse(
      readFileSync(path.join(ESSE, "methods_directory", "physical", "psp", "file.json"), "utf8"),
    ) as object;
    for (const record of records) expect(validate(record, fileSchema)).toMatchObject({ isValid: true });
    expect(records).toContainEqual(
      expect.objectContaining({
        slug: "pseudopotential",
        data: expect.objectContaining({ element: "Si", type: "us", filename: "Si.pbe-nl-rrkjus_psl.1.0.0.UPF" }),
      }),
    );
  });

  it("says a material's element has no pseudopotential before anything runs", () => {
    const sodium = bulkSilicon();
    at((sodium.basis as { elements: { value: string }[] }).elements, 0, "the first element").value = "Na";
    const check = computability(bankWorkflow("Total Energy", "espresso"), sodium);
    expect(check).toEqual({ runnable: false, reason: expect.stringMatching(/No us pseudopotential for Na/) });
  });
});

describe("jobs the machine cannot compute end in error with the reason", () => {
  it("a VASP workflow: VASP is not free software", async () => {
    const workflow = bankWorkflow("Total Energy", "vasp");
    expect(computability(workflow)).toEqual({
      runnable: false,
      reason: expect.stringMatching(/VASP is not free software/),
    });
    const workDir = mkdtempSync(path.join(tmpdir(), "matframe-engine-"));
    folders.push(workDir);
    const outcome = await computeJob({
      jobId: "vasp-job",
      workflow,
      material: bulkSilicon(),
      workDir,
      signal: new AbortController().signal,
    });
    expect(outcome).toMatchObject({
      status: "error",
      reason: expect.stringMatching(/VASP is not free software/),
      files: [],
    });
  });

  it("no pw.x on PATH: the install hint", async () => {
    const workDir = mkdtempSync(path.join(tmpdir(), "matframe-engine-"));
    folders.push(workDir);
    const saved = process.env.PATH;
    process.env.PATH = workDir;
    try {
      const outcome = await computeJob({
        jobId: "no-pw",
        workflow: bankWorkflow("Total Energy", "espresso"),
        material: bulkSilicon(),
        workDir,
        signal: new AbortController().signal,
      });
      expect(outcome).toMatchObject({
        status: "error",
        reason: expect.stringContaining("apt install quantum-espresso quantum-espresso-data"),
      });
    } finally {
      process.env.PATH = saved;
    }
  });

  it("a template printing a value the engine does not give is refused before any unit runs, naming its line", () => {
    // The magnetic band structure's species carry labels (Si1, Si2) and starting magnetizations;
    // rendered without them, pw.x got `ntyp = ` and no species.
    const magnetic = computability(bankWorkflow("Bandstructure with spin magnetism - QE", "espresso"), bulkSilicon());
    expect(magnetic).toEqual({
      runnable: false,
      reason:
        "Cannot compute pw_scf_magn: The input template pw_scf_magn.in needs a value matframe serve does not give yet (line 20: ntyp = {{ input.NTYP_WITH_LABELS }}), so its program would get a broken input.",
    });
    // The effective screening medium's boundary conditions come from a context the engine lacks.
    const esm = computability(bankWorkflow("Effective Screening Medium (ESM)", "espresso"), bulkSilicon());
    expect(esm).toEqual({
      runnable: false,
      reason: expect.stringContaining("esm_bc = '{{ boundaryConditions.type }}'"),
    });
    // The inputs it does give render whole.
    expect(computability(bankWorkflow("Density of States", "espresso"), bulkSilicon())).toEqual({ runnable: true });
  });

  it("a unit of a program the engine does not run names the unit, its program and those it runs", () => {
    // SternheimerGW's gw.x is not part of Debian's quantum-espresso.
    const check = computability(bankWorkflow("Plasmon-Pole GW Band Structure + Band Gap", "espresso"));
    expect(check).toEqual({
      runnable: false,
      reason: expect.stringMatching(
        /unit "gw_bands_plasmon_pole" runs gw\.x; matframe serve runs only pw\.x, bands\.x/,
      ),
    });
  });

  it("a template that is not the bank's: refused unrendered, since a template can run code", async () => {
    const workflow = bankWorkflow("Total Energy", "espresso");
    const subworkflows = workflow.subworkflows as { units: { input: { template: { content: string } }[] }[] }[];
    const { input } = at(at(subworkflows, 0, "the first subworkflow").units, 0, "its first unit");
    const marker = path.join(tmpdir(), `matframe-template-ran-${process.pid}`);
    at(input, 0, "its input").template.content =
      `{{ range.constructor("require('fs').writeFileSync('${marker}', 'x')")() }}`;
    expect(computability(workflow)).toEqual({
      runnable: false,
      reason: expect.stringMatching(/not one of the bank's/),
    });
    const workDir = mkdtempSync(path.join(tmpdir(), "matframe-engine-"));
    folders.push(workDir);
    const outcome = await computeJob({
      jobId: "edited",
      workflow,
      material: bulkSilicon(),
      workDir,
      signal: new AbortController().signal,
    });
    expect(outcome.status).toBe("error");
    expect(existsSync(marker)).toBe(false);
  });

  it("an input whose files would leave the job's folder is named", () => {
    const input = "outdir = '/tmp/elsewhere'\n  pseudo_dir = '/job/pseudo'\n  prefix = '__prefix__'\n";
    expect(foldersOutside(input, "/job")).toEqual(["outdir = '/tmp/elsewhere'"]);
    expect(foldersOutside("  prefix = '../x'\n", "/job")).toEqual(["prefix = '../x'"]);
  });
});
