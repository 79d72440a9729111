import { describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import path from "node:path";
import { joined, readNotebook } from "./notebook-scan";

// What a reader copies from a notebook, or prints as a handout: code lines that fit an HTML
// export's code column (nbconvert's template cuts lines past about 105 characters), and shell
// commands that run when pasted into a terminal.

const dir = path.join(__dirname, "..", "..", "notebooks");
const notebooks = readdirSync(dir).filter((name) => name.endsWith(".ipynb"));

describe.each(notebooks)("%s", (name) => {
  const notebook = readNotebook(path.join(dir, name));

  it("has no code line longer than 100 characters", () => {
    const long = notebook.cells
      .filter((cell) => cell.cell_type === "code")
      .flatMap((cell) => joined(cell.source).split("\n"))
      .filter((line) => line.length > 100);
    expect(long).toEqual([]);
  });

  it("has shell examples that paste as they are (one backslash before a line break, not two)", () => {
    const blocks = notebook.cells
      .filter((cell) => cell.cell_type === "markdown")
      .flatMap((cell) => [...joined(cell.source).matchAll(/```(?:sh|bash|console)\n([\s\S]*?)```/g)].map((m) => m[1]));
    for (const block of blocks) expect(block).not.toMatch(/\\\\\n/);
  });
});
