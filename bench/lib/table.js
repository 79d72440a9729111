"use strict";
// Markdown tables for stdout (and for pasting into the README).

const fixed = (value, digits) => (typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "-");
const spread = (s, digits) =>
  s ? `${fixed(s.median, digits)} (${fixed(s.min, digits)}-${fixed(s.max, digits)})` : "-";
const thousands = (value) =>
  typeof value === "number" && Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "-";

function markdown(header, rows, align) {
  const line = (cells) => `| ${cells.join(" | ")} |`;
  return [line(header), line(align.map((a) => (a === "r" ? "---:" : "---"))), ...rows.map(line)].join("\n");
}

/** Client cases: time, records/s, the client's own CPU time and peak RSS, medians (min-max). */
function clientTable(cases, entries) {
  const rows = entries
    .filter((e) => cases[e.id])
    .map((e) => {
      const s = cases[e.id];
      return [
        e.label,
        thousands(s.records),
        spread(s.seconds, 2),
        fixed(s.coldSeconds, 2),
        thousands(s.recordsPerSecond),
        fixed(s.cpuSeconds?.median, 2),
        spread(s.peakRssMiB, 0),
      ];
    });
  return markdown(
    [
      "case",
      "records",
      "seconds warm, median (min-max)",
      "seconds cold (fresh server and client)",
      "records/s",
      "client CPU s",
      "peak RSS MiB, median (min-max)",
    ],
    rows,
    ["l", "r", "r", "r", "r", "r", "r"],
  );
}

/**
 * Server pages: median ms one request at a time (the paired case), then requests/s and p99
 * latency under autocannon; then the cold pages.
 */
function serverTable(cases, pageLabels, coldEntries) {
  const paired = cases["server.paired"];
  const rows = Object.entries(pageLabels).map(([key, label]) => {
    const rps = cases[`server.rps.${key}`];
    return [
      label,
      fixed(paired?.[`${key}Ms`]?.median, 1),
      spread(rps?.requestsPerSecond, 1),
      fixed(rps?.latencyP99Ms?.median, 0),
    ];
  });
  for (const e of coldEntries) {
    if (cases[e.id]) rows.push([e.label, fixed(cases[e.id].latencyMs?.median, 1), "-", "-"]);
  }
  return markdown(
    [
      "server page (500 full records)",
      "ms per request, one at a time",
      "requests/s under autocannon, median (min-max)",
      "p99 ms",
    ],
    rows,
    ["l", "r", "r", "r"],
  );
}

/** Ratios with their targets and whether each was met (`checked: false` for --quick/--only runs). */
function ratioTable(ratios, { checked = true } = {}) {
  const rows = ratios.map((r) => {
    const sign = { "<=": "≤", "<": "<", ">=": "≥" }[r.target?.op] ?? r.target?.op;
    const target = r.target ? `${sign} ${r.target.limit}` : "(no target)";
    const missed = checked ? "MISSED" : "missed (not checked in this run)";
    const status = !r.target ? "" : r.met === null ? "not measured" : r.met ? "met" : missed;
    return [r.label, fixed(r.value, 2), target, status];
  });
  return markdown(["ratio", "value", "target", ""], rows, ["l", "r", "r", "l"]);
}

/** The link cases beside their floor (compressed bytes through the bandwidth + round trips). */
function linkTable(cases, link, entries) {
  const floorOf = (id) =>
    id === "link.iterate"
      ? link.floorSeconds.full
      : id.startsWith("link.python") || id.startsWith("link.results")
        ? undefined
        : link.floorSeconds.columns;
  const rows = entries
    .filter((e) => cases[e.id])
    .map((e) => {
      const s = cases[e.id];
      const floor = floorOf(e.id);
      return [
        e.label,
        spread(s.seconds, 2),
        fixed(floor, 2),
        floor ? fixed(s.seconds.median / floor, 2) : "-",
        spread(s.peakRssMiB, 0),
      ];
    });
  const mb = (w) => (w.bytes / 1e6).toFixed(1);
  const header =
    `link ${link.rttMs} ms / ${link.mbit} Mbit/s; bytes on the wire (whole records, br): ${mb(link.wire.full)} MB in ${link.wire.full.pages} pages; ` +
    `default columns' fields: br ${mb(link.wire.columns)} MB, gzip ${mb(link.wire.columnsGzip)} MB, uncompressed ${mb(link.wire.columnsIdentity)} MB`;
  return `${header}\n\n${markdown(["case over the link", "seconds, median (min-max)", "link floor s", "x floor", "peak RSS MiB"], rows, ["l", "r", "r", "r", "r"])}`;
}

