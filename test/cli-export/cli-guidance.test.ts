import { describe, expect, it } from "vitest";
import { runCli } from "../reliability/support/cli";
import { wrapHelp } from "../../src/cli/cli-args";
import { at, captured, defined } from "../support/checked";

// The CLI guides a user who mistypes: the flag they typed, the one they meant, how to pass a
// value that starts with a dash, in one format for every command; help text wrapped at words.

describe("mistyped flags, in the CLI's own words", () => {
  it.each([
    [
      ["export", "--ouput", "x.csv"],
      /^matframe export: unknown option --ouput; did you mean --output\? Run "matframe export --help" for the options\.\n$/,
    ],
    [
      ["serve", "--prot", "4000"],
      /^matframe serve: unknown option --prot; did you mean --port\? Run "matframe serve --help" for the options\.\n$/,
    ],
    [
      ["export", "--max-items", "-3"],
      /^matframe export: --max-items needs a value, and "-3" looks like an option; if it is the value, write --max-items=-3\. Run/,
    ],
    [["export", "--max-items=-3"], /^matframe export: --max-items must be a whole number, not negative; got "-3"\.\n$/],
    [["export", "--force=yes"], /^matframe export: --force takes no value \(it is on when given\)\./],
    [["serve", "--port"], /^matframe serve: --port needs a value\. Run "matframe serve --help"/],
    [
      ["export", "materials.csv"],
      /^matframe export: unexpected argument "materials\.csv": every option starts with --/,
    ],
    [
      ["serve", "--quota-records", "lots"],
      /^matframe serve: --quota-records takes a whole number from 0 to 100000000, not "lots"\.\n$/,
    ],
  ])("matframe %j", async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/TypeError|ERR_PARSE_ARGS|\n\s+at /);
  });
});

describe("matframe help and unknown commands", () => {
  it("matframe help lists the commands; matframe help COMMAND is COMMAND --help", async () => {
    const top = await runCli(["help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/^Usage: matframe <command>/);
    expect(top.stdout).toMatch(/^ {2}help {8}show this help, or a command's/m);
    for (const command of ["export", "serve", "login", "logout"]) {
      const viaHelp = await runCli(["help", command]);
      const viaFlag = await runCli([command, "--help"]);
      expect(viaHelp.code).toBe(0);
      expect(viaHelp.stdout).toBe(viaFlag.stdout);
      expect(viaHelp.stdout).toMatch(new RegExp(`^Usage: matframe ${command}`));
    }
  });

  it.each([
    [
      ["exprot"],
      /^matframe: unknown command "exprot"; did you mean "export"\? Run "matframe help" for the commands\.\n$/,
    ],
    [["serv"], /did you mean "serve"\?/],
    [
      ["help", "srve"],
      /^matframe: "matframe help" takes one of serve, export, jobs, login, logout, not "srve"; did you mean "serve"\?/,
    ],
    [["frobnicate"], /^matframe: unknown command "frobnicate"\. Run "matframe help" for the commands\.\n$/],
  ])("matframe %j: one line, the nearest command, exit 1", async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
  });
});

describe("help text", () => {
  it.each([["export"], ["serve"], ["login"]])(
    "matframe %s --help: lines of at most 80 columns, broken between words, each option's description in its column",
    async (command) => {
      const run = await runCli([command, "--help"]);
      expect(run.code).toBe(0);
      const lines = run.stdout.trimEnd().split("\n");
      for (const line of lines) {
        // A single unbreakable token (a long default value) may run over; nothing else does.
        if (line.length > 80) expect(line.trim()).not.toMatch(/ /);
      }
      // Continuation lines of option descriptions start in the description column, never at 0.
      const described = lines.find((l) => l.startsWith("  --") && /\s{2,}\S/.test(l.slice(4)));
      const column = captured(
        /^(\s+--\S+(?: \S+)?\s{2,})\S/,
        defined(described, "an option line with a description"),
        "an option's description column",
      ).length;
      const options = lines.slice(lines.indexOf("Options:") + 1);
      for (const line of options.slice(0, options.indexOf(""))) {
        expect(line.startsWith("  -") || line.startsWith(" ".repeat(column))).toBe(true);
      }
    },
  );

  it("matframe --help: a command's description that wraps continues in its column", async () => {
    const run = await runCli(["--help"]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    const commands = lines.slice(lines.indexOf("Commands:") + 1, lines.indexOf("Options:") - 1);
    const column = captured(/^(\s+help\s+)\S/, at(commands, 0, "a command line"), "the help command's line").length;
    for (const line of commands) {
      expect(line.length, line).toBeLessThanOrEqual(80);
      // Either a command ("  serve   ...") or a continuation in the description column.
      expect(/^ {2}[a-z]+\s+\S/.test(line) || line.startsWith(" ".repeat(column)), line).toBe(true);
    }
    expect(commands.join(" ").replace(/\s+/g, " ")).toContain(
      "(from the local platform when no base URL or profile is given)",
    );
  });

  it("wrapHelp joins a hand-wrapped paragraph and wraps it again at words", () => {
    const text =
      "Usage: x\n\nOne two three four five six seven\neight nine ten.\n\nOptions:\n  --alpha N   the first option, with a description that is long\n              and continues here";
    expect(wrapHelp(text, 30)).toBe(
      [
        "Usage: x",
        "",
        "One two three four five six",
        "seven eight nine ten.",
        "",
        "Options:",
        "  --alpha N   the first",
        "              option, with a",
        "              description that",
        "              is long and",
        "              continues here",
      ].join("\n"),
    );
  });
});
