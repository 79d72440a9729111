import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { anchorsOf, docFiles, prose, root } from "../support/docs";
import { capturedAll } from "../support/checked";

// Every link between the README and the guides resolves: the file exists and, when the link names
// a heading, the heading is there.

describe("links in the README and the guides", () => {
  it.each(docFiles())("%s links only to files and headings that exist", (file) => {
    const text = readFileSync(join(root, file), "utf8");
    const broken: string[] = [];
    for (const target of capturedAll(/\]\(([^)\s]+)\)/g, prose(text))) {
      if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
      const [path = "", anchor] = target.split("#");
      const resolved = path === "" ? file : normalize(join(dirname(file), path));
      if (!existsSync(join(root, resolved))) {
        broken.push(`${target}: no file ${resolved}`);
        continue;
      }
      if (
        anchor !== undefined &&
        resolved.endsWith(".md") &&
        !anchorsOf(readFileSync(join(root, resolved), "utf8")).has(anchor)
      ) {
        broken.push(`${target}: ${resolved} has no heading #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
