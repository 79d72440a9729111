// Makes the CLI entry executable after tsc (tsc keeps the shebang but not the mode).
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const cli = path.join(__dirname, "..", "dist", "cli", "main.js");
if (fs.existsSync(cli)) fs.chmodSync(cli, 0o755);
