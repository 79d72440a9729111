// Removes dist/ before a build, so files of modules that were deleted or renamed do not linger
// in the package (a stale .d.ts there would still be published and type-checked by consumers).
"use strict";
const fs = require("node:fs");
const path = require("node:path");

fs.rmSync(path.join(__dirname, "..", "dist"), { recursive: true, force: true });
