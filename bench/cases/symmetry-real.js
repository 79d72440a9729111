"use strict";
// Symmetry of real, all-distinct structures, as a user's own collection meets it: `symmetryOf` on
// each of the 1,056 Materials Project structures of matminer's dielectric set (data/
// reference-materials.json; CC BY 4.0, see data/README.md), once each, with nothing cached,
// reading the space group's number (what the pymatgen side gives). No structure repeats, so no
// result is looked up. Throughput as a process that has done this work before has it (as the
// 100,000-structure cases do after their first few thousand): two unmeasured passes, in which V8
// compiles the code (a fresh process's first pass over this set costs about twice the third, its
// second about 1.3 times), then every result forgotten.
const { readFileSync } = require("node:fs");
const path = require("node:path");
const { runCase, startClock, expectCount, distIndex } = require("../lib/case-kit");

const { symmetryOf } = require(distIndex());
const { clearSymmetryCache } = require(path.join(path.dirname(distIndex()), "structure", "symmetry.js"));

runCase(async ({ file }) => {
  const records = JSON.parse(readFileSync(file, "utf8"));
  const distinct = new Set(records.map((r) => JSON.stringify([r.lattice, r.basis])));
  expectCount("symmetry-real (distinct structures)", distinct.size, records.length);
  for (let pass = 0; pass < 2; pass++) {
    clearSymmetryCache();
    for (const record of records) symmetryOf(record); // unmeasured: moyo loaded, the code compiled
  }
  clearSymmetryCache();
  const groups = new Set();
  const stop = startClock();
  for (const record of records) groups.add(symmetryOf(record).spaceGroupNumber);
  const clock = stop();
  return { ...clock, records: records.length, spaceGroups: groups.size };
});
