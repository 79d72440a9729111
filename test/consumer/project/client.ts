// A consumer's script: client only, no danfojs-node or vega needed. Compiled with skipLibCheck off.
import { Client, symmetryOf, MissingDependencyError, type MaterialRecord } from "matframe";
import { startServer } from "matframe/server";
import { barChart } from "matframe/notebook";

async function main(): Promise<void> {
  const server = await startServer({ port: 0 });
  const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
  try {
    // Records are typed by what the projection asks for: no casts.
    const [silicon] = await client.materials.list({ query: { formula: "Si" }, projection: { limit: 5 } });
    if (!silicon) throw new Error("the local platform has no silicon");
    const a: number = silicon.lattice.a;
    let count = 0;
    let widest = 0;
    for await (const m of client.materials.iterate({ fields: { formula: 1, "lattice.a": 1 } })) {
      const formula: string = m.formula;
      if (formula.length > 0) count += 1;
      widest = Math.max(widest, m.lattice.a);
    }
    const one: MaterialRecord = await client.materials.get(silicon._id);
    // The WebAssembly symmetry finder, loaded from the installed package (ESM, through require(esm)).
    const spaceGroup: string = symmetryOf(one).spaceGroupSymbol;
    const frame = await client.materials.toDataFrame({ columns: ["formula"] }).then(
      () => "loaded",
      (error: unknown) => (error instanceof MissingDependencyError ? `missing ${error.packageName}` : String(error)),
    );
    const chart = await barChart([{ formula: "Si" }], { x: "formula" }).then(
      () => "drawn",
      (error: unknown) => (error instanceof MissingDependencyError ? `missing ${error.packageName}` : String(error)),
    );
    console.log(JSON.stringify({ a, count, widest, name: one.name, spaceGroup, frame, chart }));
  } finally {
    await client.logout();
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
