#!/usr/bin/env node
"use strict";
// `npm run bench`: matframe against the floor and against the tools people use today (issue 6).
// Starts `matframe serve` in its own process, runs every case in a child process of its own
// (time and peak RSS belong to that process alone), repeats each case (median, min, max),
// prints tables on stdout, writes bench/results.json and exits 1 when a target is missed.
// Progress goes to stderr. `--quick` is the CI smoke run: small sizes, no target checks.

const { mkdirSync } = require("node:fs");
const path = require("node:path");
const { readArgs, USAGE } = require("./lib/args");
const { login, authHeaders, idAt } = require("./lib/api");
const { runNodeCase, runPythonCase, summarizeRuns } = require("./lib/case-runner");
const { clientCases, bigExportCases, serverCases, serverPageLabel, SERVER_QUERY } = require("./lib/cases");
const { snapshotDist, sourceVersion } = require("./lib/dist-snapshot");
const { describeMachine } = require("./lib/machine");
const { findPython } = require("./lib/python");
const { writeResults } = require("./lib/results");
const { startServerProcess } = require("./lib/server-process");
const { startLinkProcess, wireBytes, linkFloorSeconds, linkCases } = require("./lib/link");
const { measureClass } = require("./lib/class");
const { measureFirstCall } = require("./lib/first-call");
const { measureCompute } = require("./lib/compute");
const { measureCold } = require("./lib/cold");
const { measureSmallLink } = require("./lib/link-small");
const {
  clientTable,
  serverTable,
  ratioTable,
  linkTable,
  smallLinkTable,
  classTable,
  computeTable,
} = require("./lib/table");
const { computeRatios, missedTargets } = require("./lib/targets");

const PAGE_SIZE = 500;
/** Groups that start the servers they measure, and need no main server. */
const OWN_SERVERS = new Set(["link-small", "class", "first", "compute"]);
const SERVER_CONNECTIONS = 4;

const progress = (line) => process.stderr.write(`bench: ${line}\n`);
const mib = (kib) => (typeof kib === "number" ? Math.round(kib / 1024) : null);

/** Servers still running, stopped on the way out whatever happens. */
const running = new Set();

async function withServer(synthetic, work) {
  progress(`starting matframe serve --synthetic ${synthetic} (its own process)`);
  const server = await startServerProcess({ synthetic });
  running.add(server);
  progress(`  ${server.materialCount} materials at ${server.baseUrl}, up in ${server.startSeconds.toFixed(1)} s`);
  try {
    await work(server);
  } finally {
    server.peakRssMiB = mib(server.peakRssKiB());
    await server.stop();
    running.delete(server);
  }
  return {
    synthetic,
    materialCount: server.materialCount,
    startSeconds: Math.round(server.startSeconds * 10) / 10,
    peakRssMiB: server.peakRssMiB,
  };
}

/** Runs each case once per repetition, taking the cases in turn so drift hits each alike. */
async function measure(cases, settings, runs, failures) {
  for (let rep = 1; rep <= settings.reps; rep++) {
    for (const c of cases) {
      if (failures[c.id]) continue;
      try {
        const result = c.python
          ? await runPythonCase(c.python, c.script, c.params)
          : await runNodeCase(c.script, c.params, { cpuProf: settings.cpuProf });
        (runs[c.id] ??= []).push(result);
        const rate = result.requestsPerSecond
          ? `${result.requestsPerSecond.toFixed(1)} req/s`
          : `${result.seconds.toFixed(2)} s`;
        progress(`  [${rep}/${settings.reps}] ${c.label}: ${rate}, peak RSS ${mib(result.maxRssKiB)} MiB`);
      } catch (error) {
        failures[c.id] = error.message;
        progress(`  FAILED ${c.label}: ${error.message}`);
      }
    }
  }
}

