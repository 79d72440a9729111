// What a remote user sends reaches the teacher's terminal only through quoteForTerminal.
import { describe, expect, it } from "vitest";
import { commandArgument, escapeForTerminal, quoteForTerminal, readCommandArgument } from "../../src/terminal-text";

/** Any character a terminal acts on: C0 but line feed, DEL, C1. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe("quoteForTerminal", () => {
  it("escapes C0, DEL and C1 controls (U+009B is a one-character CSI), so no line is forged", () => {
    const name = "z\r\nmatframe serve: stopped (SIGTERM)\u001b]0;pwned\u0007\u009b31m\u007f\u0085";
    const quoted = quoteForTerminal(name, 200);
    expect(quoted).not.toMatch(RAW_CONTROL);
    expect(quoted).not.toContain("\n");
    expect(quoted).toBe(
      '"z\\u000d\\u000amatframe serve: stopped (SIGTERM)\\u001b]0;pwned\\u0007\\u009b31m\\u007f\\u0085"',
    );
    // The quoted form is JSON: the console reads the very name back.
    expect(JSON.parse(quoted)).toBe(name);
  });

  it("escapes bidirectional overrides, zero-width characters, separators and lone surrogates", () => {
    const quoted = quoteForTerminal("a\u202eb\u2066c\u200bd\u2028e\u2029f\ud800g");
    expect(quoted).toBe('"a\\u202eb\\u2066c\\u200bd\\u2028e\\u2029f\\ud800g"');
  });

  it("keeps letters of any script, quotes and backslashes escaped, and cuts long names visibly", () => {
    expect(quoteForTerminal('Zoë "the" \\ 李')).toBe('"Zoë \\"the\\" \\\\ 李"');
    expect(quoteForTerminal("x".repeat(70))).toBe(`"${"x".repeat(64)}"...`);
    // A cut through a surrogate pair leaves no lone half on the terminal.
    expect(quoteForTerminal(`${"x".repeat(63)}😀`)).toBe(`"${"x".repeat(63)}\\ud83d"...`);
  });
});

describe("commands typed back", () => {
  it("writes a plain name as it is and any other quoted, and reads both back", () => {
    for (const name of ["alice", "bob.smith@school.example", "z\r\nforged", "two words", 'a"b', "\u009b"]) {
      expect(readCommandArgument(commandArgument(name))).toBe(name);
    }
    expect(commandArgument("alice")).toBe("alice");
    expect(commandArgument("two words")).toBe('"two words"');
    expect(readCommandArgument('"unterminated')).toBeUndefined();
  });

  it("escapes a path for the request log without quotes", () => {
    expect(escapeForTerminal("/materials/\u009b2J")).toBe("/materials/\\u009b2J");
  });
});
