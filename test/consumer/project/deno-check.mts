// matframe in a Deno script: imported from the project's node_modules by its package name, with
// its types (the consumer test runs `deno check` and `deno run` on this file).
import { API_VERSION, Client } from "matframe";
import { startServer } from "matframe/server";
import { matframeCommand, show, type Table } from "matframe/notebook";

const server = await startServer({ port: 0 });
const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
const page = await client.materials.list({
  query: { formula: "Si" },
  projection: { fields: { formula: 1, lattice: 1 }, limit: 1 },
});
const a: number = page[0].lattice.a;
const table: Table = show(page, { output: { write: () => true } });
await client.logout();
await server.close();
const version: string = API_VERSION;
console.log(
  JSON.stringify({
    version,
    formula: page[0].formula,
    a: Number(a.toFixed(3)),
    rows: table.slice.rows.length,
    cli: matframeCommand().command === Deno.execPath(),
  }),
);
