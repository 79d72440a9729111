// A job's workflow run for real: each espresso unit's own template rendered with the platform's
// context, the pseudopotentials chosen and copied into the job's folder, the unit's program (pw.x,
// then post-processing such as bands.x: ./executables.ts) run unit after unit sharing one outdir,
// and what it wrote turned into property data. Nothing here throws for a failed computation: the
// outcome says what went wrong.
import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import type { StructureRecord } from "../../structure/structure";
import type { ComputedFile, ComputedProperty, ComputeJobInput, ComputeOutcome, UnitReport } from "./compute-types";
import { espressoContext } from "./espresso-context";
import { kpathOf } from "./k-points/k-path";
import { kpointCount } from "./k-points/k-path";
import { type Executable, executableNames, executableOf } from "./executables";
import {
  choosePseudopotential,
  forgetPseudopotentialScan,
  normalizedFunctional,
  type Pseudopotential,
} from "./pseudopotentials";
import { canGenerate, generatePseudopotential } from "./pslibrary";
import { pwDataFile } from "./outputs/pw-results";
import { renderTemplate } from "./render-template";
import { findOnPath, runExecutable } from "./run-executable";
import { foldersOutside, isTrustedTemplate } from "./trusted-templates";

const INSTALL =
  "install it, e.g. `apt install quantum-espresso quantum-espresso-data` on Debian or Ubuntu (or, if it is installed, put its folder on PATH), then restart matframe serve.";

/** What a machine without Quantum ESPRESSO needs, in the words of the job's error. */
export const INSTALL_HINT = notOnPath("pw.x");

/** What a machine without one of Quantum ESPRESSO's programs needs. */
function notOnPath(program: string): string {
  return `${program} (Quantum ESPRESSO) is not on PATH: ${INSTALL}`;
}

/** Said when the server starts on such a machine, before a job finds out. */
export const MISSING_ENGINE_WARNING = `pw.x (Quantum ESPRESSO) is not on PATH, so Quantum ESPRESSO jobs will end in error: ${INSTALL}`;

/** Whether this machine can run Quantum ESPRESSO jobs (pw.x on PATH). */
export function hasEngine(): boolean {
  return findOnPath("pw.x") !== undefined;
}

/** The method subtypes (pseudopotential families) the engine chooses files for. */
const METHODS = new Set(["us", "paw", "nc"]);

type Rec = Record<string, unknown>;
const isRecord = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === "string" ? v : "");

/** A workflow's subworkflows in the order its top-level units run them. */
function orderedSubworkflows(workflow: Rec): Rec[] {
  const subworkflows = (Array.isArray(workflow.subworkflows) ? workflow.subworkflows : []).filter(isRecord);
  const units = (Array.isArray(workflow.units) ? workflow.units : []).filter(isRecord);
  const byId = new Map(subworkflows.map((s) => [text(s._id), s]));
  const ordered = units.map((u) => byId.get(text(u._id))).filter((s): s is Rec => s !== undefined);
  return ordered.length === units.length && ordered.length > 0 ? ordered : subworkflows;
}

/** A subworkflow's units in flowchart order: from the head, along `next`. */
function orderedUnits(subworkflow: Rec): Rec[] {
  const units = (Array.isArray(subworkflow.units) ? subworkflow.units : []).filter(isRecord);
  const byFlowchart = new Map(units.map((u) => [text(u.flowchartId), u]));
  const head = units.find((u) => u.head === true) ?? units[0];
  const ordered: Rec[] = [];
  for (let unit: Rec | undefined = head; unit && !ordered.includes(unit); unit = byFlowchart.get(text(unit.next)))
    ordered.push(unit);
  return ordered.length === units.length ? ordered : units;
}

function applicationName(subworkflow: Rec): string {
  return isRecord(subworkflow.application) ? text(subworkflow.application.name) : "";
}

function methodOf(subworkflow: Rec): { type: string; functional: string } {
  const model = isRecord(subworkflow.model) ? subworkflow.model : {};
  const method = isRecord(model.method) ? model.method : {};
  return { type: text(method.subtype), functional: normalizedFunctional(model) };
}

function elementsOf(material: Rec): string[] {
  const basis = isRecord(material.basis) ? material.basis : {};
  const elements = Array.isArray(basis.elements) ? basis.elements : [];
  return [...new Set(elements.map((e) => (isRecord(e) ? text(e.value) : "")).filter(Boolean))];
}

