"use strict";
// The few raw API calls the harness itself makes (log in once, look up a cursor), with undici.
// undici is required where it is used: a case that times loading it (floor.js with
// `loadInClock`) must not have it loaded by this file first.
const request = (...args) => require("undici").request(...args);

const DEMO = { username: "demo", password: "demo" };

/**
 * Logs in (as demo/demo unless `account` says), through `pool` when given; resolves to the two
 * headers every later request needs.
 */
async function login(baseUrl, account = DEMO, pool = undefined) {
  const options = {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(account).toString(),
  };
  const { statusCode, body } = pool
    ? await pool.request({ ...options, path: `${new URL(baseUrl).pathname}/login` })
    : await request(`${baseUrl}/login`, options);
  const parsed = JSON.parse(await body.text());
  if (statusCode !== 200) throw new Error(`Login to ${baseUrl} failed with ${statusCode}: ${parsed.message}`);
  return { accountId: parsed.data["X-Account-Id"], authToken: parsed.data["X-Auth-Token"] };
}

/** The request headers for these credentials. */
function authHeaders({ accountId, authToken }) {
  return { "X-Account-Id": accountId, "X-Auth-Token": authToken, accept: "application/json" };
}

/** `.../materials?query=...&projection=...`, encoded the way the client encodes it. */
function materialsUrl(baseUrl, query, projection) {
  return `${baseUrl}/materials?${new URLSearchParams({ query: JSON.stringify(query), projection: JSON.stringify(projection) })}`;
}

/** One page of `_id`s; used to find the keyset cursor that lands on a given offset. */
async function idAt(baseUrl, credentials, query, skip) {
  const url = materialsUrl(baseUrl, query, { fields: { _id: 1 }, sort: { _id: 1 }, skip, limit: 1 });
  const { statusCode, body } = await request(url, { headers: authHeaders(credentials) });
  const parsed = JSON.parse(await body.text());
  if (statusCode !== 200 || parsed.data.length !== 1)
    throw new Error(`No record at skip ${skip} of ${JSON.stringify(query)} (${statusCode}).`);
  return parsed.data[0]._id;
}

module.exports = { login, authHeaders, materialsUrl, idAt };
