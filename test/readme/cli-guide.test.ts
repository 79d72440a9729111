import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI } from "../cli-export/run-cli";
import { root, sectionOf } from "../support/docs";

// docs/cli.md shows each command's help as the command prints it: compared here with the real
// output (not on a terminal, so at the default width), so the guide cannot drift from the CLI.

function help(args: string[]): string {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: { PATH: process.env.PATH, HOME: process.env.HOME } });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.trimEnd();
}

/** The first ```text block of a piece of markdown. */
function firstTextBlock(markdown: string): string {
  const match = /```text\n([\s\S]*?)\n```/.exec(markdown);
  if (!match) throw new Error("no ```text block");
  return match[1];
}

describe("docs/cli.md", () => {
  it("shows `matframe --help` as it is", () => {
    expect(firstTextBlock(readFileSync(join(root, "docs/cli.md"), "utf8"))).toBe(help(["--help"]));
  });

  it.each(["serve", "export", "login", "logout"])("shows `matframe %s --help` as it is", (command) => {
    expect(firstTextBlock(sectionOf("docs/cli.md", `## matframe ${command}`))).toBe(help([command, "--help"]));
  });
});
