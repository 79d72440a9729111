// npm runs the package's `prepare` script on `npm ci`, and again whenever `npx matframe` is run in
// a clone (npm installs the clone's own package to run its bin). A prepare that rebuilt every time
// deleted a current dist/ for most of a minute under whatever was using it: a notebook, a running
// `matframe serve`, the tests beside it. It builds only a dist/ older than its sources.
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a CommonJS script without types
import { isStale } from "../../scripts/ensure-build.js";

const root = join(__dirname, "../..");
const stamp = join(root, "dist", "index.js");

describe("npm's prepare script", () => {
  it("keeps a current dist/ as it is, and links the notebooks' matframe", () => {
    // Were dist/ stale, prepare would rebuild it under the tests running beside this one.
    expect(existsSync(stamp) && !isStale(), "dist/ is missing or older than src/: run npm run build first").toBe(true);
    const before = statSync(stamp).mtimeMs;
    execFileSync("npm", ["run", "--silent", "prepare"], { cwd: root, stdio: "pipe" });
    expect(statSync(stamp).mtimeMs).toBe(before);
    expect(lstatSync(join(root, "notebooks", "node_modules", "matframe")).isSymbolicLink()).toBe(true);
  });
});
