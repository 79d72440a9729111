"use strict";
// A private copy of dist/ for one run. In a shared checkout someone may rebuild dist/ while a
// bench is running, which would mix two versions of the code in one table; every case and the
// server load this copy instead. It sits at the repository root beside dist/ (so the bundled
// data and node_modules resolve the same way) under a name .gitignore already ignores.
const { cpSync, existsSync, rmSync } = require("node:fs");
const { execFileSync } = require("node:child_process");
const path = require("node:path");

const ROOT = path.join(__dirname, "..", "..");

/** Copies dist/ and returns `{ dir, remove() }`; throws when dist/ has not been built. */
function snapshotDist() {
  const source = path.join(ROOT, "dist");
  if (!existsSync(path.join(source, "index.js")))
    throw new Error("dist/ is not built: run `npm run build` (npm run bench does).");
  const dir = path.join(ROOT, `.matframe-tmp-bench-dist-${process.pid}`);
  cpSync(source, dir, { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The commit measured, and whether the working tree differed from it. */
function sourceVersion() {
  try {
    const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
    const dirty =
      execFileSync("git", ["status", "--porcelain", "--", "src"], { cwd: ROOT, encoding: "utf8" }).trim() !== "";
    return { commit, srcChangedSinceCommit: dirty };
  } catch {
    return { commit: null };
  }
}

module.exports = { snapshotDist, sourceVersion };
