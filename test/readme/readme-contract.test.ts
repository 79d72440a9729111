import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startServer, type ServerHandle } from "../../src/server";
import { CLI, cleanEnv } from "../cli-export/run-cli";
import { docFiles } from "../support/docs";

// The README and the guides in docs/ are a contract: every code block runs as written. JavaScript blocks run
// here with `require("matframe")` resolved as in a user's project; JSON blocks parse; every shell
// line is run by a test or by CI, and this file says which (a line nobody runs fails here).

const run = promisify(execFile);
const root = join(__dirname, "../..");
const ciScript = readFileSync(join(root, ".ci", "run"), "utf8");

interface Block {
  lang: string;
  code: string;
  section: string;
}

function readmeBlocks(): Block[] {
  const blocks: Block[] = [];
  for (const file of docFiles()) {
    const text = readFileSync(join(root, file), "utf8");
    const fence = /^ *```(\w*)\n([\s\S]*?)^ *```/gm;
    const headings = [...text.matchAll(/^#{2,3} (.+)$/gm)].map((m) => ({ at: m.index!, title: m[1] }));
    for (const m of text.matchAll(fence)) {
      const section = headings.filter((h) => h.at < m.index!).at(-1)?.title ?? "";
      const [, lang = "", code = ""] = m;
      blocks.push({ lang, code, section: file === "README.md" ? section : `${file}: ${section}` });
    }
  }
  return blocks;
}

const blocks = readmeBlocks();
const shellLines = blocks
  .filter((b) => b.lang === "sh")
  .flatMap((b) => b.code.split("\n").map((line) => ({ line: line.replace(/\s+#.*$/, "").trim(), section: b.section })))
  .filter(({ line }) => line !== "" && !line.startsWith("#"));

/** Who runs a README shell line, or undefined when nobody does. */
function coveredBy(line: string, section: string): string | undefined {
  if (section === "Use matframe in your own project")
    return "test/consumer/consumer.test.ts (runs the section's commands in order)";
  if (/(^|\| )(\w+=\S+ )*npx matframe export /.test(line)) return "test/cli-export/readme-examples.test.ts";
  if (/^npx matframe serve\b/.test(line)) return "this file (serve lines)";
  if (/(^|\| )npx matframe login /.test(line)) return "test/client/credentials.test.ts (runs the README's login lines)";
  if (/^export API_HOST=/.test(line))
    return "test/cli-export/platform-source.test.ts (the export with the same variables)";
  if (/^npm install --prefix \/tmp\/node24 |^PATH=\/tmp\/node24\//.test(line))
    return ".ci/run (the same two steps, for Node 22 and 24)";
  if (/^npx deno (check|run --allow-all) deno-check\.mts$|^npm install --save-dev deno$/.test(line))
    return "test/consumer/consumer.test.ts (Deno in a fresh project)";
  if (line === "npx deno jupyter --install")
    return ".ci/run (npx deno jupyter --install --force) and test/consumer/consumer.test.ts";
  if (/^node scripts\/run-notebooks\.js --kernel deno /.test(line))
    return "test/notebooks-deno.test.ts (every notebook on Deno's kernel, into a scratch directory)";
  const ciLines = ciScript.split("\n").map((l) => l.trim());
  if (ciLines.includes(line)) return ".ci/run";
  const elsewhere: Record<string, string> = {
    "npm ci": ".ci/run (npm ci --no-audit --no-fund)",
    "npm run notebooks":
      "test/notebooks.test.ts runs scripts/run-notebooks.js on every notebook (into a scratch directory)",
    "npx vitest run test/reliability": "npm test runs the same files",
    "npm run load -- --small": "test/reliability/load-small.test.ts",
    "npm run load": "not in CI: the full load run takes minutes; load-small.test.ts runs the same harness small",
    "npm run bench -- --quick --only structures --synthetic N": "not a literal command (N is a size)",
    "npm run bench -- --only link":
      "not in CI: minutes over the simulated link; .ci/run runs the link group with --quick",
    "npm run bench -- --only link --rtt 80 --mbit 20": "not in CI, as above",
    "npm run bench -- --only link --reps 5": "not in CI, as above",
    "npm run build": "npm test runs it first",
    "npm run lint": "npm test runs it after the type check",
    "npm run bench -- --only link --synthetic 20000 --reps 5":
      "not in CI: minutes over the simulated link; .ci/run runs the link group with --quick",
    "npm run bench": "not in CI: the full run takes about 10 minutes; .ci/run runs the same harness with --quick",
  };
  return elsewhere[line];
}

let demo: ServerHandle;
let dir: string;

beforeAll(async () => {
  demo = await startServer({ port: 0 });
  dir = mkdtempSync(join(tmpdir(), "matframe-readme-"));
  // `require("matframe")` and `import ... from "matframe"` resolve to this checkout, as they
  // would to an installed package.
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(root, join(dir, "node_modules", "matframe"), "junction");
});

afterAll(async () => {
  await demo?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("README shell lines", () => {
  it.each(shellLines.map((l) => [l.line, l.section] as const))("%s is run somewhere", (line, section) => {
    const by = coveredBy(line, section);
    expect(by, `README line run by no test and not by .ci/run (section "${section}"): ${line}`).toBeDefined();
  });

  const serveLines = [...new Set(shellLines.map((l) => l.line).filter((line) => /^npx matframe serve\b/.test(line)))];
  it.each(serveLines)("%s starts and prints its base URL", async (line) => {
    writeFileSync(join(dir, "my-materials.ndjson"), '{"_id":"m1","formula":"Si"}\n{"_id":"m2","formula":"GaAs"}\n');
    // The documented default port may be taken on a test machine: the same command on a free port.
    const args = line
      .replace(/^npx matframe serve\s*/, "")
      .split(/\s+/)
      .filter(Boolean);
    const portAt = args.indexOf("--port");
    if (portAt >= 0) args[portAt + 1] = "0";
    else args.push("--port", "0");
    const child = spawn(process.execPath, [CLI, "serve", ...args, "--quiet"], { cwd: dir, env: cleanEnv({}) });
    try {
      const first = await new Promise<string>((resolve, reject) => {
        let out = "";
        let err = "";
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          out += chunk;
          if (out.includes("\n")) resolve(out.slice(0, out.indexOf("\n")));
        });
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
        child.on("exit", (code) => reject(new Error(`matframe serve exited with ${code}: ${err}`)));
      });
      expect(first).toMatch(/^http:\/\/[^/]+:\d+\/api\/2018-10-01$/);
    } finally {
      child.kill("SIGTERM");
    }
  });
});

describe("README code blocks", () => {
  // The device sign-in waits for a person at the verification page: test/client/device-login.test.ts runs it and approves its code.
  const js = blocks.filter((b) => b.lang === "js" && !b.code.startsWith("// device-login.js\n"));
  let examplesRun = 0;
  it("has JavaScript examples", () => expect(js.length).toBeGreaterThanOrEqual(5));

  it.each(js.map((b, i) => [`${b.section} #${i + 1}`, b.code] as const))("%s runs as written", async (_name, code) => {
    // Numbered, not random: the blocks run one after another, and a failing one is found by its number.
    const file = join(dir, `example-${(examplesRun += 1)}.js`);
    writeFileSync(file, code);
    const { stdout } = await run(process.execPath, [file], {
      cwd: dir,
      env: cleanEnv({ MATFRAME_BASE_URL: demo.baseUrl }),
      timeout: 60_000,
    });
    expect(stdout.length).toBeGreaterThan(0);
  });

  it.each(blocks.filter((b) => b.lang === "json").map((b) => [b.section, b.code] as const))(
    "JSON in %s parses",
    (_section, code) => {
      expect(() => JSON.parse(code)).not.toThrow();
    },
  );
});