/** The link cases (issue 12): the proxy in front of the main server, the floors, the cases through it. */
async function measureLink({ settings, server, credentials, columnsFields, python, runs, failures, labels }) {
  const concurrency = 6; // the client's default for a remote platform
  const shape = { rttMs: settings.rttMs, mbit: settings.mbit, inFlight: concurrency };
  progress(`link: ${settings.rttMs} ms round trip, ${settings.mbit} Mbit/s each way (bench/lib/link-proxy.js)`);
  const wire = {
    full: await wireBytes({ baseUrl: server.baseUrl, credentials, acceptEncoding: "br, gzip, deflate" }),
    columns: await wireBytes({
      baseUrl: server.baseUrl,
      credentials,
      fields: columnsFields,
      acceptEncoding: "br, gzip, deflate",
    }),
    columnsGzip: await wireBytes({
      baseUrl: server.baseUrl,
      credentials,
      fields: columnsFields,
      acceptEncoding: "gzip, deflate",
    }),
    columnsIdentity: await wireBytes({
      baseUrl: server.baseUrl,
      credentials,
      fields: columnsFields,
      acceptEncoding: "identity",
    }),
  };
  const floors = {
    full: linkFloorSeconds(wire.full, shape),
    columns: linkFloorSeconds(wire.columns, shape),
    columnsOnePage: linkFloorSeconds(wire.columnsGzip, { ...shape, inFlight: 1 }),
  };
  const proxy = await startLinkProcess({ origin: server.origin, rttMs: settings.rttMs, mbit: settings.mbit });
  try {
    const cases = linkCases({
      groups: settings.groups,
      server,
      link: proxy,
      credentials,
      columnsFields,
      python,
      concurrency,
    });
    labels.push(...cases);
    await measure(cases, settings, runs, failures);
  } finally {
    await proxy.stop();
  }
  return { rttMs: settings.rttMs, mbit: settings.mbit, concurrency, wire, floorSeconds: floors };
}

