import { BaseSequencer, type TestSpecification } from "vitest/node";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Tests that drive tools outside Node: the Jupyter kernels (tslab, Deno), a fresh project installed
 * from the npm registry, the platform's own Python client and a real browser. Their outcome does
 * not depend on the Node line, so CI runs them once (`--project external`, on the machine's Node)
 * and runs the `core` project on every Node line of package.json "engines".
 */
const EXTERNAL = [
  "test/notebooks.test.ts",
  "test/notebooks-deno.test.ts",
  "test/notebook-warnings.test.ts",
  "test/consumer/**/*.test.ts",
  "test/python-client/**/*.test.ts",
  "test/**/*-browser.test.ts",
];

/** Files that take minutes, not seconds (the notebooks on each kernel, the registry install, CLI runs killed and resumed). */
const LONG = [/\/notebooks(-deno)?\.test\.ts$/, /\/consumer\.test\.ts$/, /\/resume-cli\.test\.ts$/];

/**
 * vitest orders files by the durations it cached in an earlier run, and by size on a fresh
 * machine, where the notebook files (small: they share their runner) would start last and end
 * the run alone. The long files go first, so the rest fill the workers around them.
 */
class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const long = (file: TestSpecification) => (LONG.some((pattern) => pattern.test(file.moduleId)) ? 1 : 0);
    return [...sorted].sort((a, b) => long(b) - long(a));
  }
}

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start real servers on port 0; files run in parallel processes. Most files
    // wait on servers, children and kernels more than they compute, so four run at once on two
    // cores; tests never depend on how fast a machine is (they wait for events, and those that
    // race a server's queue leave it seconds of margin).
    pool: "forks",
    maxWorkers: 4,
    sequence: { sequencer: LongFilesFirst },
    projects: [
      {
        extends: true,
        test: { name: "core", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...EXTERNAL] },
      },
      { extends: true, test: { name: "external", include: EXTERNAL } },
    ],
  },
});
