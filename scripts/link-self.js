// Lets the repository's own notebooks import the package by its name, as a user's would:
// `import { Client } from "matframe"`. tslab type-checks cells with TypeScript's "node10" module
// resolution, which ignores package.json "exports" and so cannot resolve a package's reference to
// itself; it needs a `matframe` folder in a node_modules on the way up from the notebook. This makes
// notebooks/node_modules/matframe a link to the repository root (ignored by git, like any
// node_modules). Idempotent; run by scripts/run-notebooks.js and safe to run from `prepare`.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const root = path.join(__dirname, "..");
const link = path.join(root, "notebooks", "node_modules", "matframe");

function linkSelf() {
  try {
    if (fs.realpathSync(link) === fs.realpathSync(root)) return false;
    fs.rmSync(link, { recursive: false, force: true });
  } catch {
    // Missing (or a dangling link): create it below.
    fs.rmSync(link, { force: true });
  }
  fs.mkdirSync(path.dirname(link), { recursive: true });
  // A relative link survives moving the checkout; on Windows a junction needs no admin rights.
  fs.symlinkSync(process.platform === "win32" ? root : path.join("..", ".."), link, "junction");
  return true;
}

module.exports = { linkSelf, link };

if (require.main === module) {
  if (linkSelf()) console.log("linked notebooks/node_modules/matframe -> repository root");
}
