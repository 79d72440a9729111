import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { cleanEnv } from "../cli-export/run-cli";
import { lockoutNotice } from "../../src/cli/serve-command";

// `matframe serve` as a teacher runs it: a process, its stderr, its input, its parent.
const ROOT = path.join(__dirname, "..", "..");
const BIN = path.join(ROOT, "dist", "cli", "main.js");

interface Serving {
  child: ChildProcess;
  baseUrl: Promise<string>;
  /** Resolves once stderr holds a match of `pattern`. */
  stderrMatching(pattern: RegExp): Promise<string>;
  readonly stderr: string;
  exited: Promise<number | null>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

function serve(
  command: string,
  args: string[],
  options: { cwd?: string; stdin?: "pipe" | "ignore"; env?: NodeJS.ProcessEnv } = {},
): Serving {
  const child = spawn(command, args, {
    cwd: options.cwd ?? ROOT,
    env: options.env ?? cleanEnv({}),
    stdio: [options.stdin ?? "pipe", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  const waiters: (() => void)[] = [];
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    for (const waiter of waiters) waiter();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const baseUrl = new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (stdout.includes("\n")) resolve(stdout.slice(0, stdout.indexOf("\n")));
    });
    void exited.then((code) => reject(new Error(`matframe serve exited with ${code}: ${stderr}`)));
  });
  // A run expected to exit is awaited through `exited`; its base URL then never comes.
  baseUrl.catch(() => undefined);
  return {
    child,
    baseUrl,
    exited,
    get stderr() {
      return stderr;
    },
    stderrMatching(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stderr);
          if (match) resolve(match[0]);
        };
        waiters.push(check);
        check();
        void exited.then(() => reject(new Error(`exited before stderr matched ${pattern}: ${stderr}`)));
      });
    },
  };
}

function login(baseUrl: string, username: string, password: string): Promise<number> {
  return fetch(`${baseUrl}/login`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username, password }).toString(),
  }).then((res) => res.status);
}

/**
 * Resolves when nothing listens on `port` any more (the server has stopped and freed it). The
 * server is a grandchild that notices on its own that its parent is gone, and tells no one: a
 * bounded poll of the port is the only way to see it.
 */
function portFreed(port: number): Promise<void> {
  return vi.waitFor(
    async () => {
      const refused = await new Promise<boolean>((resolve) => {
        const socket = connect(port, "127.0.0.1");
        socket.once("connect", () => {
          socket.destroy();
          resolve(false);
        });
        socket.once("error", () => resolve(true));
      });
      if (!refused) throw new Error(`port ${port} still accepts connections`);
    },
    { timeout: 30_000, interval: 200 },
  );
}

describe("passwords exposed off loopback", () => {
  it("refuses --user demo:demo on 0.0.0.0, as it refuses the built-in demo account", async () => {
    const run = serve(process.execPath, [BIN, "serve", "--host", "0.0.0.0", "--port", "0", "--user", "demo:demo"]);
    expect(await run.exited).toBe(1);
    expect(run.stderr).toMatch(
      /Refusing to listen on 0\.0\.0\.0 with the account demo:demo.*another password.*127\.0\.0\.1/,
    );
  });

  it("warns about each weak password by account name, never quoting the password", async () => {
    const run = serve(process.execPath, [
      BIN,
      "serve",
      "--host",
      "0.0.0.0",
      "--port",
      "0",
      "--quiet",
      "--user",
      "bob:bob",
      "--user",
      "carol:Tr0ub4",
      "--user",
      "dan:password1",
      "--user",
      "erin:a long unusual passphrase",
    ]);
    await run.baseUrl;
    await run.stderrMatching(/"dan" is one of the most common passwords/);
    expect(run.stderr).toMatch(
      /warning: the password of "bob" is the account's name, and 0\.0\.0\.0 is reachable from other machines/,
    );
    expect(run.stderr).toMatch(/warning: the password of "carol" is shorter than 8 characters/);
    expect(run.stderr).not.toMatch(/"erin"/);
    expect(run.stderr).not.toMatch(/Tr0ub4|password1/);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
  });

  it("says nothing on loopback, where only this machine's users can log in", async () => {
    const run = serve(process.execPath, [BIN, "serve", "--port", "0", "--user", "bob:bob"]);
    await run.baseUrl;
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(0);
    expect(run.stderr).not.toMatch(/warning/);
  });
});

