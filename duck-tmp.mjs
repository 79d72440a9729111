import { DuckDBInstance } from "@duckdb/node-api";
const db = await DuckDBInstance.create(":memory:");
const c = await db.connect();
const r = await c.runAndReadAll(process.argv[2]);
console.log(r.getRowObjectsJson().slice(0, 8));
