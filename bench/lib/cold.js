"use strict";
// The cold figure of the client cases: each run once as the first client of a fresh `matframe
// serve` (its own process, started for that case alone) from a fresh process: what a user's first
// read of a server just started costs. The medians beside it are warm: they come after the
// harness's unmeasured warm-up walk of the main server. Groups whose work does not touch the
// server (symmetry) have no cold figure.
const { startServerProcess } = require("./server-process");
const { login } = require("./api");
const { runNodeCase, runPythonCase } = require("./case-runner");

const COLD_GROUPS = new Set(["floor", "iterate", "frame", "naive", "python", "export", "parquet", "structures"]);

/** Runs each case of `cases` once on a fresh server; `cold[id]` gets its seconds (or its error). */
async function measureCold(cases, { synthetic }, cold, progress) {
  const chosen = cases.filter((c) => COLD_GROUPS.has(c.group));
  if (chosen.length === 0) return;
  progress(`cold figures: each client case once on a fresh matframe serve --synthetic ${synthetic}`);
  for (const c of chosen) {
    const server = await startServerProcess({ synthetic });
    try {
      const credentials = await login(server.baseUrl);
      const params = { ...c.params, baseUrl: server.baseUrl, credentials, label: `${c.id}.cold` };
      const result = c.python ? await runPythonCase(c.python, c.script, params) : await runNodeCase(c.script, params);
      cold[c.id] = { seconds: result.seconds, cpuSeconds: result.cpuSeconds, serverStartSeconds: server.startSeconds };
      progress(`  cold ${c.label}: ${result.seconds.toFixed(2)} s`);
    } catch (error) {
      cold[c.id] = { error: error.message };
      progress(`  cold FAILED ${c.label}: ${error.message}`);
    } finally {
      await server.stop();
    }
  }
}

module.exports = { measureCold };
