import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { first } from "../structure/support/checked";

// Issue 13: `df` on a cell's last line showed danfo's internals. Each case runs in a fresh Node
// process (the display is registered once per process, when matframe/notebook loads).

const DIST = join(__dirname, "../../dist");

function run(script: string): string {
  return execFileSync(process.execPath, ["-e", script], { encoding: "utf8", env: { ...process.env, DIST } });
}

const FRAME = `
  const util = require("node:util");
  const { toDataFrame } = require(process.env.DIST);
  const records = [{ _id: "a", formula: "Si", lattice: { a: 3.867 } }, { _id: "b", formula: "GaAs", lattice: { a: 3.998 } }];
`;

describe("a DataFrame printed or displayed", () => {
  it("without matframe/notebook: danfo's text table, not its internals", () => {
    const out = run(`${FRAME}
      toDataFrame(records, { columns: ["formula", "lattice.a"] }).then((df) => {
        process.stdout.write(util.inspect(df) + "\\n---\\n" + JSON.stringify(df[Symbol.for("Jupyter.display")]()));
      });`);
    const [inspected, bundle] = first(out.split("\n---\n"), 2, "the script's output");
    expect(inspected).not.toContain("$data");
    expect(inspected).toContain("GaAs");
    expect(inspected).toContain("lattice.a");
    expect(Object.keys(JSON.parse(bundle))).toEqual(["text/plain"]);
  });

  it("with matframe/notebook: the table show() gives, as text in a script and as HTML for Deno's kernel", () => {
    const out = run(`${FRAME}
      const { toTextTable } = require(process.env.DIST + "/notebook");
      toDataFrame(records, { columns: ["formula", "lattice.a"] }).then((df) => {
        // A frame made by danfo's own methods (head, sortValues: danfo's base class) shows the same way.
        const head = df.sortValues("lattice.a").head(1);
        process.stdout.write(JSON.stringify({
          inspected: util.inspect(df), text: toTextTable(df), bundle: df[Symbol.for("Jupyter.display")](),
          head: util.inspect(head), headText: toTextTable(head),
        }));
      });`);
    const { inspected, text, bundle, head, headText } = JSON.parse(out) as {
      inspected: string;
      text: string;
      bundle: Record<string, string>;
      head: string;
      headText: string;
    };
    expect(head).toBe(headText);
    expect(head).toContain("Si");
    expect(inspected).toBe(text);
    expect(bundle["text/html"]).toMatch(/<table[\s\S]*GaAs[\s\S]*<\/table>/);
    expect(bundle["text/plain"]).toBe(text);
  });
});
