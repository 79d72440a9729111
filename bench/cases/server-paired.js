"use strict";
// Time per page of the server alone, measured in pairs: one connection, one request at a time,
// each round asking for every page once (first, deep, ...) so that whatever else the machine is
// doing hits every page alike. The deep/first ratio comes from these medians; sustained
// requests/s under load come from autocannon (server-requests.js).
const { Pool } = require("undici");
const { runCase } = require("../lib/case-kit");

runCase(async ({ origin, pages, headers, rounds, warmup = 3 }) => {
  const pool = new Pool(origin, { connections: 1 });
  const times = Object.fromEntries(Object.keys(pages).map((name) => [name, []]));
  const names = Object.keys(pages);
  for (let round = 0; round < warmup + rounds; round++) {
    // Rotate the order, so no page always follows the same one.
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length];
      const start = process.hrtime.bigint();
      const { statusCode, body } = await pool.request({ path: pages[name], method: "GET", headers });
      const text = await body.text();
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (statusCode !== 200) throw new Error(`${name} answered ${statusCode}: ${text.slice(0, 200)}`);
      if (round >= warmup) times[name].push(ms);
    }
  }
  await pool.close();
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const result = { seconds: 0 };
  for (const name of names) result[`${name}Ms`] = median(times[name]);
  result.seconds = names.reduce((sum, name) => sum + result[`${name}Ms`], 0) / 1000;
  return result;
});
