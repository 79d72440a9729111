"use strict";
// The ratios issue 6 asks for, each with its target, plus informative ratios without one.
// A ratio whose inputs were not measured (a skipped case, a partial run) is reported as null.

const MiB = (summary) => summary?.peakRssMiB?.median;
const seconds = (summary) => summary?.seconds?.median;
const cpu = (summary) => summary?.cpuSeconds?.median;
// Records per CPU second of the case's own process.
const perCpu = (summary) => (summary?.records && cpu(summary) ? summary.records / cpu(summary) : undefined);
// Server: the median time of a page asked for one request at a time, in alternation with the others.
const pagedMs = (cases, page) => cases["server.paired"]?.[`${page}Ms`]?.median;
// Under autocannon: time per request is the inverse of the sustained rate on the same connections.
const perRequest = (summary) => (summary?.requestsPerSecond ? 1 / summary.requestsPerSecond.median : undefined);

function ratio(a, b) {
  return typeof a === "number" && typeof b === "number" && b > 0 ? a / b : null;
}

/** Every ratio of the run: `{ id, label, value, target?: { op, limit }, met? }`. */
function computeRatios(cases, link, linkSmall) {
  const c = (id) => cases[id];
  const rows = [
    [
      "toDataFrame/floor.c3",
      "toDataFrame time / floor time (same fields), c=3",
      ratio(seconds(c("toDataFrame.c3")), seconds(c("floor.columns.c3"))),
      "<=",
      1.25,
    ],
    [
      "toDataFrame/floor.c1",
      "toDataFrame time / floor time (same fields), c=1",
      ratio(seconds(c("toDataFrame.c1")), seconds(c("floor.columns.c1"))),
      "<=",
      1.25,
    ],
    [
      "naive/toDataFrame",
      "naive TypeScript time (whole records) / toDataFrame time",
      ratio(seconds(c("naive")), seconds(c("toDataFrame.c3"))),
      ">=",
      2.5,
    ],
    [
      "python/toDataFrame",
      "Python requests+pandas time / toDataFrame time",
      ratio(seconds(c("python")), seconds(c("toDataFrame.c3"))),
      ">=",
      3,
    ],
    ["toDataFrame.rss", "toDataFrame peak RSS (MiB), c=3", MiB(c("toDataFrame.c3")) ?? null, "<=", 300],
    [
      "link.iterate/floor",
      "link: iterate (whole records) time / its link floor",
      ratio(seconds(c("link.iterate")), link?.floorSeconds.full),
      "<=",
      1.3,
    ],
    [
      "link.toDataFrame/floor",
      "link: toDataFrame time / its link floor",
      ratio(seconds(c("link.toDataFrame")), link?.floorSeconds.columns),
      "<=",
      1.3,
    ],
    [
      "link.iterate.defaults/explicit",
      "link through a loopback address: iterate with the defaults / with compression and c=6",
      ratio(seconds(c("link.iterate.defaults")), seconds(c("link.iterate"))),
      "<=",
      1.15,
    ],
    [
      "link.toDataFrame.defaults/explicit",
      "link through a loopback address: toDataFrame with the defaults / with compression and c=6",
      ratio(seconds(c("link.toDataFrame.defaults")), seconds(c("link.toDataFrame"))),
      "<=",
      1.15,
    ],
    [
      "linkSmall.toDataFrame.cold/floor",
      "link, the small collection (20,000 materials in a full run), cold (fresh server and client): Client.login + toDataFrame with the defaults / its link floor (login included)",
      ratio(seconds(c("linkSmall.toDataFrame.defaults.cold")), linkSmall?.floorSeconds),
      "<=",
      1.1,
    ],
    [
      "linkSmall.toDataFrame/floor",
      "link, the small collection, warm: Client.login + toDataFrame with the defaults / its link floor (login included)",
      ratio(seconds(c("linkSmall.toDataFrame.defaults")), linkSmall?.floorSeconds),
      "<=",
      1.3,
    ],
    [
      "first.results.cold/warm",
      "results.toDataFrame band_gaps: first call on a fresh server and client process (danfo loaded, timed apart) / second call",
      ratio(seconds(c("first.results.cold")), seconds(c("first.results.warm"))),
      "<=",
      1.5,
    ],
    [
      "first.results.cold.s",
      "results.toDataFrame band_gaps: first call on a fresh server and client process, danfo loaded (s)",
      seconds(c("first.results.cold")),
      "<",
      1,
    ],
    [
      "first.materials.cold/warm",
      "materials.toDataFrame of every material: first call on a fresh server and client process (danfo loaded) / second call",
      ratio(seconds(c("first.materials.cold")), seconds(c("first.materials.warm"))),
      "<=",
      1.5,
    ],
    [
      "first.idIn.ms",
      "materials _id $in 100 ids (ms, median)",
      typeof seconds(c("first.idIn")) === "number" ? seconds(c("first.idIn")) * 1000 : null,
      "<",
      20,
    ],
    [
      "compute.queue/hand.r1",
      "compute: Si total-energy jobs through matframe serve's queue, 1 running / pw.x by hand back to back (time)",
      ratio(seconds(c("compute.queue.r1")), seconds(c("compute.hand.r1"))),
      "<=",
      1.2,
    ],
    [
      "compute.queue/hand.r2",
      "compute: Si total-energy jobs through matframe serve's queue, 2 running / pw.x by hand 2 at a time (time)",
      ratio(seconds(c("compute.queue.r2")), seconds(c("compute.hand.r2"))),
      "<=",
      1.2,
    ],
    [
      "link.python/toDataFrame",
      "link: Python one page at a time + pandas / toDataFrame",
      ratio(seconds(c("link.python")), seconds(c("link.toDataFrame"))),
      ">=",
      5,
    ],
    [
      "link.python.threads/toDataFrame",
      "link: Python 3 threads + pandas / toDataFrame",
      ratio(seconds(c("link.python.threads")), seconds(c("link.toDataFrame"))),
      ">=",
      1.5,
    ],
    [
      "link.cached/first",
      "link: toDataFrame re-run with the cache / first run",
      ratio(seconds(c("link.toDataFrame.cached")), c("link.toDataFrame.cached")?.firstSeconds?.median),
      "<=",
      0.2,
    ],
    [
      "parquet.time/csv",
      "exportParquet time / exportCsv time (default columns, small collection)",
      ratio(seconds(c("exportParquet.small")), seconds(c("parquet.exportCsv.small"))),
      "<=",
      1.3,
    ],
    [
      "parquet.bytes/csv",
      "exportParquet file size / exportCsv file size",
      ratio(c("exportParquet.small")?.megabytes?.median, c("parquet.exportCsv.small")?.megabytes?.median),
      "<=",
      0.4,
    ],
    [
      "parquet.rss.big/small",
      "exportParquet peak RSS big / small",
      ratio(MiB(c("exportParquet.big")), MiB(c("exportParquet.small"))),
      "<=",
      1.3,
    ],
    [
      "link.partitions4/keyset",
      "link: exportParquet one keyset walk / 4 partitions (time)",
      ratio(seconds(c("link.exportParquet.keyset")), seconds(c("link.exportParquet.p4"))),
      ">=",
      2,
    ],
    [
      "resume.csv/keyset",
      "exportCsv resume: true / exportCsv keyset (time)",
      ratio(seconds(c("exportCsv.small.resume")), seconds(c("exportCsv.small.keyset"))),
      "<=",
      1.1,
    ],
    [
      "resume.parquet/keyset",
      "exportParquet resume: true / exportParquet keyset (time)",
      ratio(seconds(c("exportParquet.small.resume")), seconds(c("exportParquet.small.keyset"))),
      "<=",
      1.1,
    ],
    [
      "exportCsv.rss.big/small",
      "exportCsv peak RSS big / small, offset (default)",
      ratio(MiB(c("exportCsv.big.offset")), MiB(c("exportCsv.small.offset"))),
      "<=",
      1.3,
    ],
    [
      "symmetry.real/pymatgen",
      "symmetry throughput of distinct structures: symmetryOf / pymatgen on 1,056 real, distinct Materials Project structures, per material",
      ratio(c("symmetry.real")?.recordsPerSecond, c("symmetry.real.pymatgen")?.recordsPerSecond),
      ">=",
      10,
    ],
    [
      "symmetry.uncached/pymatgen",
      "symmetry throughput without the cache: symmetryOf with its cache cleared before each structure / pymatgen, per material (the bench set)",
      ratio(c("symmetry.uncached")?.recordsPerSecond, c("symmetry.pymatgen")?.recordsPerSecond),
      ">=",
      10,
    ],
    [
      "class.serverCpu/alone",
      "class: server CPU per student, whole class / one student alone",
      ratio(c("class.together")?.serverCpuPerStudent?.median, c("class.alone")?.serverCpuPerStudent?.median),
      "<=",
      1.5,
    ],
    [
      "symmetry/pymatgen",
      "symmetry throughput: symmetryOf (cached per structure) / pymatgen SpacegroupAnalyzer, per material",
      ratio(c("symmetry.cached")?.recordsPerSecond, c("symmetry.pymatgen")?.recordsPerSecond),
      ">=",
      10,
    ],
  ];
  const serverInfo = [];
  for (const q of ["NoQuery", "Query"]) {
    for (const paging of ["offset", "keyset"]) {
      const which = `${paging}, ${q === "Query" ? "with query" : "no query"}`;
      rows.push([
        `server.${paging}${q}.deep/first`,
        `server deep page / first page time, ${which}`,
        ratio(pagedMs(cases, `${paging}Deep${q}`), pagedMs(cases, `first${q}`)),
        "<=",
        1.5,
      ]);
      serverInfo.push([
        `server.rps.${paging}${q}.deep/first`,
        `server deep / first page time under autocannon, ${which}`,
        ratio(perRequest(c(`server.rps.${paging}Deep${q}`)), perRequest(c(`server.rps.first${q}`))),
      ]);
    }
  }
  // Each side's time per second of pw.x's own wall time: the machine's load slows both alike.
  const perPwSecond = (id) => ratio(seconds(c(id)), c(id)?.pwWallSeconds?.median);
  const info = [
    [
      "compute.queue/hand.r1.perPw",
      "compute, 1 running: queue / by hand, each per second of pw.x's own wall time (the load cancels out)",
      ratio(perPwSecond("compute.queue.r1"), perPwSecond("compute.hand.r1")),
    ],
    [
      "compute.queue/hand.r2.perPw",
      "compute, 2 running: queue / by hand, each per second of pw.x's own wall time",
      ratio(perPwSecond("compute.queue.r2"), perPwSecond("compute.hand.r2")),
    ],
    [
      "first.floor.cold/warm",
      "the results table's first-call requests replayed by plain undici + JSON.parse: first / second replay (fresh server and client process; the transport's own cold cost, the floor of the ratio above)",
      ratio(seconds(c("first.floor.cold")), seconds(c("first.floor.warm"))),
    ],
    [
      "first.results.root/warm",
      "results.toDataFrame band_gaps: first call from require('matframe') alone (it loads danfo) / second call",
      ratio(seconds(c("first.results.root")), seconds(c("first.results.warm"))),
    ],
    [
      "first.results.withImport/warm",
      "results.toDataFrame band_gaps: require('matframe') + danfo load + first call / second call",
      ratio(seconds(c("first.results.withImport")), seconds(c("first.results.warm"))),
    ],
    [
      "first.results.cold/warm.cpu",
      "results.toDataFrame band_gaps: the client process's CPU, first call (danfo loaded) / second call (the load moves it less than wall time)",
      ratio(cpu(c("first.results.cold")), cpu(c("first.results.warm"))),
    ],
    [
      "linkSmall.toDataFrame/measuredFloor",
      "link, the small collection (20,000 materials in a full run): Client.login + toDataFrame with the defaults / the measured floor (login, undici, c=6)",
      ratio(seconds(c("linkSmall.toDataFrame.defaults")), seconds(c("linkSmall.floor"))),
    ],
    [
      "linkSmall.measuredFloor/floor",
      "link, the small collection (20,000 materials in a full run): the measured floor / the link floor",
      ratio(seconds(c("linkSmall.floor")), linkSmall?.floorSeconds),
    ],
    [
      "linkSmall.toDataFrame.cold/measuredFloor.cold",
      "link, the small collection, cold: Client.login + toDataFrame with the defaults / the measured floor, cold",
      ratio(seconds(c("linkSmall.toDataFrame.defaults.cold")), seconds(c("linkSmall.floor.cold"))),
    ],
    [
      "linkSmall.measuredFloor.cold/floor",
      "link, the small collection, cold: the measured floor / the link floor",
      ratio(seconds(c("linkSmall.floor.cold")), linkSmall?.floorSeconds),
    ],
    [
      "class.wall/alone",
      "class: whole class's wall time / one student's alone",
      ratio(seconds(c("class.together")), seconds(c("class.alone"))),
    ],
    // In CPU time: what the machine's load does to each side's wall time cancels out.
    [
      "symmetry.cpu.cached/pymatgen",
      "symmetry throughput in CPU time: symmetryOf (cached per structure) / pymatgen",
      ratio(perCpu(c("symmetry.cached")), perCpu(c("symmetry.pymatgen"))),
    ],
    [
      "symmetry.cpu.real/pymatgen",
      "symmetry throughput in CPU time, 1,056 real distinct structures: symmetryOf / pymatgen",
      ratio(perCpu(c("symmetry.real")), perCpu(c("symmetry.real.pymatgen"))),
    ],
    [
      "symmetry.cpu.uncached/pymatgen",
      "symmetry throughput in CPU time, without the cache: symmetryOf (cache cleared before each structure) / pymatgen",
      ratio(perCpu(c("symmetry.uncached")), perCpu(c("symmetry.pymatgen"))),
    ],
    [
      "naive.fields/toDataFrame",
      "naive TypeScript time (toDataFrame's fields) / toDataFrame time",
      ratio(seconds(c("naive.fields")), seconds(c("toDataFrame.c3"))),
    ],
    // No client can beat the floor: this is the most the Python ratio could be against this server.
    [
      "python/floor.c3",
      "Python time / floor time (same fields), c=3: the ceiling of the Python ratio",
      ratio(seconds(c("python")), seconds(c("floor.columns.c3"))),
    ],
    [
      "toDataFrame.cpu/floor.c3",
      "toDataFrame client CPU / floor client CPU (same fields), c=3",
      ratio(cpu(c("toDataFrame.c3")), cpu(c("floor.columns.c3"))),
    ],
    [
      "iterate.offset.c1/floor",
      "iterate offset c=1 time / floor c=1 (full records)",
      ratio(seconds(c("iterate.offset.c1")), seconds(c("floor.full.c1"))),
    ],
    [
      "iterate.offset.c3/floor",
      "iterate offset c=3 time / floor c=3 (full records)",
      ratio(seconds(c("iterate.offset.c3")), seconds(c("floor.full.c3"))),
    ],
    [
      "iterate.keyset/floor.c1",
      "iterate keyset time / floor c=1 (full records)",
      ratio(seconds(c("iterate.keyset")), seconds(c("floor.full.c1"))),
    ],
    [
      "link.partitions4/offset",
      "link: exportParquet one offset walk (c=6) / 4 partitions (time)",
      ratio(seconds(c("link.exportParquet.offset")), seconds(c("link.exportParquet.p4"))),
    ],
    [
      "exportCsv.rss.big/small.keyset",
      "exportCsv peak RSS big / small, keyset",
      ratio(MiB(c("exportCsv.big.keyset")), MiB(c("exportCsv.small.keyset"))),
    ],
    [
      "partitionBy.rss.10x/1x",
      "hive dataset (partitionBy) peak RSS, 10x / 1x the rows",
      ratio(MiB(c("exportParquet.partitionBy.10x")), MiB(c("exportParquet.partitionBy.1x"))),
    ],
    ...serverInfo,
    [
      "server.cold.offsetDeep/first",
      "server deep / first page, offset, query never seen (cold)",
      ratio(seconds(c("server.cold.offsetDeep")), seconds(c("server.cold.offsetFirst"))),
    ],
    [
      "server.cold.keysetDeep/first",
      "server deep / first page, keyset, query never seen (cold)",
      ratio(seconds(c("server.cold.keysetDeep")), seconds(c("server.cold.offsetFirst"))),
    ],
  ];
  return [
    ...rows.map(([id, label, value, op, limit]) => ({
      id,
      label,
      value,
      target: { op, limit },
      met: value === null ? null : op === "<=" ? value <= limit : op === "<" ? value < limit : value >= limit,
    })),
    ...info.map(([id, label, value]) => ({ id, label, value })),
  ];
}

/** The targeted ratios that were measured and missed. */
function missedTargets(ratios) {
  return ratios.filter((r) => r.target && r.met === false);
}

module.exports = { computeRatios, missedTargets };
