"use strict";
// A class on one laptop: `students` accounts at once against one `matframe serve` (the teacher's
// laptop), each logging in, taking `toDataFrame()` of the whole collection with the default
// columns and saving one material of its own (a copy of the first row's structure). The figure
// that matters is the server's CPU time per student, read from the server process's
// /proc/<pid>/stat (every thread of it: the symmetry worker of writes counts too) before and after.
// The students share this one client process (30 notebooks' CPU is not the server's, and 30
// processes loading danfo would measure the machine, not the server); each has its own Client,
// so its own connections and its own session.
require("danfojs-node");
const { readFileSync } = require("node:fs");
const { runCase, startClock, expectCount, distIndex } = require("../lib/case-kit");

const { Client } = require(distIndex());

/** The CPU seconds (user + system, all threads) a process has used so far, from /proc. */
function processCpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces, so split after its closing paren).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticksPerSecond = 100; // USER_HZ, 100 on Linux x64
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

async function student(baseUrl, { username, password }, expected, index) {
  const started = performance.now();
  const client = await Client.login({ baseUrl, username, password });
  try {
    const loggedIn = performance.now();
    const df = await client.materials.toDataFrame({ onWarning: () => {} });
    expectCount(`student ${index}'s toDataFrame`, df.shape[0], expected);
    const framed = performance.now();
    const first = await client.materials.get(String(df.column("_id").values[0]));
    const mine = await client.materials.create({
      name: `${username}: ${first.name}`,
      lattice: first.lattice,
      basis: first.basis,
      tags: ["class"],
    });
    if (!mine._id) throw new Error(`student ${index}'s write came back without an _id`);
    const done = performance.now();
    return {
      seconds: (done - started) / 1000,
      loginSeconds: (loggedIn - started) / 1000,
      frameSeconds: (framed - loggedIn) / 1000,
      writeSeconds: (done - framed) / 1000,
    };
  } finally {
    await client.close();
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const p95 = (values) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1];

runCase(async ({ baseUrl, accounts, serverPid, expected }) => {
  const serverCpuBefore = processCpuSeconds(serverPid);
  const stop = startClock();
  const each = await Promise.all(accounts.map((account, i) => student(baseUrl, account, expected, i)));
  const clock = stop();
  const serverCpuSeconds = processCpuSeconds(serverPid) - serverCpuBefore;
  const times = each.map((s) => s.seconds);
  return {
    ...clock,
    records: expected * accounts.length,
    students: accounts.length,
    serverCpuSeconds,
    serverCpuPerStudent: serverCpuSeconds / accounts.length,
    studentSecondsMedian: median(times),
    studentSecondsP95: p95(times),
    loginSecondsMedian: median(each.map((s) => s.loginSeconds)),
    frameSecondsMedian: median(each.map((s) => s.frameSeconds)),
    writeSecondsMedian: median(each.map((s) => s.writeSeconds)),
  };
});
