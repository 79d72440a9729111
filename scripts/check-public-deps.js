#!/usr/bin/env node
"use strict";
// Dependencies through their public API only (docs/development.md): fails when a file of src/
// imports a package's file that is not one of its documented entries, or patches the prototype
// of a class it imports from a package. `npm run lint` runs it; `node scripts/check-public-deps.js
// [dir]` checks another tree (test/lint/public-deps.test.ts gives it one with each mistake).
//
// dependency-cruiser matches resolved paths, and a package's main entry resolves into its src/ or
// dist/ too, so it cannot tell `hyparquet-writer` from `hyparquet-writer/src/column.js`: this
// check reads the specifiers as written.
const { readdirSync, readFileSync, statSync } = require("node:fs");
const { join, relative } = require("node:path");

// Subpaths a package publishes as entries of its own and documents: each needs a reason here,
// and must also match the package's `exports`. A wildcard export of a source folder (as
// hyparquet-writer's "./src/*.js") is not enough: its modules change in any release.
const ENTRIES = {
  // mingo documents its subpath entries for tree-shaking (README, "Importing").
  mingo: ["core", "query", "updater", "operators/query"],
  // ESSE publishes its schemas and validator as dist/js entries (its exports map names each folder).
  "@mat3ra/esse": ["dist/js/utils/ajv", "dist/js/schemas.json"],
};

// Known uses outside the public API, each with its count and the reason it is not fixed yet: the
// check fails on a new one, and on a count that changes (fixing one means lowering it here).
// None today; an entry reads `"src/path/file.ts": 2, // why, and what would fix it`.
const KNOWN = {};

const root = process.argv[2] ?? join(__dirname, "..", "src");
const repo = join(__dirname, "..");

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js|cjs|mjs)$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** `pkg` and the subpath after it, for a bare specifier (undefined for node: and relative ones). */
function splitSpecifier(specifier) {
  if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("node:")) return undefined;
  const parts = specifier.split("/");
  const take = specifier.startsWith("@") ? 2 : 1;
  return { pkg: parts.slice(0, take).join("/"), subpath: parts.slice(take).join("/") };
}

function exported(pkg, subpath) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(repo, "node_modules", pkg, "package.json"), "utf8"));
  } catch {
    return false;
  }
  const keys = manifest.exports && typeof manifest.exports === "object" ? Object.keys(manifest.exports) : [];
  const wanted = `./${subpath}`;
  return keys.some((key) => {
    if (key === wanted) return true;
    const star = key.indexOf("*");
    return star >= 0 && wanted.startsWith(key.slice(0, star)) && wanted.endsWith(key.slice(star + 1));
  });
}

const SPECIFIER = /(?:\bfrom\s+|\brequire\(\s*|\bimport\(\s*|^\s*import\s+)["']([^"']+)["']/gm;
// Names a file binds to a package's exports: import X / * as X / { A, B as C } from "pkg", and
// const X = require("pkg") / const { A, B: C } = require("pkg").
const IMPORT_BINDING = /^\s*import\s+(?!type\b)([^;]*?)\s+from\s+["']([^"'.][^"']*)["']/gm;
const REQUIRE_BINDING = /\b(?:const|let|var)\s+([\w$]+|\{[^}]*\})\s*=\s*require\(\s*["']([^"'.][^"']*)["']\s*\)/g;

function boundNames(text) {
  const names = new Set();
  const add = (clause) => {
    for (const part of clause.replace(/[{}*]/g, " ").split(",")) {
      const words = part.trim().split(/\s+(?:as\s+)?|:\s*/);
      const name = words.at(-1);
      if (name && /^[\w$]+$/.test(name) && name !== "as" && name !== "type") names.add(name);
    }
  };
  for (const [, clause, specifier] of text.matchAll(IMPORT_BINDING)) if (!specifier.startsWith("node:")) add(clause);
  for (const [, clause, specifier] of text.matchAll(REQUIRE_BINDING)) if (!specifier.startsWith("node:")) add(clause);
  return names;
}

function lineOf(text, index) {
  return text.slice(0, index).split("\n").length;
}

const problems = [];
for (const file of sourceFiles(root)) {
  const text = readFileSync(file, "utf8");
  const where = (index) => `${relative(repo, file)}:${lineOf(text, index)}`;
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = match[1];
    if (specifier.includes("node_modules/")) {
      problems.push(
        `${where(match.index)}: imports "${specifier}" by its node_modules path; import the package by name.`,
      );
      continue;
    }
    const split = splitSpecifier(specifier);
    if (!split || split.subpath === "") continue;
    const listed = ENTRIES[split.pkg]?.includes(split.subpath);
    if (!listed || !exported(split.pkg, split.subpath)) {
      problems.push(
        `${where(match.index)}: imports "${specifier}", a file of ${split.pkg} that is not one of its documented entries. ` +
          `Use what "${split.pkg}" itself exports, or wrap what is missing in one adapter file with a contract test ` +
          `(a documented subpath entry goes in ENTRIES of scripts/check-public-deps.js, with its reason).`,
      );
    }
  }
  for (const match of text.matchAll(/\b(?:Object|Reflect)\.setPrototypeOf\s*\(|\.__proto__\s*=(?!=)/g)) {
    problems.push(
      `${where(match.index)}: changes an object's prototype; build the object through the library's public constructor instead.`,
    );
  }
  const names = boundNames(text);
  if (names.size > 0) {
    const alternatives = [...names].map((name) => name.replace(/\$/g, "\\$")).join("|");
    const prototype = new RegExp(`(?<![\\w$.])(?:${alternatives})(?:\\.[\\w$]+)*\\.prototype\\b`, "g");
    for (const match of text.matchAll(prototype)) {
      problems.push(
        `${where(match.index)}: reaches into ${match[0]}, the prototype of a class a package exports; ` +
          "subclass it or wrap its instances in one adapter file instead.",
      );
    }
  }
}

const counts = new Map();
for (const problem of problems) {
  const file = problem.slice(0, problem.indexOf(":"));
  counts.set(file, (counts.get(file) ?? 0) + 1);
}
const unexpected = problems.filter((problem) => {
  const file = problem.slice(0, problem.indexOf(":"));
  return KNOWN[file] !== counts.get(file);
});
for (const [file, count] of Object.entries(KNOWN)) {
  if (!counts.has(file)) unexpected.push(`${file}: listed in KNOWN with ${count}, now has none: remove it from KNOWN.`);
}
if (unexpected.length > 0) {
  console.error(`Dependencies used outside their public API (${unexpected.length}):\n${unexpected.join("\n")}`);
  process.exitCode = 1;
}
