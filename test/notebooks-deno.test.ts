// Every example notebook on Deno's Jupyter kernel (`deno jupyter`), in a file of its own so that it
// runs beside the tslab runs of test/notebooks.test.ts (see test/support/notebook-runs.ts).
import { describeNotebookRuns } from "./support/notebook-runs";

describeNotebookRuns("deno");
