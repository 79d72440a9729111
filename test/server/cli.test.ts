import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

// The CLI as users run it: the built bin entry, spawned as a process (npm test builds first).
const ROOT = path.join(__dirname, "..", "..");
const BIN = path.join(ROOT, "dist", "cli", "main.js");

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function run(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): { child: ChildProcessWithoutNullStreams; done: Promise<Finished> } {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first.`);
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const done = new Promise<Finished>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

function firstLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const end = text.indexOf("\n");
      if (end !== -1) {
        child.stdout.off("data", onData);
        resolve(text.slice(0, end));
      }
    };
    child.stdout.on("data", onData);
    child.on("close", () => reject(new Error(`exited before printing a line; stdout: ${text}`)));
  });
}

function expectNoStack(text: string) {
  expect(text).not.toMatch(/\n\s+at /);
}

describe("matframe serve as a process", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`prints the base URL first, serves, and stops cleanly on ${signal}`, async () => {
      const { child, done } = run(["serve", "--port", "0", "--synthetic", "50"]);
      const baseUrl = await firstLine(child);
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/2018-10-01$/);
      const login = await fetch(`${baseUrl}/login`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "username=demo&password=demo",
      });
      const credentials = ((await login.json()) as { data: Record<string, string> }).data;
      const list = await fetch(`${baseUrl}/materials?projection=${encodeURIComponent('{"limit": 500}')}`, {
        headers: credentials,
      });
      // The 29 bundled and 50 synthetic materials, and the demo account's default (a copy of silicon).
      expect(((await list.json()) as { data: unknown[] }).data.length).toBe(80);
      child.kill(signal);
      const finished = await done;
      expect(finished.code).toBe(0);
      expect(finished.stderr).toContain(`stopped (${signal})`);
      // Request lines are logged, secrets are not.
      expect(finished.stderr).toMatch(/POST \/api\/2018-10-01\/login 200 \d+ms/);
      expect(finished.stderr).not.toContain(credentials["X-Auth-Token"]);
      expect(finished.stdout.trim()).toBe(baseUrl);
    });
  }

  it("keeps the default columns' JSON in the background and says so, unless --no-warm-up", async () => {
    const warmed = run(["serve", "--port", "0", "--synthetic", "50", "--quiet"]);
    // Read from the start: with 79 records the line can come before the URL is read.
    let text = "";
    const said = new Promise<void>((resolve) => {
      warmed.child.stderr.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        // The 29 bundled and 50 synthetic materials (the account's own default is not served to
        // all), after the records a results table reads.
        const kept =
          /kept the JSON of (\d+) records \((\d+) of them for results tables\) in \d+ ms of background work \(done\)/.exec(
            text,
          );
        if (kept && Number(kept[1]) - Number(kept[2]) === 79 && Number(kept[2]) > 1056) resolve();
      });
    });
    await firstLine(warmed.child);
    await said;
    warmed.child.kill("SIGTERM");
    expect((await warmed.done).code).toBe(0);

    const cold = run(["serve", "--port", "0", "--synthetic", "50", "--no-warm-up"]);
    const baseUrl = await firstLine(cold.child);
    const login = await fetch(`${baseUrl}/login`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "username=demo&password=demo",
    });
    expect(login.status).toBe(200);
    cold.child.kill("SIGTERM");
    const finished = await cold.done;
    expect(finished.code).toBe(0);
    expect(finished.stderr).toMatch(/POST \/api\/2018-10-01\/login 200/);
    expect(finished.stderr).not.toContain("kept the JSON");
  });

  it("accepts --user (repeatable) and --data", async () => {
    const data = path.join(ROOT, "data", "materials.json");
    const { child, done } = run([
      "serve",
      "--port",
      "0",
      "--user",
      "ann:pw-ann",
      "--user",
      "ben:pw-ben",
      "--data",
      data,
      "--quiet",
    ]);
    const baseUrl = await firstLine(child);
    for (const [user, password] of [
      ["ann", "pw-ann"],
      ["ben", "pw-ben"],
    ] as const) {
      const res = await fetch(`${baseUrl}/login`, {
        method: "POST",
        body: new URLSearchParams({ username: user, password }),
      });
      expect(res.status).toBe(200);
    }
    child.kill("SIGTERM");
    const finished = await done;
    expect(finished.code).toBe(0);
    expect(finished.stderr).not.toMatch(/login 200/); // --quiet
    expect(finished.stderr).not.toContain("pw-ann");
  });

  it("--users-file: accounts from a file, so no password is in the process list", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "matframe-users-"));
    const file = path.join(dir, "class.txt");
    writeFileSync(file, "# the class of Tuesday\nann:pw-ann-file\n\nben:pw:with:colons\n", { mode: 0o600 });
    // On every address (a class): the printed URL names 0.0.0.0, so stderr names this machine's addresses.
    const { child, done } = run(["serve", "--host", "0.0.0.0", "--port", "0", "--users-file", file, "--quiet"]);
    const printed = await firstLine(child);
    expect(printed).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/api\/2018-10-01$/);
    const baseUrl = printed.replace("0.0.0.0", "127.0.0.1");
    for (const [user, password] of [
      ["ann", "pw-ann-file"],
      ["ben", "pw:with:colons"],
    ] as const) {
      const res = await fetch(`${baseUrl}/login`, {
        method: "POST",
        body: new URLSearchParams({ username: user, password }),
      });
      expect(res.status, user).toBe(200);
    }
    // The command line names the file, not the passwords (what `ps` shows).
    expect(readFileSync(`/proc/${child.pid}/cmdline`, "utf8")).not.toContain("pw-ann");
    child.kill("SIGTERM");
    const served = await done;
    expect(served.code).toBe(0);
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && !a.internal && a.family === "IPv4");
    if (external) expect(served.stderr).toContain(`from others, use ${printed.replace("0.0.0.0", external.address)}`);
    // The teacher's page is named where a browser on this machine opens it, not at 0.0.0.0.
    const port = new URL(printed).port;
    expect(served.stderr).toContain(`(do not show it): http://127.0.0.1:${port}/teacher?key=`);
    // A bad line is named by its number, never quoted (it holds a password).
    writeFileSync(file, "ann:ok\nbad-line-secret\n");
    const bad = await run(["serve", "--port", "0", "--users-file", file]).done;
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--users-file .*class\.txt, line 2: expected NAME:PASSWORD/);
    expect(bad.stderr).not.toContain("bad-line-secret");
    const missing = await run(["serve", "--users-file", path.join(dir, "absent.txt")]).done;
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/--users-file .*absent\.txt: cannot read it \(ENOENT\)/);
    // Spaces around the colon would be part of the name and the password: refused, not kept.
    writeFileSync(file, "ann:ok\nalice : wonderland\n");
    const spaced = await run(["serve", "--port", "0", "--users-file", file]).done;
    expect(spaced.code).toBe(1);
    expect(spaced.stderr).toMatch(/line 2: a space around the name, the colon or the password would be part of them/);
    expect(spaced.stderr).not.toContain("wonderland");
    // A file every local user can read is served, with a warning.
    writeFileSync(file, "ann:pw-ann-file\n");
    chmodSync(file, 0o644);
    const readable = run(["serve", "--port", "0", "--users-file", file]);
    await firstLine(readable.child);
    readable.child.kill("SIGTERM");
    expect((await readable.done).stderr).toMatch(
      /warning: --users-file .*class\.txt can be read by every user of this machine; chmod 600 it/,
    );
    rmSync(dir, { recursive: true, force: true });
  });

  const usageErrors: Array<[string[], RegExp]> = [
    [["serve", "--bogus"], /unknown option --bogus\. Run "matframe serve --help" for the options/],
    [["serve", "--port", "abc"], /--port takes a whole number/],
    [["serve", "--port", "99999"], /--port takes a whole number/],
    [["serve", "--synthetic", "-3"], /synthetic/],
    [["serve", "--user", "nocolon"], /NAME:PASSWORD/],
    [
      ["serve", "--user", "al\u202eice:pw-secret"],
      /^matframe serve: The user name "al\\u202eice" holds U\+202E \(a bidirectional control\) at character 3; a name may not hold control, formatting or line and paragraph separator characters \(letters, digits, spaces, dots, hyphens, apostrophes and @ are fine\)\. \(on the command line: --user NAME:PASSWORD or --users-file FILE\)\n$/,
    ],
    [["serve", "--lockout", "15"], /--lockout needs a unit: 15s, 15m or 15h\./],
    [["serve", "--max-running-jobs", "0"], /--max-running-jobs must be at least 1\./],
    [["serve", "--max-running-jobs", "two"], /--max-running-jobs takes a whole number from 0 to 1024/],
    [["serve", "--job-time-limit", "10"], /--job-time-limit needs a unit: 10s, 10m or 10h\./],
    // The flags in the sentence, once, and not the library's option after it.
    [
      ["serve", "--host", "0.0.0.0"],
      /^matframe serve: Refusing to listen on 0\.0\.0\.0 with the built-in demo\/demo account, which anyone could use\. Give your own accounts \(--user NAME:PASSWORD or --users-file FILE\), or listen on 127\.0\.0\.1\.\n$/,
    ],
    [["serve", "--data", "/nonexistent/file.json"], /no such file/],
    [["serve", "extra"], /unexpected argument "extra": every option starts with --/],
    [["frobnicate"], /unknown command "frobnicate"/],
    [[], /Usage: matframe/],
  ];
  for (const [args, message] of usageErrors) {
    it(`exits 1 with a clear message for: matframe ${args.join(" ")}`, async () => {
      const finished = await run(args).done;
      expect(finished.code).toBe(1);
      expect(finished.stderr).toMatch(message);
      expect(finished.stdout).toBe("");
      expectNoStack(finished.stderr);
    });
  }

  it("names --port once, with what to give it, when the port is taken", async () => {
    const taken = createNetServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = taken.address() as AddressInfo;
      const finished = await run(["serve", "--port", String(port)]).done;
      expect(finished.code).toBe(1);
      expect(finished.stderr).toBe(
        `matframe serve: Cannot listen on 127.0.0.1:${port}: port ${port} is already in use; give --port another value (0 picks a free one).\n`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it("says at start when pw.x is not on PATH, before a job finds out", async () => {
    const bare = run(["serve", "--port", "0", "--no-warm-up"], { ...process.env, PATH: "/nonexistent" });
    await firstLine(bare.child);
    bare.child.kill("SIGTERM");
    const { stderr } = await bare.done;
    expect(stderr).toContain(
      "warning: pw.x (Quantum ESPRESSO) is not on PATH, so Quantum ESPRESSO jobs will end in error: install it,",
    );
  });

  it("prints help and the version", async () => {
    const help = await run(["--help"]).done;
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("serve");
    const serveHelp = await run(["serve", "--help"]).done;
    expect(serveHelp.code).toBe(0);
    expect(serveHelp.stdout).toContain("--synthetic N");
    const version = await run(["--version"]).done;
    const manifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(version.stdout.trim()).toBe(manifest.version);
  });

  it("has a shebang so it runs as a bin", () => {
    expect(readFileSync(BIN, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });
});