describe("lockouts the teacher can see and lift", () => {
  it("words a lockout's length as the server's log does: seconds when short, minutes when long", () => {
    const notice = (retryAfterSeconds: number) =>
      lockoutNotice({ username: "alice", address: "10.0.0.7", failures: 2, retryAfterSeconds });
    expect(notice(30)).toContain("for 30 s after 2 failed logins");
    expect(notice(600)).toContain("for 10 minutes after 2 failed logins");
  });

  it("logs failed logins by username, announces the lockout, and `unlock NAME` on its input lets the student in", async () => {
    const run = serve(process.execPath, [
      BIN,
      "serve",
      "--port",
      "0",
      "--quiet",
      "--user",
      "alice:wonderland-42",
      "--max-failed-logins",
      "2",
      "--lockout",
      "10m",
    ]);
    const baseUrl = await run.baseUrl;
    expect(await login(baseUrl, "alice", "first-typo")).toBe(401);
    expect(await login(baseUrl, "alice", "second-typo")).toBe(401);
    const notice = await run.stderrMatching(
      /matframe serve: "alice" is locked out at \S+ for 10 minutes after 2 failed logins; to let them in now, type: unlock alice/,
    );
    expect(notice).toBeTruthy();
    expect(run.stderr).toMatch(/login failed for "alice" from 127\.0\.0\.1\n/);
    expect(run.stderr).not.toMatch(/typo/);
    // The right password is refused while locked out...
    expect(await login(baseUrl, "alice", "wonderland-42")).toBe(429);
    expect(run.stderr).toMatch(/login refused for "alice" from 127\.0\.0\.1: locked out for 10 minutes more/);
    // ...until the teacher types the command; sessions of others and the server keep running.
    run.child.stdin!.write("unlock alice\n");
    await run.stderrMatching(/unlocked "alice": it can log in again now/);
    expect(await login(baseUrl, "alice", "wonderland-42")).toBe(200);
    run.child.stdin!.write("unlock bob\nhelp\n");
    await run.stderrMatching(/commands: unlock NAME/);
    expect(run.stderr).toMatch(/"bob" was not locked out/);
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(0);
  });

  it("prints a hostile username escaped everywhere (C0 and C1), and the hint typed back unlocks it", async () => {
    const run = serve(process.execPath, [
      BIN,
      "serve",
      "--port",
      "0",
      "--quiet",
      "--user",
      "alice:wonderland-42",
      "--max-failed-logins",
      "2",
    ]);
    const baseUrl = await run.baseUrl;
    // The teacher's page is printed once, at start, on the teacher's terminal only.
    const teacher = await run.stderrMatching(/the class at a glance, for you only \(do not show it\): \S+\n/);
    expect(teacher).toMatch(/: http:\/\/127\.0\.0\.1:\d+\/teacher\?key=[A-Za-z0-9_-]{43}\n$/);
    const hostile = "z\r\nmatframe serve: stopped (SIGTERM)\u001b]0;pwned\u0007\u009b2J";
    expect(await login(baseUrl, hostile, "one")).toBe(401);
    expect(await login(baseUrl, hostile, "two")).toBe(401);
    const hint = await run.stderrMatching(/type: unlock .*\n/);
    expect(run.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(run.stderr).not.toMatch(/^matframe serve: stopped/m);
    expect(hint).toBe(
      'type: unlock "z\\u000d\\u000amatframe serve: stopped (SIGTERM)\\u001b]0;pwned\\u0007\\u009b2J"\n',
    );
    expect(await login(baseUrl, hostile, "three")).toBe(429);
    run.child.stdin!.write(`${hint.slice("type: ".length)}`);
    await run.stderrMatching(
      /unlocked "z\\u000d\\u000amatframe serve: stopped \(SIGTERM\)\\u001b\]0;pwned\\u0007\\u009b2J"/,
    );
    expect(await login(baseUrl, hostile, "four")).toBe(401);
    expect(run.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(0);
  });

  it("keeps serving when its input is closed from the start (a background job), and stops on Ctrl-C", async () => {
    const run = serve(process.execPath, [BIN, "serve", "--port", "0", "--quiet"], { stdin: "ignore" });
    const baseUrl = await run.baseUrl;
    expect(await login(baseUrl, "demo", "demo")).toBe(200);
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(0);
  });
});

describe("npx matframe serve and its parent", () => {
  let project: string | undefined;
  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it("stops and frees the port when the npx process is killed by its PID", async () => {
    // A project with matframe installed, as a class's folder has it; npx runs the local bin.
    project = mkdtempSync(path.join(tmpdir(), "matframe-npx-"));
    writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({ name: "class", version: "1.0.0", private: true }),
    );
    mkdirSync(path.join(project, "node_modules", ".bin"), { recursive: true });
    symlinkSync(ROOT, path.join(project, "node_modules", "matframe"));
    symlinkSync(
      path.join("..", "matframe", "dist", "cli", "main.js"),
      path.join(project, "node_modules", ".bin", "matframe"),
    );
    const run = serve("npx", ["--no-install", "matframe", "serve", "--port", "0"], { cwd: project });
    const port = Number(new URL(await run.baseUrl).port);
    // SIGKILL: npm gets no chance to pass a signal on to its child.
    run.child.kill("SIGKILL");
    await portFreed(port);
  }, 60_000);
});
