"use strict";
// The results table of band gaps, two ways. `view`: `client.results.toDataFrame` (a page of
// properties, then its jobs and materials by `_id: {$in}`, one request each). `perValue`: the way
// the platform's example notebooks build it with its Python client, here in plain fetch: jobs
// listed in pages, then per job its band-gap unit found in the embedded workflow, the property
// asked for once per value (`properties.get_indirect_band_gap` and `get_direct_band_gap`: a query
// on `source.info.jobId`, `source.info.unitId` and `data.name` each) and its material read by id,
// one request at a time, then `new DataFrame(rows)`. `maxItems` bounds either (the per-value way
// takes minutes over a far link); compare `secondsPerRow`.
const { DataFrame } = require("danfojs-node");
const { runCase, startClock, distIndex } = require("../lib/case-kit");

const { Client } = require(distIndex());

async function perValue({ baseUrl, credentials, maxItems }) {
  const headers = { "X-Account-Id": credentials.accountId, "X-Auth-Token": credentials.authToken };
  const get = async (path, search = {}) => {
    const query = new URLSearchParams(
      Object.fromEntries(Object.entries(search).map(([k, v]) => [k, JSON.stringify(v)])),
    );
    const response = await fetch(`${baseUrl}/${path}${query.size ? `?${query}` : ""}`, { headers });
    if (!response.ok) throw new Error(`perValue: ${path} answered ${response.status}`);
    return (await response.json()).data;
  };
  const rows = [];
  for (let skip = 0; rows.length < maxItems; skip += 100) {
    const jobs = await get("jobs", {
      query: { status: "finished", tags: "reference" },
      projection: { sort: { _id: 1 }, skip, limit: 100 },
    });
    if (jobs.length === 0) break;
    for (const job of jobs) {
      if (rows.length >= maxItems) break;
      const subworkflow = job.workflow.subworkflows.find((s) =>
        s.units.some((u) => (u.results ?? []).some((r) => r.name === "band_gaps")),
      );
      const unit = subworkflow.units.find((u) => (u.results ?? []).some((r) => r.name === "band_gaps"));
      const gap = async (type) => {
        const [property] = await get("properties", {
          query: { "source.info.jobId": job._id, "source.info.unitId": unit.flowchartId, "data.name": "band_gaps" },
        });
        return property?.data.values.find((v) => v.type === type)?.value ?? null;
      };
      const indirect = await gap("indirect");
      const direct = await gap("direct");
      const material = await get(`bank-materials/${job._material._id}`);
      rows.push({
        "material._id": material._id,
        "material.formula": material.formula,
        "job._id": job._id,
        "job.status": job.status,
        "unit.flowchartId": unit.flowchartId,
        "application.name": subworkflow.application.name,
        "model.type": subworkflow.model.type,
        "model.subtype": subworkflow.model.subtype,
        "method.type": subworkflow.model.method.type,
        "method.subtype": subworkflow.model.method.subtype,
        "band_gaps.direct": direct,
        "band_gaps.indirect": indirect,
      });
    }
  }
  return new DataFrame(rows).shape[0];
}

runCase(async ({ baseUrl, credentials, clientOptions = {}, mode, maxItems = 1056 }) => {
  const stop = startClock();
  let records;
  if (mode === "perValue") {
    records = await perValue({ baseUrl, credentials, maxItems });
  } else {
    const client = new Client({ baseUrl, ...credentials, ...clientOptions });
    const df = await client.results.toDataFrame({ properties: ["band_gaps"], maxItems, onWarning: () => {} });
    records = df.shape[0];
    await client.close();
  }
  const clock = stop();
  if (records !== maxItems) throw new Error(`results (${mode}) read ${records} rows, expected ${maxItems}.`);
  return { ...clock, records, secondsPerRow: clock.seconds / records };
});
