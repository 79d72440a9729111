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

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start real servers on port 0; files run in parallel processes.
    pool: "forks",
    projects: [
      {
        extends: true,
        test: { name: "core", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...EXTERNAL] },
      },
      { extends: true, test: { name: "external", include: EXTERNAL } },
    ],
  },
});
