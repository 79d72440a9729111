import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src";
import { captured } from "../support/checked";
import { type ServeProcess, startServe } from "../reliability/support/cli";

// `matframe serve` gives each account its own copy of silicon (account defaults), so demo lists
// one material more than the server serves. The start-up line says both numbers, and the one it
// gives for demo is the count demo's client walks.

let serve: ServeProcess | undefined;

afterEach(async () => {
  await serve?.stop();
  serve = undefined;
});

/** The start-up line on stderr, once the server has written it (its data events, not a timer). */
function startLine(running: ServeProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const look = (): void => {
      const line = running.stderr.split("\n").find((l) => l.startsWith("serving "));
      if (line !== undefined) resolve(line);
    };
    running.child.stderr.on("data", look);
    look();
    void running.done.then((f) => reject(new Error(`matframe serve exited first: ${f.stderr}`)));
  });
}

async function demoCount(baseUrl: string): Promise<number> {
  const client = await Client.login({ baseUrl, username: "demo", password: "demo" });
  let n = 0;
  for await (const _ of client.materials.iterate({ fields: { _id: 1 } })) n++;
  await client.close();
  return n;
}

describe("matframe serve's start-up count", () => {
  it("names what demo will list: the served materials and its own copy of silicon", async () => {
    serve = await startServe();
    const line = await startLine(serve);
    const served = Number(captured(/^serving (\d+) materials \(0 synthetic\) at /, line));
    const visible = Number(captured(/; demo sees (\d+) \(these and 1 of its own\)$/, line));
    expect(visible).toBe(served + 1);
    expect(await demoCount(serve.baseUrl)).toBe(visible);
  });

  it("gives the served count alone when accounts hold nothing of their own", async () => {
    serve = await startServe(["--no-account-defaults"]);
    const line = await startLine(serve);
    const served = Number(captured(/^serving (\d+) materials \(0 synthetic\) at \S+$/, line));
    expect(await demoCount(serve.baseUrl)).toBe(served);
  });
});
