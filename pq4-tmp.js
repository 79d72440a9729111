const { startServer, Client } = require("/work/main/dist/index.js");
const hp = require("/work/main/node_modules/hyparquet-writer");
const { planColumns } = require("/work/main/dist/frame/column-spec.js");
const { ColumnBuilder } = require("/work/main/dist/frame/column-builder.js");
(async () => {
  const server = await startServer({ port: 0, synthetic: 100000 });
  const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
  const plan = planColumns();
  const b = new ColumnBuilder(plan);
  for await (const p of client.materials.pages({ fields: plan.fields })) b.addPage(p);
  await server.close();
  const built = b.finish();
  const types = built.dtypes.map(d => d === "string" ? "STRING" : "DOUBLE");
  for (const variant of [...["snappy","nostats","gzip1","nostats-gzip1"],"snappy", "none", "nostats", "nostats-none", "gzip1", "nodict","snappy","nostats","gzip1","nostats-gzip1"]) {
    const t = performance.now();
    const w = new hp.ByteWriter(1 << 20);
    const codec = variant.includes("none") ? "UNCOMPRESSED" : variant.startsWith("gzip") ? "GZIP" : "SNAPPY";
    const columnData = built.names.map((name, c) => ({ name, data: built.data[name], type: types[c], nullable: true, statistics: !variant.includes("nostats"), ...(variant === "nodict" ? { encoding: "PLAIN" } : {}) }));
    hp.parquetWrite({ writer: w, columnData, codec, rowGroupSize: 50000, compressors: { GZIP: (i) => require("zlib").gzipSync(i, { level: 1 }) } });
    console.log(variant, (performance.now() - t).toFixed(0), "ms", w.offset);
  }
})();
