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
  typeOnly: boolean;
}

/** Every relative import of every source file, resolved to the file it names. */
function imports(): Import[] {
  const found: Import[] = [];
  const pattern = /(import type|import|export)\b[^;]*?from "(\.[^"]+)"|import\("(\.[^"]+)"\)/g;
  for (const file of files) {
    for (const match of readFileSync(file, "utf8").matchAll(pattern)) {
      let target = normalize(join(dirname(file), match[2] ?? match[3])).replace(/\.js$/, "");
      if (existsSync(target) && statSync(target).isDirectory()) target = join(target, "index");
      found.push({ from: relative(root, file), to: relative(root, `${target}.ts`), typeOnly: match[1] === "import type" });
    }
  }
  return found;
}

/** Files directly in a room's own folder (its entry and shared ground) are nodes of their own. */
const ROOMS = new Set(["src", "src/server", "src/client", "src/frame", "src/notebook"]);
const nodeOf = (file: string) => (ROOMS.has(dirname(file)) ? file : dirname(file));

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

  it("keeps the rooms' rules: the server never imports the client or the frame, the client never the server", () => {
    const broken = imports().filter(
      ({ from, to }) =>
        (from.startsWith("src/server/") && /^src\/(client|frame|notebook|cli)\//.test(to)) ||
        (from.startsWith("src/client/") && /^src\/(server|cli|notebook)\//.test(to)) ||
        (/^src\/(schemas|structure)\//.test(from) && /^src\/(server|client|frame|notebook|cli)\//.test(to)),
    );
    expect(broken).toEqual([]);
  });

  it("runs its run-time imports one way between folders (no cycle)", () => {
    const edges = new Map<string, Set<string>>();
    for (const { from, to, typeOnly } of imports()) {
      const [a, b] = [nodeOf(from), nodeOf(to)];
      if (typeOnly || a === b) continue;
      if (!edges.has(a)) edges.set(a, new Set());
      edges.get(a)!.add(b);
    }
    const reaches = (start: string, goal: string, seen = new Set<string>()): boolean => {
      if (start === goal) return true;
      if (seen.has(start)) return false;
      seen.add(start);
      return [...(edges.get(start) ?? [])].some((next) => reaches(next, goal, seen));
    };
    const cycles = [...edges].flatMap(([a, targets]) => [...targets].filter((b) => reaches(b, a)).map((b) => `${a} -> ${b}`));
    expect(cycles).toEqual([]);
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
