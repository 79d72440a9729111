import { describe, expect, it } from "vitest";
import { tmpdir } from "node:os";
import path from "node:path";
import { NETWORK_TAG, outputProblems, staleCells, type Notebook, type NotebookOutput } from "./notebook-scan";

function notebookWith(...outputs: NotebookOutput[]): Notebook {
  return { cells: [{ cell_type: "code", source: "", outputs }], metadata: {} };
}
const stdout = (text: string): NotebookOutput => ({ output_type: "stream", name: "stdout", text });
const html = (text: string): NotebookOutput => ({ output_type: "display_data", data: { "text/html": text } });

describe("outputProblems, the notebook test's scan", () => {
  it("passes ordinary output: ids, formulas, counts, lattice lengths", () => {
    const nb = notebookWith(
      stdout("2rSzeBnPq6SRikyPh ZnO 3.289103 Å\n50,029 materials\n"),
      html("<table><td>Al2O3</td></table>"),
    );
    expect(outputProblems(nb)).toEqual([]);
  });

  it("flags a token, a password and the demo credentials", () => {
    const token = "q1Zx-9_ab".repeat(8); // 72 base64url characters, like the local platform's tokens
    expect(outputProblems(notebookWith(stdout(`token ${token}`)))).toEqual([
      expect.stringMatching(/a token-like string/),
    ]);
    expect(outputProblems(notebookWith(stdout(`{ authToken: 'abc' }`)))).toEqual([
      expect.stringMatching(/an auth token value/),
    ]);
    expect(outputProblems(notebookWith(stdout(`password: hunter2`)))).toEqual([
      expect.stringMatching(/a password value/),
    ]);
    expect(outputProblems(notebookWith(html(`log in with demo:demo`)))).toEqual([
      expect.stringMatching(/the demo credentials/),
    ]);
  });

  it("flags machine paths and stated timings", () => {
    const file = path.join(tmpdir(), "matframe-export-x", "materials.csv");
    expect(outputProblems(notebookWith(stdout(`wrote ${file}`))).join("\n")).toMatch(/machine path|absolute path/);
    expect(outputProblems(notebookWith(stdout("exported in 412 ms")))).toEqual([
      expect.stringMatching(/timing "412 ms"/),
    ]);
  });

  it("flags error outputs and anything on stderr, naming the cell", () => {
    const problems = outputProblems(
      notebookWith(
        { output_type: "error", ename: "TypeError", evalue: "x is undefined" },
        { output_type: "stream", name: "stderr", text: "1:5 - Cannot find name 'x'." },
      ),
    );
    expect(problems).toEqual([
      "cell 1 (error): error output TypeError: x is undefined",
      "cell 1 (stream/stderr): stderr output 1:5 - Cannot find name 'x'.",
    ]);
  });

  it("does not read SVG path data as tokens", () => {
    const svg = `<svg><path d="M${"3873A3873".repeat(10)}"/></svg>`;
    expect(outputProblems(notebookWith({ output_type: "display_data", data: { "image/svg+xml": svg } }))).toEqual([]);
  });

  it("does not read a PNG's base64 or a text table's rule as tokens, but checks the text beside them", () => {
    const png = "iVBORw0KGgoAAAANSUhEUgAA".repeat(5);
    const table = `name\n${"-".repeat(45)}\nSilicon, a long name`;
    const picture = { output_type: "display_data", data: { "image/png": png, "text/plain": table } };
    expect(outputProblems(notebookWith(picture))).toEqual([]);
    const leaky = {
      output_type: "display_data",
      data: { "image/png": png, "text/plain": `token ${"q1Zx-9_ab".repeat(8)}` },
    };
    expect(outputProblems(notebookWith(leaky))).toEqual([expect.stringMatching(/text\/plain.*a token-like string/)]);
  });
});

describe("staleCells, the committed-outputs check", () => {
  const code = (text: string, tags?: string[]): Notebook["cells"][number] => ({
    cell_type: "code",
    source: "",
    outputs: [stdout(text)],
    ...(tags ? { metadata: { tags } } : {}),
  });
  const notebook = (...cells: Notebook["cells"]): Notebook => ({ cells, metadata: {} });
  const committed = notebook(
    code("12 structures"),
    code("No network here: skipped the Materials Project", [NETWORK_TAG]),
    code("[scatter chart: 12 points]", [NETWORK_TAG]),
  );

  it("numbers every cell whose outputs changed, when the run was offline as the committed one", () => {
    const run = notebook(
      code("13 structures"),
      code("No network here: skipped the Materials Project", [NETWORK_TAG]),
      code("[scatter chart: 13 points]", [NETWORK_TAG]),
    );
    expect(staleCells(run, committed)).toEqual([1, 3]);
    expect(staleCells(committed, committed)).toEqual([]);
  });

  it("leaves out the network's cells when the run read the live server, and only those", () => {
    const online = notebook(
      code("13 structures"),
      code("The Materials Project: 12 structures read", [NETWORK_TAG]),
      code("[scatter chart: 24 points]", [NETWORK_TAG]),
    );
    expect(staleCells(online, committed)).toEqual([1]);
  });
});
