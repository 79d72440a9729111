// Packs matframe for installing elsewhere (`npm run pack`): builds dist/, then packs a staged copy
// whose package.json has no scripts and no development fields, so installing the tarball runs
// nothing of ours (npm 11 lists a `prepare` script of a dependency as an install script to
// approve, and ours only makes sense in a clone). Prints the tarball's path on stdout.
//
//   node scripts/pack.js [--out DIR] [--no-build]
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const root = path.join(__dirname, "..");

/** A `files` entry as paths: `docs/*.md` names the folder's .md files (the one pattern used), others name themselves. */
function expand(entry) {
  const star = /^(.*)\/\*(\.[\w]+)$/.exec(entry);
  if (!star) return [entry];
  return fs
    .readdirSync(path.join(root, star[1]))
    .filter((name) => name.endsWith(star[2]))
    .map((name) => `${star[1]}/${name}`);
}

function main(argv) {
  const outIndex = argv.indexOf("--out");
  const out = path.resolve(outIndex >= 0 ? argv[outIndex + 1] : root);
  if (!argv.includes("--no-build"))
    execFileSync("npm", ["run", "build"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), "matframe-pack-"));
  try {
    // `!path` entries leave a folder out of an entry above it (`!data/sources`: the upstream files
    // the platform data is built from stay in the clone).
    const left = pkg.files.filter((entry) => entry.startsWith("!")).map((entry) => path.join(root, entry.slice(1)));
    const kept = (source) => !left.some((out) => source === out || source.startsWith(`${out}${path.sep}`));
    for (const entry of pkg.files.filter((entry) => !entry.startsWith("!")).flatMap(expand))
      fs.cpSync(path.join(root, entry), path.join(stage, entry), { recursive: true, filter: kept });
    for (const extra of ["LICENSE", "CHANGELOG.md"]) {
      if (fs.existsSync(path.join(root, extra))) fs.copyFileSync(path.join(root, extra), path.join(stage, extra));
    }
    const { scripts: _scripts, devDependencies: _dev, overrides: _overrides, allowScripts: _allow, ...published } = pkg;
    fs.writeFileSync(path.join(stage, "package.json"), `${JSON.stringify(published, null, 2)}\n`);
    fs.mkdirSync(out, { recursive: true });
    const name = execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", out], {
      cwd: stage,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    })
      .trim()
      .split("\n")
      .at(-1);
    process.stdout.write(`${path.join(out, name)}\n`);
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

main(process.argv.slice(2));
