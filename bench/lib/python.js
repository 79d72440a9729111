"use strict";
// Finds a Python that can run the pandas baseline: Debian's /usr/bin/python3 first (it has
// python3-requests and python3-pandas; the first python3 on PATH may be a pyenv one without).
const { spawnSync } = require("node:child_process");
const { existsSync } = require("node:fs");

const CANDIDATES = ["/usr/bin/python3", "python3"];

/** `{ command, version }` of the first Python with pandas and requests, or `{ skip: reason }`. */
function findPython() {
  const reasons = [];
  for (const command of CANDIDATES) {
    if (command.startsWith("/") && !existsSync(command)) {
      reasons.push(`${command} does not exist`);
      continue;
    }
    const probe = spawnSync(
      command,
      ["-c", "import sys, pandas, requests; print(sys.version.split()[0], pandas.__version__, requests.__version__)"],
      {
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    if (probe.status === 0) {
      const [python, pandas, requests] = probe.stdout.trim().split(" ");
      return { command, python, pandas, requests };
    }
    const why = probe.error
      ? (probe.error.code ?? probe.error.message)
      : (probe.stderr.trim().split("\n").pop() ?? `exit ${probe.status}`);
    reasons.push(`${command}: ${why}`);
  }
  return {
    skip: `no Python with pandas and requests (${reasons.join("; ")}); on Debian: apt-get install python3-pandas python3-requests`,
  };
}

module.exports = { findPython };
