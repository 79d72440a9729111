"use strict";
// The flags of `npm run bench -- [flags]`.
const { parseArgs } = require("node:util");

const USAGE = `Usage: npm run bench -- [options]

  --quick            small sizes, one repetition, targets not checked (CI smoke);
                     writes bench/results-quick.json, never bench/results.json
  --reps N           repetitions per case (default 3; the median is reported)
  --synthetic N      materials for the main server (default 100000; quick 5000)
  --big N            materials for the large export server (default 1000000; quick 20000)
  --duration S       seconds per autocannon run (default 5; quick 1)
  --only a,b         run only these groups: floor, iterate, frame, naive, python, export, parquet, server, link,
                     link-small (only the 20,000-material link, cold and warm), structures, symmetry, class, first, compute
  --link-materials N materials of the link group's second server, read with login (default 20000; quick 3000)
  --students N       students of the class group, all at once (default 30; quick 4)
  --class-materials N  materials the class's server holds (default 5000; quick 1000)
  --rtt MS           round trip of the simulated link (group link; default 40)
  --mbit N           bandwidth of the simulated link each way, Mbit/s (default 50)
  --cold             also time each client case once on a fresh server, and the link-small cases
                     --reps times each on fresh servers (default in a full run)
  --warm-only        leave the cold figures out
  --cpu-prof         run node cases with --cpu-prof, profiles in bench/profiles/
  --out FILE         results file (default bench/results.json, quick bench/results-quick.json)
  -h, --help         show this help`;

const GROUPS = [
  "floor",
  "iterate",
  "frame",
  "naive",
  "python",
  "export",
  "parquet",
  "server",
  "link",
  "link-small",
  "structures",
  "symmetry",
  "class",
  "first",
  "compute",
];

function positiveInteger(text, flag) {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1)
    throw new Error(`${flag} takes a whole number of at least 1, not "${text}".`);
  return Number(text);
}

/** The resolved settings of one bench run; throws an Error with a usage message on bad flags. */
function readArgs(argv) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      quick: { type: "boolean", default: false },
      reps: { type: "string" },
      synthetic: { type: "string" },
      big: { type: "string" },
      duration: { type: "string" },
      only: { type: "string" },
      rtt: { type: "string" },
      mbit: { type: "string" },
      students: { type: "string" },
      "link-materials": { type: "string" },
      "class-materials": { type: "string" },
      cold: { type: "boolean", default: false },
      "warm-only": { type: "boolean", default: false },
      "cpu-prof": { type: "boolean", default: false },
      out: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const quick = values.quick;
  const only = values.only ? values.only.split(",").map((s) => s.trim()) : GROUPS;
  for (const group of only) {
    if (!GROUPS.includes(group)) throw new Error(`--only: unknown group "${group}"; groups are ${GROUPS.join(", ")}.`);
  }
  const settings = {
    help: values.help,
    quick,
    reps: positiveInteger(values.reps, "--reps") ?? (quick ? 1 : 3),
    synthetic: positiveInteger(values.synthetic, "--synthetic") ?? (quick ? 5_000 : 100_000),
    big: positiveInteger(values.big, "--big") ?? (quick ? 20_000 : 1_000_000),
    duration: positiveInteger(values.duration, "--duration") ?? (quick ? 1 : 5),
    groups: new Set(only),
    rttMs: positiveInteger(values.rtt, "--rtt") ?? 40,
    mbit: positiveInteger(values.mbit, "--mbit") ?? 50,
    linkMaterials: positiveInteger(values["link-materials"], "--link-materials") ?? (quick ? 3_000 : 20_000),
    students: positiveInteger(values.students, "--students") ?? (quick ? 4 : 30),
    classMaterials: positiveInteger(values["class-materials"], "--class-materials") ?? (quick ? 1_000 : 5_000),
    // A fresh server per client case: about 2.5 s of start-up each at 100,000 materials.
    cold: values["warm-only"] ? false : values.cold || !quick,
    cpuProf: values["cpu-prof"],
    out: values.out ?? (quick ? "bench/results-quick.json" : "bench/results.json"),
    // Targets are claims about the full run; a partial or small run cannot confirm or refute them.
    checkTargets: !quick && !values.only,
  };
  if (quick && settings.out.replace(/\\/g, "/").endsWith("bench/results.json")) {
    throw new Error("--quick never writes bench/results.json (it holds the full run); pick another --out.");
  }
  if (!quick && settings.reps < 3 && !values.only) {
    throw new Error(
      "A full run needs --reps 3 or more (the issue asks for the median of at least 3); use --quick for less.",
    );
  }
  return settings;
}

module.exports = { readArgs, USAGE, GROUPS };
