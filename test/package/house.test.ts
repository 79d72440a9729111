import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

// The map of the house (docs/development.md) as a contract: rooms small enough to read from the
// tree, imports that run one way, and a map that names every folder there is.

const root = join(__dirname, "../..");
const src = join(root, "src");

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

const files = walk(src).filter((file) => file.endsWith(".ts"));
const folders = [...new Set(files.map((file) => relative(root, dirname(file))))].sort();

interface Import {
  from: string;
  to: string;
}

/**
 * Every relative import of every source file, resolved to the file it names: static imports and
 * re-exports, `import type`, side-effect imports and dynamic `import()` alike, since each is a
 * dependency a reader (and the compiler) must follow.
 */
function imports(): Import[] {
  const found: Import[] = [];
  const pattern =
    /\b(?:import|export)\b[^;]*?\bfrom\s+"(\.[^"]+)"|\bimport\s+"(\.[^"]+)"|\bimport\(\s*"(\.[^"]+)"\s*\)|\bdeclare\s+module\s+"(\.[^"]+)"/g;
  for (const file of files) {
    for (const match of readFileSync(file, "utf8").matchAll(pattern)) {
      let target = normalize(join(dirname(file), match[1] ?? match[2] ?? match[3] ?? match[4])).replace(/\.js$/, "");
      if (existsSync(target) && statSync(target).isDirectory()) target = join(target, "index");
      found.push({ from: relative(root, file), to: relative(root, `${target}.ts`) });
    }
  }
  return found;
}

/** The import cycles among the files of src/: each strongly connected group of two or more files. */
function cycles(): string[][] {
  const edges = new Map<string, string[]>();
  for (const { from, to } of imports()) edges.set(from, [...(edges.get(from) ?? []), to]);
  // Tarjan's algorithm: one pass, every group found once.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || (edges.get(file) ?? []).includes(file)) groups.push(group.sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return groups;
}

/** Files that may run past the line cap: each holds one concern that reads best whole. */
const LONG_FILES = new Set([
  "src/errors.ts", // the whole error tree in one place (STYLE.md)
  "src/frame/export/parquet-chunk.ts", // the Parquet column encoder
]);
const MAX_LINES = 450;

describe("the house", () => {
  it("has no folder of src/ holding more than 15 files directly", () => {
    const crowded = folders
      .map((folder) => [folder, readdirSync(join(root, folder)).filter((name) => name.endsWith(".ts")).length] as const)
      .filter(([, count]) => count > 15);
    expect(crowded).toEqual([]);
  });

  it("resolves every relative import to a file that exists", () => {
    expect(imports().filter((entry) => !existsSync(join(root, entry.to)))).toEqual([]);
  });

  it("keeps the rooms' rules, type-only and dynamic imports counted: data flows server -> client -> frame -> cli/notebook", () => {
    const broken = imports().filter(
      ({ from, to }) =>
        (from.startsWith("src/server/") && /^src\/(client|frame|notebook|cli)\//.test(to)) ||
        (from.startsWith("src/client/") && /^src\/(server|frame|cli|notebook)\//.test(to)) ||
        (from.startsWith("src/frame/") && /^src\/(server|cli|notebook)\//.test(to)) ||
        (/^src\/(schemas|structure)\//.test(from) && /^src\/(server|client|frame|notebook|cli)\//.test(to)),
    );
    expect(broken).toEqual([]);
  });

  it("has no import cycle among the files of src/, type-only and dynamic imports counted", () => {
    expect(cycles()).toEqual([]);
  });

  it(`keeps every file of src/ under ${MAX_LINES} lines, but the few that hold one concern whole`, () => {
    const long = files
      .map((file) => [relative(root, file), readFileSync(file, "utf8").split("\n").length - 1] as const)
      .filter(([file, lines]) => lines > MAX_LINES && !LONG_FILES.has(file));
    expect(long).toEqual([]);
  });

  it("has a map in docs/development.md that names every folder of src/ and no folder that is gone", () => {
    const guide = readFileSync(join(root, "docs/development.md"), "utf8");
    const start = guide.search(/^## The map of the house$/m);
    expect(start, 'docs/development.md needs a section "## The map of the house"').toBeGreaterThan(-1);
    const end = guide.indexOf("\n## ", start + 1);
    const section = guide.slice(start, end === -1 ? undefined : end);
    const named = new Set([...section.matchAll(/`(src(?:\/[a-z-]+)*)\/`/g)].map((match) => match[1]));
    expect(folders.filter((folder) => !named.has(folder))).toEqual([]);
    expect([...named].filter((folder) => !folders.includes(folder))).toEqual([]);
  });
});
