import * as path from "node:path";

/** A command line to start with `child_process.execFile` or `spawn`: the program and its first arguments. */
export interface Command {
  /** The program: the Node or Deno binary running this notebook. */
  command: string;
  /** Its arguments before the ones you add: the script (and, on Deno, `run --allow-all`). */
  args: string[];
}

/**
 * The `matframe` command line of this very install, run by the runtime running the notebook:
 * `node .../dist/cli/main.js` on tslab (Node), `deno run --allow-all .../dist/cli/main.js` on Deno
 * (whose binary runs scripts only through `run`, with permissions; the notebook itself already
 * has all of them). The notebook needs no `require.resolve` (not defined in Deno's cells) and no
 * `matframe` on PATH.
 *
 * @example
 * const cli = matframeCommand();
 * await promisify(execFile)(cli.command, [...cli.args, "export", "--output", "materials.csv", "--quiet"]);
 */
export function matframeCommand(): Command {
  // dist/notebook/kernel/command.js → dist/cli/main.js: both ship in the package's dist/.
  const script = path.join(__dirname, "..", "..", "cli", "main.js");
  const deno = (globalThis as { Deno?: { execPath?: () => string } }).Deno;
  if (typeof deno?.execPath === "function") return { command: deno.execPath(), args: ["run", "--allow-all", script] };
  return { command: process.execPath, args: [script] };
}
