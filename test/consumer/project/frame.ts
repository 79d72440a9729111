// A consumer's script with danfojs-node installed: the DataFrame is typed, never `any`; a
// scientist filters it with a boolean mask, groups it, and writes the filtered table back to a file.
import { Client, exportCsv, type DataFrame, type Series } from "matframe";
import { startServer } from "matframe/server";

async function main(): Promise<void> {
  const server = await startServer({ port: 0 });
  const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
  try {
    const df: DataFrame = await client.materials.toDataFrame({
      columns: ["formula", "lattice.a", "derivedProperties.density", "derivedProperties.symmetry.spaceGroupSymbol"],
    });
    const mean: number = df.column("lattice.a").mean();
    const [rows, columns] = df.shape;
    const dense: Series = df.column("derivedProperties.density").gt(3);
    const filtered: DataFrame = df.query(dense);
    const groups: DataFrame = df.groupby(["derivedProperties.symmetry.spaceGroupSymbol"]).count();
    const written = await exportCsv(filtered, "dense.csv");
    console.log(
      JSON.stringify({
        rows,
        columns,
        names: df.columns,
        mean: Math.round(mean * 1000) / 1000,
        dense: filtered.shape[0],
        groups: groups.shape[0],
        written: written.items,
      }),
    );
  } finally {
    await client.logout();
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
