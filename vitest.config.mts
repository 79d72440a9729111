import { BaseSequencer, type TestSpecification } from "vitest/node";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Tests that drive tools outside Node: the Jupyter kernels (tslab, Deno), a fresh project installed
 * from the npm registry, the platform's own Python client, a real browser, and the Python readers
 * (pymatgen, spglib, ASE, pandas) that check structures, symmetry and frames. Their outcome does
 * not depend on the Node line, so CI runs them once (on the machine's Node) and runs the `core`
 * project on every Node line of package.json "engines".
 */
const EXTERNAL = [
  // Quantum ESPRESSO's runs beyond the SCF and the band gap (band structure, the densities of
  // states, phonons: minutes of pw.x and ph.x); the engine's Node side runs on every line in
  // test/compute/espresso-si*.test.ts and the queue's tests.
  "test/compute/espresso-si-bands.test.ts",
  "test/compute/espresso-si-dos.test.ts",
  "test/compute/espresso-si-zpe.test.ts",
  "test/compute/espresso-si-phonon-dos.test.ts",
  // 37 kills and resumes of the CLI (minutes): the resume's commit points do not depend on the Node line.
  "test/cli-export/hive-resume-kill.test.ts",
  "test/notebooks.test.ts",
  "test/notebooks-deno.test.ts",
  "test/notebook-warnings.test.ts",
  "test/consumer/**/*.test.ts",
  "test/python-client/**/*.test.ts",
  "test/optimade-reference/**/*.test.ts",
  "test/**/*-browser.test.ts",
  "test/structure/symmetrized-cif.test.ts",
  "test/structure/symmetry.test.ts",
  "test/structure/symmetry-noisy.test.ts",
  "test/structure/ase.test.ts",
  "test/structure/format-registry-readers.test.ts",
  "test/structure/wide-values.test.ts",
  "test/structure/p-norm.test.ts",
  "test/structure/reduced-formula.test.ts",
  "test/results/results-pandas.test.ts",
  "test/results/dielectric.test.ts",
  "test/notebook/distribution-charts.test.ts",
  "test/frame/pandas-differential.test.ts",
  "test/frame/column-type-registry-pandas.test.ts",
  "test/frame/derived-columns.test.ts",
  "test/frame/optimade/optimade-pymatgen.test.ts",
  "test/server/derived-properties.test.ts",
];

/**
 * The README and the guides as documents: every command and code block run as written, every
 * link, the CLI guide's help texts. They test the text; the code they run is tested on every Node
 * line by `core`, so CI runs them once too.
 */
const DOCS = [
  "test/readme/**/*.test.ts",
  "test/cli-export/readme-examples.test.ts",
  "test/cli-export/readme-quickstart.test.ts",
  "test/client/readme-example.test.ts",
];

/** Files that take minutes, not seconds (the notebooks on each kernel, the registry install, CLI runs killed and resumed, at every step of a dataset export). */
const LONG = [
  /\/notebooks(-deno)?\.test\.ts$/,
  /\/consumer\.test\.ts$/,
  /\/resume-cli\.test\.ts$/,
  /\/hive-resume-kill\.test\.ts$/,
];

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
    // Integration tests start real servers on port 0; files run in parallel processes. Many files
    // wait on servers, children and kernels, so four run at once on two cores (two left the cores
    // idle half the time); tests never depend on how fast a machine is (they wait for events, and those that
    // race a server's queue leave it seconds of margin).
    pool: "forks",
    maxWorkers: 4,
    sequence: { sequencer: LongFilesFirst },
    projects: [
      {
        extends: true,
        test: {
          name: "core",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...EXTERNAL, ...DOCS],
          // The files of a worker share its process and modules: loading them once per worker
          // instead of once per file takes a third off the project's time. Each file must leave
          // the process as it found it; test/support/shared-process.ts fails one that does not.
          isolate: false,
          setupFiles: ["test/support/shared-process.ts"],
        },
      },
      { extends: true, test: { name: "docs", include: DOCS } },
      { extends: true, test: { name: "external", include: EXTERNAL } },
    ],
  },
});