/**
 * The link at 20,000 materials: the measured floor and matframe, each warm (a server that served
 * the walk before) and cold (a fresh server and client), beside the link floor (login included).
 */
function smallLinkTable(cases, link, entries) {
  const floor = (which) => cases[`linkSmall.floor${which}`]?.seconds?.median;
  const rows = entries
    .filter((e) => cases[e.id] || cases[`${e.id}.cold`])
    .flatMap((e) =>
      ["", ".cold"].map((which) => {
        const s = cases[`${e.id}${which}`];
        const measured = floor(which);
        return [
          `${e.label}, ${which ? "cold" : "warm"}`,
          spread(s?.seconds, 2),
          fixed(s?.cpuSeconds?.median, 2),
          fixed(link.floorSeconds, 2),
          fixed(s ? s.seconds.median / link.floorSeconds : undefined, 2),
          fixed(s && measured ? s.seconds.median / measured : undefined, 2),
        ];
      }),
    );
  const loopback = cases["linkSmall.loopback.cold"];
  if (loopback)
    rows.push([
      "the server's own pace: the measured floor's walk on loopback, no link, cold",
      spread(loopback.seconds, 2),
      fixed(loopback.cpuSeconds?.median, 2),
      fixed(link.floorSeconds, 2),
      fixed(loopback.seconds.median / link.floorSeconds, 2),
      "-",
    ]);
  const header =
    `link ${link.rttMs} ms / ${link.mbit} Mbit/s, ${thousands(link.materials)} materials: default columns' fields ${(link.wire.bytes / 1e6).toFixed(2)} MB (br) in ${link.wire.pages} pages; ` +
    `link floor ${fixed(link.floorSeconds, 2)} s = bytes / bandwidth + ${Math.ceil(link.wire.pages / link.inFlight)} waves of ${link.inFlight} pages + the login (1 round trip + the server's ${link.loginSeconds === undefined ? "password check" : `${fixed(link.loginSeconds * 1000, 0)} ms to answer it on loopback`}); ` +
    "warm: a server that served the walk before; cold: a fresh server, proxy and client for each run";
  return `${header}\n\n${markdown(["case over the link", "seconds, median (min-max)", "client CPU s", "link floor s", "x link floor", "x measured floor (same warmth)"], rows, ["l", "r", "r", "r", "r", "r"])}`;
}

/** The class cases: the whole group's wall time, each student's, and the server's CPU per student. */
function classTable(cases, entries) {
  const rows = entries
    .filter((e) => cases[e.id])
    .map((e) => {
      const s = cases[e.id];
      return [
        e.label,
        fixed(s.students?.median, 0),
        spread(s.seconds, 2),
        `${fixed(s.studentSecondsMedian?.median, 2)} / ${fixed(s.studentSecondsP95?.median, 2)}`,
        `${fixed(s.loginSecondsMedian?.median, 2)} / ${fixed(s.frameSecondsMedian?.median, 2)} / ${fixed(s.writeSecondsMedian?.median, 2)}`,
        fixed(s.serverCpuSeconds?.median, 2),
        spread(s.serverCpuPerStudent, 3),
        fixed(s.cpuSeconds?.median, 2),
      ];
    });
  return markdown(
    [
      "class case",
      "students",
      "wall s, median (min-max)",
      "per student s, median / p95",
      "login / toDataFrame / write s (median)",
      "server CPU s",
      "server CPU s per student",
      "clients' CPU s",
    ],
    rows,
    ["l", "r", "r", "r", "r", "r", "r", "r"],
  );
}

/** The job queue beside pw.x by hand: time for the same jobs, jobs per minute, and the ratio. */
function computeTable(cases, compute, entries) {
  const rows = entries
    .filter((e) => cases[e.id])
    .map((e) => {
      const s = cases[e.id];
      const hand = e.id.startsWith("compute.queue.") ? cases[e.id.replace(".queue.", ".hand.")] : undefined;
      return [
        e.label,
        spread(s.seconds, 2),
        fixed(s.jobsPerMinute?.median, 1),
        fixed(s.pwWallSeconds?.median, 2),
        hand ? fixed(s.seconds.median / hand.seconds.median, 2) : "-",
      ];
    });
  const header = `job queue: ${compute.jobs} jobs per running limit, k-points ${Array.isArray(compute.kgrid) ? compute.kgrid.join("×") : compute.kgrid}`;
  return `${header}\n\n${markdown(["compute case", "seconds, median (min-max)", "jobs/min", "pw.x's own wall s, summed", "x by hand"], rows, ["l", "r", "r", "r", "r"])}`;
}

module.exports = { clientTable, serverTable, ratioTable, linkTable, smallLinkTable, classTable, computeTable };
