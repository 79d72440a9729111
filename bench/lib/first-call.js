"use strict";
// The first call against the warm one (the `first` group): each repetition starts a fresh
// `matframe serve --synthetic N` and a fresh client process (bench/cases/first-call.js), so the
// cold figure pays everything a user's first call pays: the server's first query of each
// collection, and the client loading danfo. Results go in as three cases: the cold and the warm
// results table, and the median `_id: {$in: [100 ids]}` list. A second fresh server per
// repetition is asked by a client that loaded danfo first: the server's share of the first call.
const { startServerProcess } = require("./server-process");
const { login } = require("./api");
const { runNodeCase } = require("./case-runner");

const LABELS = {
  "startup.empty": "matframe serve start-up, no synthetic materials (to its URL; RSS when up)",
  "startup.synthetic": "matframe serve start-up, with the synthetic materials (to its URL; RSS when up)",
  "first.results.cold": "results.toDataFrame band_gaps, first call (fresh server and client)",
  "first.results.warm": "results.toDataFrame band_gaps, second call (same client)",
  "first.results.coldServer": "results.toDataFrame band_gaps, first call (fresh server, danfo loaded before)",
  "first.idIn": "materials _id $in 100 ids, median of 5 (fresh ids each)",
};

/** A server's start-up as a case's result: seconds to its URL, materials, peak RSS so far. */
function upFigures(server) {
  return { seconds: server.startSeconds, records: server.materialCount, maxRssKiB: server.peakRssKiB() };
}

async function measureFirstCall({ settings, runs, failures, labels, progress }) {
  progress(`first call vs warm: a fresh matframe serve --synthetic ${settings.synthetic} per repetition`);
  labels.push(
    ...Object.entries(LABELS).map(([id, label]) => ({
      id,
      label: label.replace("the synthetic materials", `--synthetic ${settings.synthetic}`),
    })),
  );
  const servers = [];
  for (let rep = 1; rep <= settings.reps; rep++) {
    // Start-up alone: the time to the URL line and the resident size then, bare and with the materials.
    const empty = await startServerProcess({ synthetic: 0 });
    (runs["startup.empty"] ??= []).push(upFigures(empty));
    await empty.stop();
    const server = await startServerProcess({ synthetic: settings.synthetic });
    (runs["startup.synthetic"] ??= []).push(upFigures(server));
    try {
      const credentials = await login(server.baseUrl);
      const result = await runNodeCase("first-call.js", { baseUrl: server.baseUrl, credentials, label: "first" });
      const { maxRssKiB, records } = result;
      (runs["first.results.cold"] ??= []).push({
        seconds: result.seconds,
        cpuSeconds: result.cpuSeconds,
        records,
        maxRssKiB,
      });
      (runs["first.results.warm"] ??= []).push({ seconds: result.warmSeconds, records, maxRssKiB });
      (runs["first.idIn"] ??= []).push({
        seconds: result.idInMs / 1000,
        firstMs: result.idInFirstMs,
        records: 100,
        maxRssKiB,
      });
      servers.push({ startSeconds: server.startSeconds, materialCount: server.materialCount });
      await server.stop();
      const again = await startServerProcess({ synthetic: settings.synthetic });
      try {
        const preloaded = await runNodeCase("first-call.js", {
          baseUrl: again.baseUrl,
          credentials: await login(again.baseUrl),
          preloadDanfo: true,
          idSamples: 1,
          label: "first.preloaded",
        });
        (runs["first.results.coldServer"] ??= []).push({
          seconds: preloaded.seconds,
          cpuSeconds: preloaded.cpuSeconds,
          records: preloaded.records,
          maxRssKiB: preloaded.maxRssKiB,
        });
        result.coldServerSeconds = preloaded.seconds;
      } finally {
        await again.stop();
      }
      progress(
        `  [${rep}/${settings.reps}] results first ${result.seconds.toFixed(2)} s (danfo loaded before: ${result.coldServerSeconds.toFixed(2)} s), second ${result.warmSeconds.toFixed(2)} s; _id $in 100 ids ${result.idInMs.toFixed(1)} ms`,
      );
    } catch (error) {
      failures["first.results.cold"] = error.message;
      progress(`  FAILED first call: ${error.message}`);
      break;
    } finally {
      await server.stop();
    }
  }
  return { servers };
}

module.exports = { measureFirstCall };
