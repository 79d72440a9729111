// Pseudopotentials the machine lacks, generated once with ld1.x from pslibrary's inputs
// (https://github.com/dalcorso/pslibrary, GPL-2: not bundled; a checkout named by
// MATFRAME_PSLIBRARY) and kept in a cache folder that pseudopotentialDirs() reads.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import * as path from "node:path";
import { findOnPath, runExecutable } from "./run-executable";

/** Where generated pseudopotentials are kept: MATFRAME_PSEUDO_CACHE, else ~/.cache/matframe/pseudo. */
export function generatedPseudopotentialDir(): string {
  return process.env.MATFRAME_PSEUDO_CACHE || path.join(homedir(), ".cache", "matframe", "pseudo");
}

/** pslibrary's job files for a type, best first: its 1.0.0 high-accuracy set, then the low-cutoff one, then 0.x. */
const JOB_FILES: Record<string, string[]> = {
  us: ["us_ps_high.job", "us_ps_low.job", "us_ps_collection.job"],
  paw: ["paw_ps_high.job", "paw_ps_low.job", "paw_ps_collection.job"],
};

/** pslibrary's environment per functional (its pbe/, pz/, pbesol/ folders): file tag and ld1.x dft. */
const FUNCTIONALS: Record<string, { fct: string; gfun: string }> = {
  pbe: { fct: "pbe", gfun: "PBE" },
  pz: { fct: "pz", gfun: "LDA" },
  pbesol: { fct: "pbesol", gfun: "PBESOL" },
};

/** The here-documents of a pslibrary job file, with `if [ $nrel = N ]` blocks kept for scalar-relativistic runs only. */
function inputsOf(script: string, vars: Record<string, string>): { name: string; input: string }[] {
  const found: { name: string; input: string }[] = [];
  const skipping: boolean[] = [];
  const lines = script.split("\n");
  const substitute = (text: string) => text.replace(/\$(\w+)/g, (whole, name: string) => vars[name] ?? whole);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const test = /^\s*if\s+\[\s*\$nrel\s*=\s*(\d)\s*\]/.exec(line);
    if (test) {
      skipping.push(test[1] !== vars.nrel);
      continue;
    }
    if (/^\s*fi\b/.test(line)) {
      skipping.pop();
      continue;
    }
    if (/^\s*else\b/.test(line) && skipping.length > 0) {
      skipping.push(!skipping.pop());
      continue;
    }
    const doc = /^cat\s*>\s*(\S+)\s*<<\s*EOF/.exec(line);
    if (!doc) continue;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== "EOF"; i++) body.push(lines[i]!);
    if (skipping.some(Boolean)) continue;
    found.push({ name: substitute(doc[1]!), input: `${substitute(body.join("\n"))}\n` });
  }
  return found;
}

/** pslibrary's ld1.x input for an element, type and functional, when it has one and its checkout is here. */
export function pslibraryInput(
  element: string,
  type: string,
  functional: string,
): { name: string; input: string; upf: string } | undefined {
  const dir = process.env.MATFRAME_PSLIBRARY;
  const env = FUNCTIONALS[functional];
  const jobFiles = JOB_FILES[type];
  if (!dir || !env || !jobFiles) return undefined;
  const vars = { fct: env.fct, gfun: env.gfun, nrel: "1" };
  for (const file of jobFiles) {
    const jobFile = path.join(dir, file);
    if (!existsSync(jobFile)) continue;
    for (const { name, input } of inputsOf(readFileSync(jobFile, "utf8"), vars)) {
      if (!name.startsWith(`${element}.`)) continue;
      const upf = /file_pseudopw\s*=\s*'([^']+)'/.exec(input)?.[1];
      if (upf && /^[\w.+-]+$/.test(upf)) return { name, input, upf };
    }
  }
  return undefined;
}

/** Whether generate() could make a file for these, without running anything. */
export function canGenerate(element: string, type: string, functional: string): boolean {
  return findOnPath("ld1.x") !== undefined && pslibraryInput(element, type, functional) !== undefined;
}

/** Generates one pseudopotential with ld1.x into the cache folder; the file's path, or why not. */
export async function generatePseudopotential(
  element: string,
  type: string,
  functional: string,
  signal: AbortSignal,
): Promise<{ path: string } | { reason: string }> {
  const found = pslibraryInput(element, type, functional);
  if (!found) return { reason: `pslibrary has no ${type} input for ${element} with ${functional}` };
  const cache = generatedPseudopotentialDir();
  const target = path.join(cache, found.upf);
  if (existsSync(target)) return { path: target };
  // Each generation in a folder of its own: two jobs may generate the same element at once.
  const work = path.join(cache, "work", `${found.upf}.${process.pid}.${Date.now()}`);
  mkdirSync(work, { recursive: true });
  const inputFile = path.join(work, found.name);
  writeFileSync(inputFile, found.input);
  const result = await runExecutable({
    executable: "ld1.x",
    cwd: work,
    inputFile,
    outputFile: path.join(work, `${found.name.replace(/\.in$/, "")}.out`),
    signal,
  });
  const made = path.join(work, found.upf);
  if (result.ended !== "exited" || result.code !== 0 || !existsSync(made))
    return { reason: `ld1.x did not generate ${found.upf} (see ${work})` };
  renameSync(made, target);
  return { path: target };
}
