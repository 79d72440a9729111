// Setup file of the `core` project, whose files share their worker's process and modules (vitest's
// `isolate: false`: loading the modules once per worker, not once per file, halves the project's
// time). A file that leaves the process changed would change the files after it, in an order
// that differs from run to run; this file runs before each test file and fails the file that
// leaves the environment, fake timers or a Deno global behind, after putting them back. Module
// caches (responses, symmetry, compiled projections) are emptied after every file, whose use of
// them is no fault, and a cache its hook did not empty fails the file.
import { afterAll, vi } from "vitest";
import { resetModuleCaches } from "./module-caches";

const envAtStart = { ...process.env };

afterAll(() => {
  const left: string[] = [];
  const unreset = resetModuleCaches();
  for (const name of new Set([...Object.keys(envAtStart), ...Object.keys(process.env)])) {
    if (process.env[name] === envAtStart[name]) continue;
    left.push(`process.env.${name}`);
    if (envAtStart[name] === undefined) delete process.env[name];
    else process.env[name] = envAtStart[name];
  }
  if (vi.isFakeTimers()) {
    left.push("fake timers");
    vi.useRealTimers();
  }
  const global = globalThis as Record<string, unknown>;
  if (global.Deno !== undefined) {
    left.push("globalThis.Deno");
    delete global.Deno;
  }
  if (unreset.length > 0)
    throw new Error(
      `The reset hook of ${unreset.join(", ")} left entries behind, which the next file in this process would see; fix the hook in its module.`,
    );
  if (left.length > 0)
    throw new Error(
      `This test file left ${left.join(", ")} changed for the files after it in the same process; restore them in its afterAll.`,
    );
});
