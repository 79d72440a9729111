"use strict";
// The first call against the warm one (the `first` group). Each case runs in a fresh client
// process (bench/cases/first-call.js) against a `matframe serve --synthetic N` started for it
// alone, so the first call pays everything a user's first call pays on a fresh server: the
// server's first read of each record (nothing compressed yet; only the default columns' JSON,
// which serve keeps in a bounded background warm-up that is part of its start-up and ends
// before the case starts) and the client's first run of its code. What a process pays once is timed apart from the call: the import of
// `matframe`, and the load of danfojs-node (most of a cold start: mathjs alone is half of it),
// which `matframe/notebook` does at import and the root entry leaves to the first table.
// Per repetition: start-up bare and with the materials; the results table (danfo loaded first,
// then the `_id` `$in` lists); the same requests replayed by a plain undici Pool in a fresh
// process on another fresh server (first-floor.js: the transport's own first/second, the floor
// of the results table's ratio); the table of every material (danfo loaded first); the results
// table from the root entry, whose first call loads danfo.
const { startServerProcess } = require("./server-process");
const { login } = require("./api");
const { runNodeCase } = require("./case-runner");

const LABELS = {
  "startup.empty": "matframe serve start-up, no synthetic materials (to its URL; RSS when up)",
  "startup.synthetic": "matframe serve start-up, with the synthetic materials (to its URL; RSS when up)",
  "startup.warm":
    "matframe serve start-up, with the synthetic materials, to the end of its background warm-up (RSS then)",
  "first.import": "require('matframe') in a fresh client process, danfo not loaded (RSS after it)",
  "first.danfo": "danfo load, once per process: require('danfojs-node') in a fresh client process (RSS after it)",
  "first.notebook":
    "require('matframe/notebook') after danfo, once per process: the display helpers and the HTTP transport (undici)",
  "first.results.cold":
    "results.toDataFrame band_gaps, first call, matframe/notebook loaded (fresh server and client process)",
  "first.results.warm": "results.toDataFrame band_gaps, second call (same client)",
  "first.results.withImport":
    "results.toDataFrame band_gaps, first call + require('matframe') + danfo load + matframe/notebook (a notebook's first table)",
  "first.results.root":
    "results.toDataFrame band_gaps, first call from require('matframe') alone, which loads danfo and undici (fresh server and client process)",
  "first.materials.cold":
    "materials.toDataFrame, every material, first call, matframe/notebook loaded (fresh server and client process)",
  "first.materials.warm": "materials.toDataFrame, every material, second call (same client)",
  "first.materials.withImport":
    "materials.toDataFrame, every material, first call + import + danfo + matframe/notebook",
  "first.idIn": "materials _id $in 100 ids, median of 5 (fresh ids each)",
  "first.floor.cold":
    "the results table's first-call requests replayed by a plain undici Pool + JSON.parse, 3 in flight, first replay (fresh server and client process)",
  "first.floor.warm": "the same requests replayed again (same client)",
};

/** A server's start-up as a case's result: seconds to its URL, materials, peak RSS so far. */
function upFigures(server) {
  return { seconds: server.startSeconds, records: server.materialCount, maxRssKiB: server.urlRssKiB };
}

/** Runs the case (`script`, first-call.js by default) on a fresh server of `synthetic` materials and stops the server. */
async function onFreshServer(synthetic, params, script = "first-call.js") {
  const server = await startServerProcess({ synthetic });
  try {
    const credentials = await login(server.baseUrl);
    return await runNodeCase(script, { ...params, baseUrl: server.baseUrl, credentials });
  } finally {
    await server.stop();
  }
}

/**
 * The rows of one case: the one-off import and danfo load, its first call (danfo loaded), its
 * warm call, and the first call with what the process paid before it.
 */
function push(runs, prefix, result) {
  const { records, maxRssKiB } = result;
  (runs["first.import"] ??= []).push({ seconds: result.importSeconds, maxRssKiB: result.importRssKiB });
  (runs["first.danfo"] ??= []).push({
    seconds: result.danfoSeconds,
    cpuSeconds: result.danfoCpuSeconds,
    maxRssKiB: result.danfoRssKiB,
  });
  (runs["first.notebook"] ??= []).push({ seconds: result.notebookSeconds });
  (runs[`${prefix}.cold`] ??= []).push({ seconds: result.seconds, cpuSeconds: result.cpuSeconds, records, maxRssKiB });
  (runs[`${prefix}.warm`] ??= []).push({
    seconds: result.warmSeconds,
    cpuSeconds: result.warmCpuSeconds,
    records,
    maxRssKiB,
  });
  (runs[`${prefix}.withImport`] ??= []).push({
    seconds: result.importSeconds + result.danfoSeconds + result.notebookSeconds + result.seconds,
    importSeconds: result.importSeconds,
    danfoSeconds: result.danfoSeconds,
    notebookSeconds: result.notebookSeconds,
    records,
    maxRssKiB,
  });
}

