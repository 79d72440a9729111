// Builds dist/ only when it is older than its sources, so that `npm run bench`, `npm run load` and
// friends start at once after `npm ci` or `npm test` (which build) and CI's smoke runs do not
// rebuild eight times, while an edit to src/ is still never measured stale. It is also the build
// of npm's `prepare` script: `npm ci` in a fresh clone builds, and `npx matframe` in a clone, which
// makes npm run the package's `prepare` again, no longer deletes and rebuilds a current dist/ (a
// minute's wait, and a dist/ missing for a while under whatever was using it).
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

const root = path.join(__dirname, "..");
const stamp = path.join(root, "dist", "index.js");
const inputs = [path.join(root, "src"), path.join(root, "tsconfig.json"), path.join(root, "tsconfig.build.json")];

/** The newest modification time under a file or folder. */
function newest(file) {
  const stat = fs.statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of fs.readdirSync(file)) latest = Math.max(latest, newest(path.join(file, entry)));
  return latest;
}

function isStale() {
  if (!fs.existsSync(stamp)) return true;
  const built = fs.statSync(stamp).mtimeMs;
  return inputs.some((input) => newest(input) > built);
}

function build() {
  process.stderr.write("dist/ is older than src/: building first (npm run build)\n");
  // The steps of package.json's "build" script, without needing npm on PATH.
  for (const args of [
    ["scripts/clean-dist.js"],
    ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"],
    ["scripts/postbuild.js"],
  ]) {
    execFileSync(process.execPath, args, { cwd: root, stdio: "inherit" });
  }
}

module.exports = { isStale };

if (require.main === module && isStale()) build();