/** The unit's program and input template, or why the engine cannot run the unit. */
function templateOf(
  unit: Rec,
): { name: string; content: string; executable: string; program: Executable } | { reason: string } {
  const name = text(unit.name) || "unnamed";
  if (unit.type !== "execution")
    return {
      reason: `its unit "${name}" is a ${text(unit.type) || "typeless"} unit; matframe serve runs only execution units`,
    };
  const executable = isRecord(unit.executable) ? text(unit.executable.name) : "";
  const program = executableOf(executable);
  if (!program)
    return {
      reason: `its unit "${name}" runs ${executable || "no executable"}; matframe serve runs only ${executableNames().join(", ")} so far`,
    };
  const input = (Array.isArray(unit.input) ? unit.input : []).filter(isRecord);
  const template = input.map((i) => (isRecord(i.template) ? i.template : undefined)).find((t) => t !== undefined);
  if (!template || !text(template.content)) return { reason: `its unit "${name}" has no input template` };
  if (!isTrustedTemplate(text(template.content)))
    return {
      reason: `its unit "${name}" has an input template that is not one of the bank's (matframe serve renders only the bank's own templates, as a template can run code; set the unit's context for k-points, cutoffs or input values instead)`,
    };
  // The phonon dispersions' path comes from the lattice's symmetry points (made's
  // ReciprocalLattice), which the engine does not make: matdyn.x would read an empty path.
  if (/\b[iq]path\b/.test(text(template.content)))
    return {
      reason: `its unit "${name}" needs a path of q-points through the Brillouin zone (ipath), which matframe serve does not make yet`,
    };
  return { name: text(template.name) || `${name}.in`, content: text(template.content), executable, program };
}

function whyNotApplication(name: string): string {
  if (name === "vasp")
    return "VASP is not free software (its licence is sold per research group), so matframe serve cannot run it; use the espresso version of this workflow to compute it on this machine";
  return `the application "${name || "unknown"}" is not one matframe serve runs (only Quantum ESPRESSO's ${executableNames().join(", ")})`;
}

