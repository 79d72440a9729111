import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli-export/run-cli";
import { captured } from "../support/checked";
import { root, sectionOf } from "../support/docs";

// docs/cli.md shows each command's help as the command prints it: compared here with the real
// output (not on a terminal, so at the default width), so the guide cannot drift from the CLI.

async function help(args: string[]): Promise<string> {
  const result = await runCli(args);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trimEnd();
}

/** The first ```text block of a piece of markdown. */
function firstTextBlock(markdown: string): string {
  return captured(/```text\n([\s\S]*?)\n```/, markdown, "a ```text block");
}

describe("docs/cli.md", () => {
  it("shows `matframe --help` as it is", async () => {
    expect(firstTextBlock(readFileSync(join(root, "docs/cli.md"), "utf8"))).toBe(await help(["--help"]));
  });

  it.each(["serve", "export", "jobs", "login", "logout"])("shows `matframe %s --help` as it is", async (command) => {
    expect(firstTextBlock(sectionOf("docs/cli.md", `## matframe ${command}`))).toBe(await help([command, "--help"]));
  });
});
