// Reads .ipynb files and lists what must not be in a notebook a user reads: errors, stderr,
// credentials, machine paths and timings. Shared by test/notebooks.test.ts for the committed
// notebooks and for freshly executed copies.
import { readFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";

export interface NotebookOutput {
  output_type: string;
  name?: string;
  text?: string | string[];
  data?: Record<string, string | string[] | object>;
  ename?: string;
  evalue?: string;
}

export interface NotebookCell {
  cell_type: "code" | "markdown" | "raw";
  source: string | string[];
  metadata?: { tags?: string[] };
  execution_count?: number | null;
  outputs?: NotebookOutput[];
}

export interface Notebook {
  cells: NotebookCell[];
  metadata: { kernelspec?: { name?: string } };
}

export function readNotebook(file: string): Notebook {
  return JSON.parse(readFileSync(file, "utf8")) as Notebook;
}

export function joined(text: string | string[] | undefined): string {
  return Array.isArray(text) ? text.join("") : (text ?? "");
}

/** The text a reader sees in an output, per MIME type (streams as "stream/<name>"). */
export function outputTexts(output: NotebookOutput): { kind: string; text: string }[] {
  if (output.output_type === "stream") return [{ kind: `stream/${output.name}`, text: joined(output.text) }];
  if (output.output_type === "error") return [{ kind: "error", text: `${output.ename}: ${output.evalue}` }];
  // JSON types (a chart's Vega-Lite spec) are objects in an .ipynb: checked as their JSON text.
  return Object.entries(output.data ?? {}).map(([kind, value]) => ({
    kind,
    text:
      typeof value === "string" || Array.isArray(value) ? joined(value as string | string[]) : JSON.stringify(value),
  }));
}

const SECRET_PATTERNS: [RegExp, string][] = [
  [/password["']?\s*[:=]\s*["']?[^\s"',}]/i, "a password value"],
  [/\b(?:x-auth-token|authToken)["']?\s*[:=]\s*["']?[A-Za-z0-9_-]/i, "an auth token value"],
  [/\bdemo[:/]demo\b/, "the demo credentials"],
  // The local platform's tokens are 64 base64url characters; ids are 17, words and formulas shorter.
  // A text table's rule under a long column is a run of dashes only, which no token is.
  [/(?!-{40})[A-Za-z0-9_-]{40,}/, "a token-like string"],
];

/** Absolute paths of this machine: the checkout, home and temp folders, and common roots. */
function pathPatterns(): [RegExp, string][] {
  const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const exact = [path.resolve(__dirname, "..", ".."), homedir(), tmpdir()].filter((p) => p.length > 1);
  return [
    ...exact.map((p): [RegExp, string] => [new RegExp(escapeRegex(p)), `a machine path (${p})`]),
    [/(?:^|[\s"'(=])\/(?:home|Users|root|tmp|work|var\/folders)\//m, "an absolute path"],
    [/[A-Z]:\\(?:Users|Windows)\\/, "a Windows path"],
  ];
}

// Durations vary per run and machine, so an output stating one would be a timing presented as fact.
const TIMING = /\b\d+(?:\.\d+)?\s?(?:ms|milliseconds|seconds|secs?)\b/i;

/** Problems in a notebook's outputs, each naming its cell (1-based). Empty when clean. */
export function outputProblems(notebook: Notebook): string[] {
  const problems: string[] = [];
  const paths = pathPatterns();
  notebook.cells.forEach((cell, i) => {
    for (const output of cell.outputs ?? []) {
      for (const { kind, text } of outputTexts(output)) {
        const where = `cell ${i + 1} (${kind})`;
        if (kind === "error") problems.push(`${where}: error output ${text}`);
        if (kind === "stream/stderr") problems.push(`${where}: stderr output ${text.slice(0, 300)}`);
        // SVG path data and base64 images are long runs of digits and letters; pictures hold no
        // secrets or paths (their text/plain fallback is still checked).
        if (kind === "image/svg+xml" || kind === "image/png") continue;
        for (const [re, what] of [...SECRET_PATTERNS, ...paths]) {
          const hit = re.exec(text);
          if (hit)
            problems.push(`${where}: shows ${what}: ...${text.slice(Math.max(0, hit.index - 40), hit.index + 40)}...`);
        }
        const timing = TIMING.exec(text);
        if (timing) problems.push(`${where}: states a timing "${timing[0]}"`);
      }
    }
  });
  return problems;
}

/**
 * The tag of a cell whose outputs depend on whether the machine reaches a public server (notebook
 * 10 reads the Materials Project when it can). The committed outputs are an offline run's.
 */
export const NETWORK_TAG = "depends-on-network";

/**
 * The cells (numbered from 1) whose outputs in a run differ from the committed ones. Cells tagged
 * `NETWORK_TAG` are compared only when the first of them gave the committed outputs (both runs
 * offline, say): when it read a live server instead, the tagged cells show that server's data.
 */
export function staleCells(executed: Notebook, committed: Notebook): number[] {
  const same = (i: number) =>
    JSON.stringify(executed.cells[i]?.outputs ?? []) === JSON.stringify(committed.cells[i]?.outputs ?? []);
  const tagged = committed.cells.flatMap((cell, i) => (cell.metadata?.tags?.includes(NETWORK_TAG) ? [i] : []));
  const [firstTagged] = tagged;
  const sameNetwork = firstTagged === undefined || same(firstTagged);
  return executed.cells.flatMap((_, i) => ((sameNetwork || !tagged.includes(i)) && !same(i) ? [i + 1] : []));
}