async function main(settings) {
  const started = Date.now();
  const machine = describeMachine();
  const { DEFAULT_COLUMNS, planColumns } = require(
    path.join(process.env.MATFRAME_BENCH_DIST, "frame", "table", "column-spec.js"),
  );
  const columnsFields = planColumns(DEFAULT_COLUMNS).fields;
  const wantsPython = settings.groups.has("python") || settings.groups.has("link") || settings.groups.has("symmetry");
  const python = wantsPython ? findPython() : { skip: "not selected (--only)" };
  if (wantsPython && python.skip) progress(`Python baseline skipped: ${python.skip}`);
  if (settings.cpuProf) mkdirSync(path.join(__dirname, "profiles"), { recursive: true });

  const runs = {};
  const failures = {};
  const labels = [];
  const servers = {};
  let deepSkip;
  let link;
  let klass;
  let linkSmall;
  let compute;
  const cold = {};

  // The class, first and compute groups start servers of their own: alone, they need no main one.
  const needsMain = [...settings.groups].some((group) => !OWN_SERVERS.has(group));
  const onMain = needsMain ? withServer : async () => undefined;
  servers.main = await onMain(settings.synthetic, async (server) => {
    const credentials = await login(server.baseUrl);
    const cases = clientCases({
      groups: settings.groups,
      server,
      credentials,
      columnsFields,
      python,
      symmetrySample: settings.quick ? 200 : 2000,
    });
    labels.push(...cases);
    if (settings.cold) await measureCold(cases, settings, cold, progress);
    if (cases.length > 0) {
      // The server's first walk runs cold code; warm it up once, unmeasured.
      await runNodeCase("floor.js", {
        baseUrl: server.baseUrl,
        credentials,
        concurrency: 3,
        expected: server.materialCount,
      });
      progress(`client cases, ${settings.reps} repetition(s) each`);
      await measure(cases, settings, runs, failures);
    }
    if (settings.groups.has("link"))
      link = await measureLink({ settings, server, credentials, columnsFields, python, runs, failures, labels });
    deepSkip = Math.floor((server.materialCount - PAGE_SIZE) / PAGE_SIZE) * PAGE_SIZE;
    const deepIds = settings.groups.has("server")
      ? {
          "no query": await idAt(server.baseUrl, credentials, {}, deepSkip - 1),
          query: await idAt(server.baseUrl, credentials, SERVER_QUERY, deepSkip - 1),
        }
      : {};
    const headers = authHeaders(credentials);
    const sCases = serverCases({
      groups: settings.groups,
      server,
      headers,
      deepSkip,
      deepIds,
      connections: SERVER_CONNECTIONS,
      duration: settings.duration,
      rounds: settings.quick ? 5 : 30,
      coldSamples: settings.quick ? 3 : 9,
    });
    labels.push(...sCases);
    if (sCases.length > 0) {
      progress(
        `server alone: pages in alternation, then autocannon (${SERVER_CONNECTIONS} connections, ${settings.duration} s per page)`,
      );
      await measure(sCases, settings, runs, failures);
    }
  });

  if (settings.groups.has("link") || settings.groups.has("link-small"))
    linkSmall = await measureSmallLink({ settings, columnsFields, runs, failures, labels, measure, progress });
  if (settings.groups.has("class")) klass = await measureClass({ settings, runs, failures, labels, measure, progress });
  if (settings.groups.has("first")) await measureFirstCall({ settings, runs, failures, labels, progress });
  if (settings.groups.has("compute")) compute = await measureCompute({ settings, runs, failures, labels, progress });

  if (settings.groups.has("export") || settings.groups.has("parquet")) {
    servers.big = await withServer(settings.big, async (server) => {
      const credentials = await login(server.baseUrl);
      const cases = bigExportCases({ groups: settings.groups, server, credentials });
      labels.push(...cases);
      progress(`large export, ${settings.reps} repetition(s) each`);
      await measure(cases, settings, runs, failures);
    });
  }

  const cases = {};
  for (const [id, list] of Object.entries(runs)) cases[id] = summarizeRuns(list);
  for (const [id, figure] of Object.entries(cold))
    if (cases[id] && figure.seconds) cases[id].coldSeconds = figure.seconds;
  const ratios = computeRatios(cases, link, linkSmall);
  const missed = settings.checkTargets ? missedTargets(ratios) : [];
  const sizeOf = (c) => (c.size === "big" ? settings.big : c.size === "small" ? settings.synthetic : undefined);
  const label = (c) => (sizeOf(c) ? `${c.label}, ${sizeOf(c).toLocaleString("en-US")} materials` : c.label);
  const entries = labels.map((c) => ({ id: c.id, label: label(c) }));

  const out = [];
  out.push(
    `matframe bench${settings.quick ? " (--quick: small sizes, targets not checked)" : ""}: ` +
      `${servers.main ? `${servers.main.materialCount} materials, pages of ${PAGE_SIZE}` : "each group on servers of its own"}, median of ${settings.reps} run(s) (min-max)`,
  );
  out.push(
    `machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.ramGiB} GiB RAM, Node ${machine.node}, load at start ${machine.loadAverage.join(" ")}`,
  );
  out.push(
    "",
    clientTable(
      cases,
      entries.filter((e) => !e.id.startsWith("server.") && !/^(link|linkSmall|class|compute)\./.test(e.id)),
    ),
  );
  if (settings.groups.has("server")) {
    const pageLabels = Object.fromEntries(
      Object.keys(cases["server.paired"] ?? {})
        .filter((key) => key.endsWith("Ms"))
        .map((key) => key.slice(0, -2))
        .map((key) => [key, serverPageLabel(key, deepSkip)]),
    );
    out.push(
      "",
      serverTable(
        cases,
        pageLabels,
        entries.filter((e) => e.id.startsWith("server.cold.")),
      ),
    );
  }
  if (link)
    out.push(
      "",
      linkTable(
        cases,
        link,
        entries.filter((e) => e.id.startsWith("link.")),
      ),
    );
  if (linkSmall)
    out.push(
      "",
      smallLinkTable(
        cases,
        linkSmall,
        entries.filter((e) => e.id.startsWith("linkSmall.")),
      ),
    );
  if (klass)
    out.push(
      "",
      classTable(
        cases,
        entries.filter((e) => e.id.startsWith("class.")),
      ),
    );
  if (compute)
    out.push(
      "",
      computeTable(
        cases,
        compute,
        entries.filter((e) => e.id.startsWith("compute.")),
      ),
    );
  out.push("", ratioTable(ratios, { checked: settings.checkTargets }));
  out.push(
    "",
    (servers.main
      ? `server processes: main ${servers.main.materialCount} materials, up in ${servers.main.startSeconds} s, peak RSS ${servers.main.peakRssMiB} MiB`
      : "server processes: no main server (the groups run start their own)") +
      (servers.big
        ? `; large ${servers.big.materialCount} materials, up in ${servers.big.startSeconds} s, peak RSS ${servers.big.peakRssMiB} MiB`
        : ""),
  );
  process.stdout.write(`${out.join("\n")}\n`);

  const file = writeResults(settings.out, {
    generatedAt: new Date(started).toISOString(),
    wallSeconds: Math.round((Date.now() - started) / 1000),
    quick: settings.quick,
    source: sourceVersion(),
    targetsChecked: settings.checkTargets,
    settings: {
      reps: settings.reps,
      synthetic: settings.synthetic,
      big: settings.big,
      pageSize: PAGE_SIZE,
      columns: DEFAULT_COLUMNS,
      columnsFields,
      autocannon: { connections: SERVER_CONNECTIONS, durationSeconds: settings.duration },
      serverQuery: SERVER_QUERY,
      deepSkip,
      groups: [...settings.groups],
    },
    machine,
    python,
    link,
    linkSmall,
    class: klass,
    compute,
    cold,
    servers,
    labels: Object.fromEntries(entries.map((e) => [e.id, e.label])),
    cases,
    ratios,
    missed: missed.map((r) => r.id),
    failures,
  });
  progress(`results written to ${path.relative(process.cwd(), file)}`);

  let code = 0;
  if (Object.keys(failures).length > 0) {
    process.stdout.write(`\n${Object.keys(failures).length} case(s) failed:\n`);
    for (const [id, message] of Object.entries(failures)) process.stdout.write(`  ${id}: ${message}\n`);
    code = 1;
  }
  if (missed.length > 0) {
    process.stdout.write(`\n${missed.length} target(s) missed:\n`);
    for (const r of missed)
      process.stdout.write(`  ${r.label}: ${r.value.toFixed(2)}, target ${r.target.op} ${r.target.limit}\n`);
    code = 1;
  } else if (settings.checkTargets) {
    process.stdout.write("\nEvery measured target met.\n");
  }
  return code;
}

async function stopServers() {
  await Promise.allSettled([...running].map((server) => server.stop()));
}

let settings;
try {
  settings = readArgs(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`bench: ${error.message}\n\n${USAGE}\n`);
  process.exit(1);
}
if (settings.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    progress(`${signal}: stopping the servers`);
    stopServers().finally(() => process.exit(130)); // the exit handler removes the dist/ copy
  });
}
let snapshot;
try {
  snapshot = snapshotDist();
} catch (error) {
  process.stderr.write(`bench: ${error.message}\n`);
  process.exit(1);
}
// Inherited by the server and every case, so all of them run the same build.
process.env.MATFRAME_BENCH_DIST = snapshot.dir;
process.once("exit", () => snapshot.remove());
main(settings).then(
  (code) => {
    process.exitCode = code;
  },
  async (error) => {
    process.stderr.write(`bench: ${error.message}\n`);
    await stopServers();
    process.exitCode = 1;
  },
);
