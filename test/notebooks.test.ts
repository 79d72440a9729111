// Every example notebook (notebooks/*.ipynb): the committed copies read clean, and each runs on the
// real tslab kernel through Jupyter's nbconvert, its HTML export checked in Chromium
// (test/support/notebook-runs.ts; Deno's kernel runs them in test/notebooks-deno.test.ts).
import path from "node:path";
import { describe, expect, it } from "vitest";
import { joined, outputProblems, readNotebook, type Notebook } from "./notebook/notebook-scan";
import { at } from "./support/checked";
import { describeNotebookRuns, EXPECTED_OUTPUT, names, notebookDir } from "./support/notebook-runs";

function codeOf(notebook: Notebook): string {
  return notebook.cells
    .filter((c) => c.cell_type === "code")
    .map((c) => joined(c.source))
    .join("\n");
}

describe("the committed notebooks", () => {
  it("are the notebooks whose outputs test/support/notebook-runs.ts describes", () => {
    expect(names).toEqual(Object.keys(EXPECTED_OUTPUT));
  });

  describe.each(names)("%s", (name) => {
    const notebook = readNotebook(path.join(notebookDir, name));

    it("runs on the tslab kernel and opens with a markdown cell saying what it shows", () => {
      expect(notebook.metadata.kernelspec?.name).toBe("tslab");
      const first = at(notebook.cells, 0, "a first cell");
      expect(first.cell_type).toBe("markdown");
      expect(joined(first.source)).toMatch(/^# .+\n+\S/);
    });

    it("imports matframe by its package name, as a user's copy would", () => {
      const code = codeOf(notebook);
      expect(code).toMatch(/from "matframe(\/notebook)?"/);
      expect(code).not.toMatch(/from ["']\.\.?\//);
      expect(code).not.toMatch(/require\(["']\.\.?\//);
    });

    it("has the outputs of one clean run, in order", () => {
      const counts = notebook.cells.filter((c) => c.cell_type === "code").map((c) => c.execution_count);
      expect(counts).toEqual(counts.map((_, i) => i + 1));
      expect(outputProblems(notebook)).toEqual([]);
    });
  });
});

describeNotebookRuns("tslab");
