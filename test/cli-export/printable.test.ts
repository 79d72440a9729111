import { describe, expect, it } from "vitest";
import { jsonLine, printable } from "../../src/cli/printable";
import { localName } from "../../src/client/collections/job-files";

// What a remote platform sends is shown on the user's terminal and names files on their disk:
// control characters are written out, names that would leave the chosen folder are refused.

describe("text from the platform", () => {
  it("writes out C0 and C1 controls, DEL and bidirectional overrides, and keeps other text", () => {
    expect(printable("a\u001b]0;title\u0007b")).toBe("a\\u001b]0;title\\u0007b");
    expect(printable("x\u009b2Jy\u007f")).toBe("x\\u009b2Jy\\u007f");
    expect(printable("gap\u202etxt.exe")).toBe("gap\\u202etxt.exe");
    expect(printable("Å-MoS₂ 🧪 (finished)")).toBe("Å-MoS₂ 🧪 (finished)");
  });

  it("a JSON line escapes what printable does, and U+2028/U+2029, and reads back as the same text", () => {
    // Every UTF-16 unit but the surrogates, which JSON.stringify escapes on its own when alone.
    for (let code = 0; code < 0x10000; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCharCode(code);
      const line = jsonLine({ name: `a${char}b` });
      const hex = code.toString(16).padStart(4, "0");
      const escaped = printable(char) !== char || code === 0x2028 || code === 0x2029;
      // C0 controls are JSON's own escapes (\n, \t, \u0001...); the others matframe's \uXXXX.
      if (code < 0x20) expect(line, hex).not.toContain(char);
      else if (escaped) expect(line, hex).toBe(`{"name":"a\\u${hex}b"}`);
      else if (char !== '"' && char !== "\\") expect(line, hex).toBe(`{"name":"a${char}b"}`);
      expect(JSON.parse(line), hex).toEqual({ name: `a${char}b` });
    }
    expect(printable("a\u2028b")).toBe("a\u2028b");
  });

  it("names a downloaded file by its name or the end of its key, never by a path", () => {
    expect(localName({ key: "jobs/abc/pw_scf.out", name: "pw_scf.out" })).toBe("pw_scf.out");
    expect(localName({ key: "jobs/abc/pw_scf.in" })).toBe("pw_scf.in");
    for (const name of ["..", ".", "../../.bashrc", "a/b", "a\\b", "x\u0000y", ""])
      expect(() => localName({ key: "jobs/abc/", name }), JSON.stringify(name)).toThrow(/no name that is safe/);
  });
});
