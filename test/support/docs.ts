import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

// The README and the guides in docs/, read the way the tests of their code blocks and links need.

export const root = join(__dirname, "../..");

/** README.md and every guide in docs/ (not the generated API reference), repository-relative. */
export function docFiles(): string[] {
  return [
    "README.md",
    ...readdirSync(join(root, "docs"))
      .filter((name) => name.endsWith(".md"))
      .map((name) => `docs/${name}`),
  ];
}

/** A document's text without its fenced code blocks (links and headings there are code, not links). */
export function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, "");
}

/** GitHub's anchors for a document's headings: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of prose(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = match[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The text of a `##`/`###` section (heading to the next heading of the same or a higher level). */
export function sectionOf(file: string, heading: string): string {
  const text = readFileSync(join(root, file), "utf8");
  const level = /^#+/.exec(heading)![0].length;
  const start = text.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`${file} has no section "${heading}"`);
  const rest = text.slice(start + 1);
  const next = [...rest.matchAll(/^(#{1,6}) /gm)].find((m) => m.index! > 0 && m[1]!.length <= level);
  return next ? rest.slice(0, next.index) : rest;
}
