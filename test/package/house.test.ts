import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { capturedAll } from "../support/checked";

// The map of the house (docs/development.md) as a contract: rooms small enough to read from the
// tree and a map that names every folder there is. The imports' one-way rules and the absence of
// cycles are dependency-cruiser's rules (.dependency-cruiser.cjs), run by `npm run lint`.

const root = join(__dirname, "../..");
const src = join(root, "src");

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

const files = walk(src).filter((file) => file.endsWith(".ts"));
const folders = [...new Set(files.map((file) => relative(root, dirname(file))))].sort();

describe("the house", () => {
  it("has no folder of src/ holding more than 15 files directly", () => {
    const crowded = folders
      .map((folder) => [folder, readdirSync(join(root, folder)).filter((name) => name.endsWith(".ts")).length] as const)
      .filter(([, count]) => count > 15);
    expect(crowded).toEqual([]);
  });

  it("has a map in docs/development.md that names every folder of src/ and no folder that is gone", () => {
    const guide = readFileSync(join(root, "docs/development.md"), "utf8");
    const start = guide.search(/^## The map of the house$/m);
    expect(start, 'docs/development.md needs a section "## The map of the house"').toBeGreaterThan(-1);
    const end = guide.indexOf("\n## ", start + 1);
    const section = guide.slice(start, end === -1 ? undefined : end);
    const named = new Set(capturedAll(/`(src(?:\/[a-z-]+)*)\/`/g, section));
    expect(folders.filter((folder) => !named.has(folder))).toEqual([]);
    expect([...named].filter((folder) => !folders.includes(folder))).toEqual([]);
  });
});
