"use strict";
// What the figures were measured on: they mean little without it.
const os = require("node:os");
const { readFileSync } = require("node:fs");

function cpuModel() {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"));
    if (match) return match[1].trim();
  } catch {
    // not Linux: fall back to what Node reports
  }
  return os.cpus()[0]?.model ?? "unknown";
}

/** CPU count and model, RAM, OS, Node version and the load when the run started. */
function describeMachine() {
  return {
    cpus: os.availableParallelism ? os.availableParallelism() : os.cpus().length,
    cpuModel: cpuModel(),
    ramGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

module.exports = { describeMachine };
