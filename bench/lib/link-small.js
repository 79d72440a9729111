"use strict";
// The far link with the defaults at a size where fixed costs show (20,000 materials in a full
// run): a user's first read over the link, login included, against the floor of the same walk
// (measured: undici, the same compressed pages, 6 in flight, the login first) and the link floor
// (computed: the compressed bytes through the bandwidth, plus a round trip per wave of pages, and
// the login: a round trip and the server's own time to check the password). Each case runs warm
// (on a server that has served the walk before) and cold (a fresh server and proxy started for
// that run alone, a fresh client process): the cold figure is the one a user's first read sees.
const { startServerProcess } = require("./server-process");
const { login } = require("./api");
const { startLinkProcess, wireBytes, linkFloorSeconds } = require("./link");
const { runNodeCase } = require("./case-runner");

const DEMO = { username: "demo", password: "demo" };
/** What the client asks for by default on a far link (src/client/transport/interceptors/decompress.ts). */
const CLIENT_ENCODING = "br, gzip, deflate";
const IN_FLIGHT = 6;

/** The cases through `proxy` in front of `server`. */
function smallLinkCases({ server, proxy, columnsFields }) {
  const baseUrl = `${proxy.origin}${new URL(server.baseUrl).pathname}`;
  const common = { baseUrl, login: DEMO, expected: server.materialCount };
  return [
    {
      group: "link",
      id: "linkSmall.floor",
      label: `link floor, measured: undici loaded, login, then decode + JSON.parse of the same compressed pages, c=${IN_FLIGHT}`,
      script: "floor.js",
      params: {
        ...common,
        acceptEncoding: CLIENT_ENCODING,
        // As the client does: its process loads undici on the first request, inside the timing.
        loadInClock: true,
        concurrency: IN_FLIGHT,
        fields: columnsFields,
        label: "linkSmall.floor",
      },
    },
    {
      group: "link",
      id: "linkSmall.toDataFrame.defaults",
      label: "Client.login + toDataFrame (default columns), the defaults",
      script: "to-dataframe.js",
      params: { ...common, label: "linkSmall.toDataFrame.defaults" },
    },
  ];
}

/** The shortest of `times` logins straight to the server (loopback), in seconds. */
async function serverLoginSeconds(baseUrl, times) {
  let best = Infinity;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await login(baseUrl);
    best = Math.min(best, (performance.now() - started) / 1000);
  }
  return best;
}

/** The measured floor's walk straight to the server, without the link (cold only). */
const LOOPBACK = "linkSmall.loopback";
const COLD_CASES = ["linkSmall.floor", "linkSmall.toDataFrame.defaults", LOOPBACK];

/**
 * The cold runs: `settings.reps` times, each case on a fresh server behind a fresh proxy, the
 * cases taken in turn so drift hits each alike; `runs["<id>.cold"]` gets each result.
 */
async function measureColdLink({ settings, columnsFields, runs, failures, progress }) {
  progress(`link cold: each case on a fresh matframe serve --synthetic ${settings.linkMaterials} and proxy`);
  for (let rep = 1; rep <= settings.reps; rep++) {
    for (const id of COLD_CASES) {
      const coldId = `${id}.cold`;
      if (failures[coldId]) continue;
      const server = await startServerProcess({ synthetic: settings.linkMaterials });
      const proxy = await startLinkProcess({ origin: server.origin, rttMs: settings.rttMs, mbit: settings.mbit });
      try {
        const c = smallLinkCases({ server, proxy, columnsFields }).find(
          (x) => x.id === (id === LOOPBACK ? "linkSmall.floor" : id),
        );
        // The loopback walk skips the proxy: the server's own pace for a cold walk.
        const baseUrl = id === LOOPBACK ? server.baseUrl : c.params.baseUrl;
        const result = await runNodeCase(c.script, { ...c.params, baseUrl, label: coldId });
        (runs[coldId] ??= []).push(result);
        const label = id === LOOPBACK ? "the same walk on loopback, no link" : c.label;
        progress(`  [${rep}/${settings.reps}] cold ${label}: ${result.seconds.toFixed(2)} s`);
      } catch (error) {
        failures[coldId] = error.message;
        progress(`  cold FAILED ${id}: ${error.message}`);
      } finally {
        await proxy.stop();
        await server.stop();
      }
    }
  }
}

/** The group: its own server and proxy; resolves to what the results file keeps of the link. */
async function measureSmallLink({ settings, columnsFields, runs, failures, labels, measure, progress }) {
  progress(
    `link at ${settings.linkMaterials} materials: matframe serve --synthetic ${settings.linkMaterials}, ${settings.rttMs} ms / ${settings.mbit} Mbit/s`,
  );
  // Cold first, while no server of this size has run yet on the machine.
  if (settings.cold) await measureColdLink({ settings, columnsFields, runs, failures, progress });
  const server = await startServerProcess({ synthetic: settings.linkMaterials });
  try {
    const credentials = await login(server.baseUrl);
    const wire = await wireBytes({
      baseUrl: server.baseUrl,
      credentials,
      fields: columnsFields,
      acceptEncoding: CLIENT_ENCODING,
    });
    const shape = { rttMs: settings.rttMs, mbit: settings.mbit, inFlight: IN_FLIGHT };
    // The login costs a round trip and the server's password check (scrypt, about 50 ms), which
    // no client can skip: the shortest of five logins on loopback, without the link.
    const loginSeconds = await serverLoginSeconds(server.baseUrl, 5);
    const floorSeconds = linkFloorSeconds(wire, shape) + settings.rttMs / 1000 + loginSeconds;
    const proxy = await startLinkProcess({ origin: server.origin, rttMs: settings.rttMs, mbit: settings.mbit });
    try {
      const cases = smallLinkCases({ server, proxy, columnsFields });
      labels.push(...cases);
      await measure(cases, settings, runs, failures);
    } finally {
      await proxy.stop();
    }
    return {
      materials: server.materialCount,
      rttMs: settings.rttMs,
      mbit: settings.mbit,
      inFlight: IN_FLIGHT,
      wire,
      loginSeconds,
      floorSeconds,
    };
  } finally {
    await server.stop();
  }
}

module.exports = { measureSmallLink };
