"use strict";
// The local platform's job queue (the `compute` group): N Si total-energy jobs (the bank's
// espresso "Total Energy" workflow on bulk silicon, mp-149, as notebook 09 submits them) to a
// fresh `matframe serve --max-running-jobs R`, timed from the first submit to the last `finished`.
// The jobs are created before the clock starts (creating is not computing). `kgrid` replaces the
// unit's k-point grid in a copy of the workflow (the quick run's smaller job). Writes the first
// job's rendered pw_scf.in to `inputFile`, for the same input run by hand.
const { writeFileSync } = require("node:fs");
const { runCase, startClock, distIndex } = require("../lib/case-kit");
const { pwWall } = require("../lib/pw-wall");

const { Client } = require(distIndex());

/** A bank workflow copied into the account with `kgrid` in each unit's context. */
async function workflowWithGrid(client, bank, kgrid) {
  const copy = structuredClone(bank);
  for (const key of ["_id", "owner", "creator", "createdAt", "updatedAt", "slug"]) delete copy[key];
  for (const subworkflow of copy.subworkflows)
    for (const unit of subworkflow.units) unit.context = { ...unit.context, kgrid };
  return client.workflows.create(copy);
}

/** One file of a job, by its signed URL. */
async function jobFile(client, id, name) {
  const [file] = (await client.jobs.files(id)).filter((f) => f.name === name);
  if (!file) throw new Error(`Job ${id} lists no ${name}.`);
  const response = await fetch(file.signedUrl);
  if (!response.ok) throw new Error(`${name} of job ${id} answered ${response.status}.`);
  return response.text();
}

runCase(async ({ baseUrl, credentials, jobs, kgrid, inputFile }) => {
  const client = new Client({ baseUrl, ...credentials });
  const [si] = await client.materials.list({ query: { "external.id": "mp-149" } });
  const [bank] = await client.bankWorkflows.list({
    query: { name: "Total Energy", "subworkflows.application.name": "espresso" },
  });
  if (!si || !bank) throw new Error("The server has no mp-149 or no espresso Total Energy bank workflow.");
  const workflow = kgrid ? await workflowWithGrid(client, bank, kgrid) : bank;
  const ids = [];
  for (let i = 0; i < jobs; i++) {
    const job = await client.jobs.create({ material: si._id, workflow: workflow._id, name: `Si total energy ${i}` });
    ids.push(job._id);
  }
  const stop = startClock();
  for (const id of ids) await client.jobs.submit(id);
  // Polls every 50-100 ms: the wait's own granularity stays far below a job's seconds.
  const done = await client.jobs.waitFor(ids, { interval: 50, maxInterval: 100 });
  const timed = stop();
  const failed = done.filter((job) => job.status !== "finished");
  if (failed.length > 0)
    throw new Error(`${failed.length} job(s) did not finish: ${failed[0].status}, ${failed[0].localRun?.reason ?? ""}`);
  writeFileSync(inputFile, await jobFile(client, ids[0], "pw_scf.in"));
  // pw.x's own wall time per job (its last line says it): the rest of the queue's time is its own.
  let pwWallSeconds = 0;
  for (const id of ids) pwWallSeconds += pwWall(await jobFile(client, id, "pw_scf.out"));
  await client.close();
  return { ...timed, records: jobs, jobsPerMinute: (jobs / timed.seconds) * 60, pwWallSeconds };
});