/** Whether a pw.x template computes bands on an earlier run's density (nscf, bands): it gets a denser grid. */
function isNonSelfConsistent(template: string): boolean {
  return /calculation\s*=\s*['"](nscf|bands)['"]/.test(template);
}

/** The context a unit's template is rendered with, before the pseudopotentials are chosen (their names stand in). */
function unitContext(material: Rec, subworkflow: Rec, unit: Rec, template: string): Record<string, unknown> {
  return espressoContext({
    material: material as unknown as StructureRecord,
    unit,
    subworkflow,
    pseudoFile: (element) => `${element}.upf`,
    nonSelfConsistent: isNonSelfConsistent(template),
    withPath: /\bkpath\b/.test(template),
  }).context;
}

/**
 * Whether this machine can compute the workflow, without running anything (no pw.x on PATH: the
 * install hint; VASP or another non-free or absent application: why; an unsupported unit; no
 * pseudopotential for an element).
 */
export function computability(workflow: Rec, material?: Rec): { runnable: true } | { runnable: false; reason: string } {
  const subworkflows = orderedSubworkflows(workflow);
  const programs = new Set<string>();
  if (subworkflows.length === 0) return { runnable: false, reason: "The workflow has no subworkflows to run." };
  for (const subworkflow of subworkflows) {
    const app = applicationName(subworkflow);
    if (app !== "espresso")
      return { runnable: false, reason: `Cannot compute this workflow: ${whyNotApplication(app)}.` };
    const units = orderedUnits(subworkflow);
    if (units.length === 0)
      return { runnable: false, reason: `Its subworkflow "${text(subworkflow.name)}" has no units.` };
    for (const unit of units) {
      const template = templateOf(unit);
      if ("reason" in template) return { runnable: false, reason: `Cannot compute this workflow: ${template.reason}.` };
      programs.add(template.executable);
    }
    const { type, functional } = methodOf(subworkflow);
    if (!METHODS.has(type))
      return {
        runnable: false,
        reason: `Cannot compute this workflow: its method "${type || "none"}" is not a pseudopotential family matframe serve chooses files for (us, paw, nc).`,
      };
    if (material) {
      // A bands unit's path is known before anything runs: a job that cannot have one stops now,
      // not after its self-consistent unit.
      for (const unit of units) {
        const template = templateOf(unit);
        if ("reason" in template || !/\bkpath\b/.test(template.content)) continue;
        const kpath = kpathOf(material, isRecord(unit.context) ? unit.context : {});
        if ("reason" in kpath)
          return { runnable: false, reason: `Cannot compute ${stemOf(template.name)}: ${kpath.reason}.` };
      }
      for (const element of elementsOf(material)) {
        const choice = choosePseudopotential(element, type, functional);
        if (!choice.found && !canGenerate(element, type, functional)) return { runnable: false, reason: choice.reason };
      }
      // Every unit's input renders (with stand-in pseudopotential names): a template printing a
      // value the engine does not give stops the job now, not after the units before it ran.
      for (const unit of units) {
        const template = templateOf(unit);
        if ("reason" in template) continue;
        try {
          renderTemplate(template.name, template.content, unitContext(material, subworkflow, unit, template.content));
        } catch (error) {
          return { runnable: false, reason: `Cannot compute ${stemOf(template.name)}: ${(error as Error).message}.` };
        }
      }
    }
  }
  for (const program of programs) if (!findOnPath(program)) return { runnable: false, reason: notOnPath(program) };
  return { runnable: true };
}

/** The file name stem of a template: pw_scf.in → pw_scf. */
function stemOf(templateName: string): string {
  return templateName.replace(/\.in$/, "");
}

/**
 * The files a unit's run writes in the job's folder: its input under the template's name and the
 * output beside it (pw_scf.in → pw_scf.out); undefined for a name that is not a plain file name.
 */
function unitFileNames(templateName: string): { input: string; output: string } | undefined {
  if (!/^[\w.-]+$/.test(templateName) || /^\.+$/.test(templateName)) return undefined;
  return { input: templateName, output: `${stemOf(templateName)}.out` };
}

/**
 * The files a run of `workflow` left in `workDir` before it was cut off (a server killed while it
 * computed): each unit's input and output (and the files its program leaves for the reader, as
 * projwfc.x's DOS), named as {@link computeJob} names them, in the order
 * it writes them, for those on disk. A restart lists them, so a cut-off job keeps its files as a
 * terminated one does; so does the listing of a job still running, whose record names its files
 * only once it ends.
 */
export function filesLeftIn(workflow: Rec, workDir: string): ComputedFile[] {
  const files: ComputedFile[] = [];
  const isFile = (name: string) => statSync(path.join(workDir, name), { throwIfNoEntry: false })?.isFile() === true;
  for (const subworkflow of orderedSubworkflows(workflow)) {
    for (const unit of orderedUnits(subworkflow)) {
      const template = templateOf(unit);
      if ("reason" in template) continue;
      const names = unitFileNames(template.name);
      if (!names) continue;
      const unitId = text(unit.flowchartId);
      if (isFile(names.input)) files.push({ name: names.input, relativePath: names.input, kind: "input", unitId });
      if (isFile(names.output)) files.push({ name: names.output, relativePath: names.output, kind: "output", unitId });
      files.push(...programOutputs(template, names.input, workDir, unitId));
    }
  }
  return files;
}

/**
 * The files beside STEM.out a unit's program wrote for the user (bands.x's `bands.dat`), found on
 * disk by its input in the job's folder.
 */
function programOutputs(
  template: ReturnType<typeof templateOf>,
  inputName: string,
  workDir: string,
  unitId: string,
): ComputedFile[] {
  if ("reason" in template || !template.program.outputs) return [];
  let input: string;
  try {
    input = readFileSync(path.join(workDir, inputName), "utf8");
  } catch {
    return [];
  }
  return (
    template.program
      .outputs(input, workDir)
      // A regular file, never a link (lstat): what is listed is served.
      .filter((name) => lstatSync(path.join(workDir, name), { throwIfNoEntry: false })?.isFile() === true)
      .map((name) => ({ name, relativePath: name, kind: "output", unitId }))
  );
}

/** The version pw.x says it is at the head of its output (`Program PWSCF v.6.7MaX starts on ...`): `6.7`. */
export function pwVersion(output: string): string | undefined {
  return /^\s*Program PWSCF v\.(\d+(?:\.\d+)*)/m.exec(output)?.[1];
}

/** Runs the job's units in order in its folder; never throws for a failed computation. */
export async function computeJob(input: ComputeJobInput): Promise<ComputeOutcome> {
  const properties: ComputedProperty[] = [];
  const files: ComputedFile[] = [];
  const notes: string[] = [];
  const log = (line: string) => input.onLog?.(line);
  let engineVersion: string | undefined;
  const ran = () => (engineVersion === undefined ? {} : { engineVersion });
  /** The unit under way, which a failure ends in `error`. */
  let current: string | undefined;
  const report = (unitId: string, status: UnitReport["status"], computed: ComputedProperty[] = []) =>
    input.onUnit?.({ unitId, status, properties: computed });
  const fail = (reason: string): ComputeOutcome => {
    if (current !== undefined) report(current, "error");
    current = undefined;
    return { status: "error", reason, properties, files, notes, ...ran() };
  };
  try {
    const check = computability(input.workflow, input.material);
    if (!check.runnable) return fail(check.reason);
    if (/['"\n]/.test(input.workDir))
      return fail(
        `The job folder ${JSON.stringify(input.workDir)} has a quote or newline, which pw.x inputs cannot hold.`,
      );
    const workDir = path.resolve(input.workDir);
    mkdirSync(path.join(workDir, "pseudo"), { recursive: true });
    mkdirSync(path.join(workDir, "outdir"), { recursive: true });
    /** Whether an earlier unit of this job ran pw.x self-consistently (its data is then the one a bands unit reads). */
    let ranSelfConsistent = false;
    for (const subworkflow of orderedSubworkflows(input.workflow)) {
      const { type, functional } = methodOf(subworkflow);
      const chosen = new Map<string, Pseudopotential>();
      for (const element of elementsOf(input.material)) {
        let choice = choosePseudopotential(element, type, functional);
        if (!choice.found && canGenerate(element, type, functional)) {
          log(
            `Pseudopotential ${element}: none of ${type} with ${functional} here; generating one with ld1.x from pslibrary.`,
          );
          const generated = await generatePseudopotential(element, type, functional, input.signal);
          if ("reason" in generated) return fail(`No ${type} pseudopotential for ${element}: ${generated.reason}.`);
          forgetPseudopotentialScan();
          choice = choosePseudopotential(element, type, functional);
          if (choice.found)
            notes.push(
              `Pseudopotential ${element}: generated with ld1.x from pslibrary's input (kept in ${path.dirname(generated.path)}).`,
            );
        }
        if (!choice.found) return fail(choice.reason);
        chosen.set(element, choice.pseudopotential);
        copyFileSync(choice.pseudopotential.path, path.join(workDir, "pseudo", choice.pseudopotential.filename));
        const note = `Pseudopotential ${choice.why}: the workflow's method is ${type} with ${functional}.`;
        if (!notes.includes(note)) notes.push(note);
        log(note);
      }
      for (const unit of orderedUnits(subworkflow)) {
        if (input.signal.aborted) return fail("The job was stopped before it finished.");
        const template = templateOf(unit);
        if ("reason" in template) return fail(`Cannot compute this workflow: ${template.reason}.`);
        const unitId = text(unit.flowchartId);
        current = unitId;
        report(unitId, "active");
        const stem = stemOf(template.name);
        const nonSelfConsistent = isNonSelfConsistent(template.content);
        const ctx = espressoContext({
          material: input.material as unknown as StructureRecord,
          unit,
          subworkflow,
          pseudoFile: (element) => chosen.get(element)?.filename ?? "",
          nonSelfConsistent,
          withPath: /\bkpath\b/.test(template.content),
        });
        if (ctx.kpath && "reason" in ctx.kpath) return fail(`Cannot compute ${stem}: ${ctx.kpath.reason}.`);
        if (ctx.exactCell) {
          const { from, to } = ctx.exactCell;
          const six = (p: typeof from) =>
            `${[p.a, p.b, p.c].map((x) => x.toFixed(7)).join(", ")} Å, ${[p.alpha, p.beta, p.gamma].map((x) => Number(x.toFixed(5))).join(", ")}°`;
          const note = `Cell: made exact within the material's rounding for pw.x: ${six(from)} → ${six(to)}.`;
          if (!notes.includes(note)) notes.push(note);
        }
        const { executable: program, program: run } = template;
        // A bands or nscf run reads a self-consistent run's data: an earlier unit's, or on the
        // platform the parent job's (Recalculate Bands), which here is what the job's folder holds.
        if (program === "pw.x" && nonSelfConsistent && !ranSelfConsistent && !existsSync(pwDataFile(workDir)))
          return fail(
            `${stem} recalculates the bands of a self-consistent run, and this job has none: no earlier unit ran one, and its folder holds no outdir/__prefix__.save/ (the platform takes it from the job's parent). Run a workflow that starts with pw_scf (Band Structure), or upload a finished job's outdir/__prefix__.save/data-file-schema.xml and charge-density.dat into this job before submitting it.`,
          );
        const kpoints = ctx.kpath ? `${kpointCount(ctx.kpath.kpath)} along a path` : ctx.kgrid.dimensions.join("×");
        if (program === "ph.x" && /\bldisp\s*=\s*\.true\./.test(template.content))
          notes.push(`${stem}: q-points ${ctx.qgrid.dimensions.join("×")}.`);
        if (program === "matdyn.x" && /\bdos\s*=\s*\.true\./.test(template.content))
          notes.push(`${stem}: interpolated on ${ctx.igrid.dimensions.join("×")} q-points.`);
        if (program === "pw.x")
          notes.push(
            `${stem}: k-points ${kpoints} ` +
              (ctx.kpath
                ? `(${ctx.kpath.note})`
                : ctx.kgridFromUnit
                  ? "(the unit's own grid)"
                  : `(${ctx.kgrid.gridMetricValue} k-points per reciprocal atom, spread by the reciprocal vectors' lengths as the platform does${nonSelfConsistent ? "; denser for the bands" : ""})`) +
              `; cutoffs ${ctx.cutoffs.wavefunction}/${ctx.cutoffs.density} Ry.`,
          );
        let rendered: string;
        try {
          rendered = renderTemplate(template.name, template.content, ctx.context).replace(
            /\{\{\s*JOB_WORK_DIR\s*\}\}/g,
            workDir,
          );
        } catch (error) {
          return fail(`Cannot compute ${stem}: ${(error as Error).message}.`);
        }
        const outside = foldersOutside(rendered, workDir);
        if (outside.length > 0)
          return fail(`The input of ${stem} puts files outside the job's folder (${outside.join(", ")}); refused.`);
        const names = unitFileNames(template.name);
        if (!names) return fail(`The template name ${JSON.stringify(template.name)} is not a plain file name.`);
        const inputFile = path.join(workDir, names.input);
        const outputFile = path.join(workDir, names.output);
        writeFileSync(inputFile, rendered);
        files.push({ name: names.input, relativePath: names.input, kind: "input", unitId });
        log(`${stem}: ${program} started${program === "pw.x" ? ` (k-points ${kpoints})` : ""}.`);
        const result = await runExecutable({
          executable: program,
          cwd: workDir,
          inputFile,
          outputFile,
          signal: input.signal,
        });
        if (existsSync(outputFile))
          files.push({ name: names.output, relativePath: names.output, kind: "output", unitId });
        files.push(...programOutputs(template, names.input, workDir, unitId));
        if (result.ended === "aborted") return fail(`The job was stopped while ${stem} ran; ${program} was ended.`);
        if (result.ended === "not-found") return fail(notOnPath(program));
        const output = readFileSync(outputFile, "utf8");
        if (program === "pw.x") engineVersion ??= pwVersion(output);
        if (result.code !== 0) {
          return fail(
            run.failure(output) ??
              `${program} ended with ${result.signal ? `signal ${result.signal}` : `exit code ${result.code}`} in ${stem}; see ${stem}.out.`,
          );
        }
        const failure = run.failure(output);
        if (failure) return fail(`${failure} (${stem})`);
        log(`${stem}: ${program} finished.`);
        if (program === "pw.x" && !nonSelfConsistent) ranSelfConsistent = true;
        const wanted = new Set(
          (Array.isArray(unit.results) ? unit.results : []).map((r) => (isRecord(r) ? text(r.name) : "")),
        );
        const found = run.results({ workDir, stem, output, wanted, material: input.material });
        notes.push(...found.notes);
        const computed: ComputedProperty[] = found.computed.map((data) => ({ unitId, data }));
        properties.push(...computed);
        current = undefined;
        await report(unitId, "finished", computed);
      }
    }
    return { status: "finished", properties, files, notes, ...ran() };
  } catch (error) {
    return fail(`The engine could not run the job: ${(error as Error).message}`);
  }
}
