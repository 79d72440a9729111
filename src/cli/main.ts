#!/usr/bin/env node
// The `matframe` command: dispatches to a subcommand. Each subcommand lives in its own file and
// only parses arguments; the work is done by the library functions they call. A command's file is
// loaded only when it runs: `matframe --help` used to load the whole local platform.
import { printable } from "./printable";
import { readFileSync } from "node:fs";
import nodeModule from "node:module";
import * as path from "node:path";
import { nearestName, wrapHelp } from "./cli-args";

const USAGE = `Usage: matframe <command> [options]

Commands:
  help        show this help, or a command's (matframe help export)
  serve       serve the Materials Platform API (2018-10-01) locally, with real materials
  export      write materials as CSV, NDJSON, Parquet or structure files (from the local platform
              when no base URL or profile is given)
  jobs        create, submit, wait for and terminate jobs, and download their files
  login       log in once and save the account id and token for later commands and notebooks
  logout      revoke a saved login and remove it

Options:
  -h, --help      show this help (matframe <command> --help for a command's options)
  -v, --version   print the version

Exit codes: 0 success, 1 usage error, 2 authentication or API error, 3 network error or timeout
(matframe jobs wait: 4 when a job ended without its results: error, terminated, timeout or
deleted).`;

function version(): string {
  const manifest = path.join(__dirname, "..", "..", "package.json");
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

const COMMANDS = ["serve", "export", "jobs", "login", "logout", "help"];

/** Runs `matframe <command>`; `help COMMAND` is `COMMAND --help`. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve":
      return (await import("./serve-command.js")).runServe(rest);
    case "export":
      return (await import("./export-command.js")).runExport(rest);
    case "jobs":
      return (await import("./jobs/jobs-command.js")).runJobs(rest);
    case "login":
      return (await import("./login-command.js")).runLogin(rest);
    case "logout":
      return (await import("./login-command.js")).runLogout(rest);
    case "help": {
      const [topic, ...more] = rest;
      if (topic === undefined) {
        process.stdout.write(`${wrapHelp(USAGE)}\n`);
        return 0;
      }
      if (more.length > 0 || !COMMANDS.includes(topic) || topic === "help")
        return unknownCommand(rest.join(" "), "help");
      return main([topic, "--help"]);
    }
    case "--version":
    case "-v":
      process.stdout.write(`${version()}\n`);
      return 0;
    case "--help":
    case "-h":
      process.stdout.write(`${wrapHelp(USAGE)}\n`);
      return 0;
    case undefined:
      process.stderr.write(`${wrapHelp(USAGE)}\n`);
      return 1;
    default:
      return unknownCommand(command);
  }
}

/** One line naming the unknown command and the nearest real one, then where the commands are listed. */
function unknownCommand(typed: string, after?: string): number {
  const near = nearestName(
    typed.replace(/^-+/, ""),
    COMMANDS.filter((name) => name !== "help"),
  );
  const what = after
    ? `"matframe help" takes one of ${COMMANDS.filter((name) => name !== "help").join(", ")}, not "${typed}"`
    : `unknown command "${typed}"`;
  process.stderr.write(
    `matframe: ${what}${near ? `; did you mean "${near}"?` : "."} Run "matframe help" for the commands.\n`,
  );
  return 1;
}

// Node 22.1+ keeps the compiled code of the modules a command loads (the local platform, danfo,
// parquet) in the system's temporary folder, so the next command compiles none of it again:
// measured on Node 22, serve's start-up CPU 0.52 -> 0.47 s, danfo's load 1.3 -> 1.17 s. The CLI
// only: the library leaves its host process's module loading alone. Older Node lacks the call.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // Unexpected: say what happened without a stack trace.
    process.stderr.write(`matframe: ${printable((error as Error)?.message ?? String(error))}\n`);
    process.exitCode = 1;
  },
);
