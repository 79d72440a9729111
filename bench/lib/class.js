"use strict";
// The class on one laptop: one `matframe serve` with an account per student, one student alone,
// then the whole class at once (bench/cases/class.js), each repetition with accounts never used
// before, so a cost paid once per account shows in every measurement.
const { mkdtempSync, rmSync, writeFileSync } = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { startServerProcess } = require("./server-process");
const { runNodeCase } = require("./case-runner");

/** The accounts of one run: `warm` (unmeasured), then per repetition one alone and `students` together. */
function classAccounts(students, reps) {
  const account = (name) => ({ username: name, password: `pw-${name}-${Math.random().toString(36).slice(2)}` });
  return {
    warm: account("warm"),
    reps: Array.from({ length: reps }, (_, r) => ({
      alone: account(`r${r}-alone`),
      together: Array.from({ length: students }, (_, i) => account(`r${r}-s${i}`)),
    })),
  };
}

/**
 * Starts the class's server (`--synthetic materials`, the accounts from a users file, so no
 * password is on its command line) and runs `work(server, accounts)`; stops it whatever happens.
 */
async function withClassServer({ materials, students, reps }, work) {
  const accounts = classAccounts(students, reps);
  const all = [accounts.warm, ...accounts.reps.flatMap((r) => [r.alone, ...r.together])];
  const dir = mkdtempSync(path.join(os.tmpdir(), "matframe-bench-class-"));
  const usersFile = path.join(dir, "users.txt");
  writeFileSync(usersFile, all.map((a) => `${a.username}:${a.password}`).join("\n"), { mode: 0o600 });
  const server = await startServerProcess({ synthetic: materials, args: ["--users-file", usersFile] });
  try {
    return await work(server, accounts);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The two cases of one repetition: one student alone, then the class. */
function classCases({ server, rep, students }) {
  const common = { baseUrl: server.baseUrl, serverPid: server.pid, expected: server.materialCount };
  return [
    {
      group: "class",
      id: "class.alone",
      label: "class: one student alone (login, toDataFrame, a write)",
      script: "class.js",
      params: { ...common, accounts: [rep.alone], label: "class.alone" },
    },
    {
      group: "class",
      id: "class.together",
      label: `class: ${students} students at once (each: login, toDataFrame, a write)`,
      script: "class.js",
      params: { ...common, accounts: rep.together, label: "class.together" },
    },
  ];
}

/**
 * The class group: its own server, one student alone then the class, fresh accounts each
 * repetition; `measure` and `progress` are the harness's. Resolves to what the results file keeps.
 */
async function measureClass({ settings, runs, failures, labels, measure, progress }) {
  const { classMaterials: materials, students, reps } = settings;
  progress(`class: matframe serve --synthetic ${materials}, ${students} students at once against one alone`);
  return withClassServer({ materials, students, reps }, async (server, accounts) => {
    const params = { baseUrl: server.baseUrl, serverPid: server.pid, expected: server.materialCount };
    await runNodeCase("class.js", { ...params, accounts: [accounts.warm] }); // the server's cold code, unmeasured
    for (const [r, rep] of accounts.reps.entries()) {
      const cases = classCases({ server, rep, students });
      if (r === 0) labels.push(...cases);
      await measure(cases, { ...settings, reps: 1 }, runs, failures);
    }
    return { materials: server.materialCount, students };
  });
}

module.exports = { measureClass };
