// Which input templates the engine renders. nunjucks is not a sandbox: a template can reach
// JavaScript's Function constructor through any value (`{{ range.constructor("...")() }}`) and run
// code as the server. A workflow record is the account's to edit, so the engine renders only the
// templates the bank's workflows ship (data/bank-workflows.json, from Exabyte-io/standata), and
// takes what a user may change as data: the unit's `context` (k-grid, cutoffs, input values).
// See https://github.com/mozilla/nunjucks/issues/1048 and nunjucks's "user-defined templates" warning.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import * as path from "node:path";

const BANK_WORKFLOWS = path.join(__dirname, "..", "..", "..", "data", "bank-workflows.json");

let trusted: Set<string> | undefined;

function digest(content: string): string {
  return createHash("sha256").update(content).digest("hex");
}

function collect(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collect(item, into);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  const record = value as Record<string, unknown>;
  const template = record.template as { content?: unknown } | undefined;
  if (template && typeof template.content === "string") into.add(digest(template.content));
  for (const child of Object.values(record)) collect(child, into);
}

/** Whether `content` is one of the bank's own templates, byte for byte. */
export function isTrustedTemplate(content: string): boolean {
  if (!trusted) {
    trusted = new Set();
    collect(JSON.parse(readFileSync(BANK_WORKFLOWS, "utf8")), trusted);
  }
  return trusted.has(digest(content));
}

/**
 * Whether a rendered input keeps its files in the job's folder: pw.x's outdir, wfcdir,
 * pseudo_dir, prefix; projwfc.x's filpdos and filproj (file names its output files start with,
 * relative to the folder it runs in).
 */
export function foldersOutside(rendered: string, workDir: string): string[] {
  const outside: string[] = [];
  for (const match of rendered.matchAll(
    /^\s*(outdir|wfcdir|pseudo_dir|prefix|filpdos|filproj)\s*=\s*(['"])(.*?)\2/gim,
  )) {
    // All three groups take part in every match.
    const [, key = "", , value = ""] = match;
    if (key.toLowerCase() === "prefix") {
      if (!/^[\w.-]+$/.test(value)) outside.push(`prefix = '${value}'`);
      continue;
    }
    const resolved = path.resolve(workDir, value);
    if (resolved !== workDir && !resolved.startsWith(workDir + path.sep)) outside.push(`${key} = '${value}'`);
  }
  return outside;
}
