// Debian's Python, which the outside readers (pandas, pymatgen, spglib, ASE) are installed for.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/** Debian's python3: the apt packages' modules are importable there, not in a pyenv's. */
export const PYTHON = "/usr/bin/python3";

/** Whether Debian's python3 can run `import <modules>` (e.g. `"pandas"`, `"pymatgen.core, spglib"`). */
export function pythonImports(modules: string): boolean {
  if (!existsSync(PYTHON)) return false;
  try {
    execFileSync(PYTHON, ["-c", `import ${modules}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
