// A consumer's script with danfojs-node installed: the DataFrame is typed, never `any`.
import { Client, startServer, type DataFrame } from "matframe";

async function main(): Promise<void> {
  const server = await startServer({ port: 0 });
  const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
  try {
    const df: DataFrame = await client.materials.toDataFrame({ columns: ["formula", "lattice.a"] });
    const mean: number = df.column("lattice.a").mean();
    const [rows, columns] = df.shape;
    console.log(JSON.stringify({ rows, columns, names: df.columns, mean: Math.round(mean * 1000) / 1000 }));
  } finally {
    await client.logout();
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
