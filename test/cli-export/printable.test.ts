import { describe, expect, it } from "vitest";
import { printable } from "../../src/cli/printable";
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

  it("names a downloaded file by its name or the end of its key, never by a path", () => {
    expect(localName({ key: "jobs/abc/pw_scf.out", name: "pw_scf.out" })).toBe("pw_scf.out");
    expect(localName({ key: "jobs/abc/pw_scf.in" })).toBe("pw_scf.in");
    for (const name of ["..", ".", "../../.bashrc", "a/b", "a\\b", "x\u0000y", ""])
      expect(() => localName({ key: "jobs/abc/", name }), JSON.stringify(name)).toThrow(/no name that is safe/);
  });
});
