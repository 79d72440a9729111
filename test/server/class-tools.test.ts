import { describe, expect, it } from "vitest";
import { LoginThrottle, type Lockout } from "../../src/server/auth/login-throttle";
import { weakPasswordReason } from "../../src/server/auth/weak-passwords";
import { at } from "../support/checked";
import { PREFIX, rawRequest, startTestServer } from "./helpers";

describe("weak passwords", () => {
  it("names why a password is guessable, and passes a long unusual one", () => {
    expect(weakPasswordReason({ username: "demo", password: "demo" })).toMatch(/demo account/);
    expect(weakPasswordReason({ username: "Alice", password: "alice" })).toMatch(/account's name/);
    expect(weakPasswordReason({ username: "bob", password: "builder" })).toMatch(/shorter than 8/);
    expect(weakPasswordReason({ username: "carol", password: "Password1" })).toMatch(/most common/);
    expect(weakPasswordReason({ username: "dan", password: "zzzzzzzzzz" })).toMatch(/repeats one character/);
    expect(weakPasswordReason({ username: "erin", password: "wonderland-42" })).toBeUndefined();
  });
});

describe("the login throttle's unlock", () => {
  it("forgets one username's failures at every address and leaves other usernames locked", () => {
    const throttle = new LoginThrottle({ maxFailures: 2, windowMs: 60_000 });
    expect(throttle.recordFailure("alice", "10.0.0.1")).toBe(false);
    expect(throttle.recordFailure("alice", "10.0.0.1")).toBe(true);
    throttle.recordFailure("alice", "10.0.0.2");
    throttle.recordFailure("alice", "10.0.0.2");
    throttle.recordFailure("bob", "10.0.0.1");
    throttle.recordFailure("bob", "10.0.0.1");
    expect(throttle.unlock("alice")).toBe(2);
    expect(throttle.retryAfterSeconds("alice", "10.0.0.1")).toBe(0);
    expect(throttle.retryAfterSeconds("alice", "10.0.0.2")).toBe(0);
    expect(throttle.retryAfterSeconds("bob", "10.0.0.1")).toBeGreaterThan(0);
    expect(throttle.unlock("carol")).toBe(0);
  });
});

describe("startServer's class tools", () => {
  it("logs failed logins with the username only, reports the lockout, and unlocks without a restart", async () => {
    const lines: string[] = [];
    const lockouts: Lockout[] = [];
    const server = await startTestServer({
      users: ["alice:wonderland-42", "bob:builder-7734"],
      loginThrottle: { maxFailures: 2, onLockout: (lockout) => lockouts.push(lockout) },
      log: (line) => lines.push(line),
    });
    const login = (username: string, password: string) =>
      rawRequest(server, "POST", `${PREFIX}/login`, {
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ username, password }).toString(),
      });
    try {
      const bob = await login("bob", "builder-7734");
      expect(bob.status).toBe(200);
      expect((await login("alice", "nope-1")).status).toBe(401);
      expect((await login("alice\nGET / 200", "nope-2")).status).toBe(401);
      expect((await login("alice", "nope-3")).status).toBe(401);
      // 900 s from the first failure: a second less when a loaded machine spread the failures out.
      expect(lockouts).toEqual([
        { username: "alice", address: "127.0.0.1", failures: 2, retryAfterSeconds: expect.any(Number) },
      ]);
      const { retryAfterSeconds } = at(lockouts, 0, "the lockout");
      expect(retryAfterSeconds).toBeGreaterThan(840);
      expect(retryAfterSeconds).toBeLessThanOrEqual(900);
      expect(lines).toContain('login failed for "alice" from 127.0.0.1');
      expect(lines).toContain('login failed for "alice" from 127.0.0.1: locked out after 2 failures');
      // A name cannot forge a log line.
      expect(lines).toContain('login failed for "alice\\u000aGET / 200" from 127.0.0.1');
      expect(lines.join("\n")).not.toMatch(/nope|wonderland|builder/);
      expect((await login("alice", "wonderland-42")).status).toBe(429);
      expect(server.unlock("alice")).toBe(1);
      expect((await login("alice", "wonderland-42")).status).toBe(200);
      // Bob's session survived: nothing was restarted.
      const list = await rawRequest(
        server,
        "GET",
        `${PREFIX}/materials?projection=${encodeURIComponent('{"limit":1}')}`,
        { headers: { ...bob.body.data } },
      );
      expect(list.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