async function measureFirstCall({ settings, runs, failures, labels, progress }) {
  progress(`first call vs warm: a fresh matframe serve --synthetic ${settings.synthetic} per case`);
  labels.push(
    ...Object.entries(LABELS).map(([id, label]) => ({
      id,
      label: label.replace("the synthetic materials", `--synthetic ${settings.synthetic}`),
    })),
  );
  const servers = [];
  for (let rep = 1; rep <= settings.reps; rep++) {
    try {
      // Start-up alone: the time to the URL line and the resident size then, bare and with the materials.
      const empty = await startServerProcess({ synthetic: 0 });
      (runs["startup.empty"] ??= []).push(upFigures(empty));
      await empty.stop();
      const up = await startServerProcess({ synthetic: settings.synthetic });
      (runs["startup.synthetic"] ??= []).push(upFigures(up));
      (runs["startup.warm"] ??= []).push({
        seconds: up.warmSeconds,
        records: up.materialCount,
        maxRssKiB: up.peakRssKiB(),
      });
      servers.push({ startSeconds: up.startSeconds, warmSeconds: up.warmSeconds, materialCount: up.materialCount });
      await up.stop();

      const results = await onFreshServer(settings.synthetic, {
        table: "results",
        entry: "notebook",
        label: "first",
        recordPaths: true,
      });
      push(runs, "first.results", results);
      // The same requests from a plain undici Pool, on a fresh server of the same (deterministic) data.
      const floor = await onFreshServer(
        settings.synthetic,
        { paths: results.paths, answers: results.answers, label: "first.floor" },
        "first-floor.js",
      );
      (runs["first.floor.cold"] ??= []).push({
        seconds: floor.seconds,
        cpuSeconds: floor.cpuSeconds,
        records: floor.records,
        maxRssKiB: floor.maxRssKiB,
      });
      (runs["first.floor.warm"] ??= []).push({
        seconds: floor.warmSeconds,
        cpuSeconds: floor.warmCpuSeconds,
        records: floor.records,
        maxRssKiB: floor.maxRssKiB,
      });
      (runs["first.idIn"] ??= []).push({
        seconds: results.idInMs / 1000,
        firstMs: results.idInFirstMs,
        records: 100,
        maxRssKiB: results.maxRssKiB,
      });
      const materials = await onFreshServer(settings.synthetic, {
        table: "materials",
        entry: "notebook",
        label: "first.materials",
      });
      push(runs, "first.materials", materials);
      const root = await onFreshServer(settings.synthetic, {
        table: "results",
        entry: "root",
        idSamples: 0,
        label: "first.root",
      });
      (runs["first.results.root"] ??= []).push({
        seconds: root.seconds,
        cpuSeconds: root.cpuSeconds,
        records: root.records,
        maxRssKiB: root.maxRssKiB,
      });
      progress(
        `  [${rep}/${settings.reps}] danfo load ${results.danfoSeconds.toFixed(2)} s (import ${results.importSeconds.toFixed(2)} s, matframe/notebook ${results.notebookSeconds.toFixed(2)} s); results first ${results.seconds.toFixed(2)} s, second ${results.warmSeconds.toFixed(2)} s (plain undici replay ${floor.seconds.toFixed(2)} s, then ${floor.warmSeconds.toFixed(2)} s; root entry first ${root.seconds.toFixed(2)} s); materials first ${materials.seconds.toFixed(2)} s, second ${materials.warmSeconds.toFixed(2)} s; _id $in 100 ids ${results.idInMs.toFixed(1)} ms`,
      );
    } catch (error) {
      failures["first.results.cold"] = error.message;
      progress(`  FAILED first call: ${error.message}`);
      break;
    }
  }
  return { servers };
}

module.exports = { measureFirstCall, onFreshServer };
