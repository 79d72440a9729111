// Loaded with `node --require` into a `matframe export` child: stops the process with SIGKILL at
// a chosen step of its resumable export, the steps counted as the export publishes them on the
// "matframe:export:commit" diagnostics channel (src/frame/export/resume/commit-points.ts). The
// subscriber runs synchronously as each step is reached, so the Nth step is the same one in
// every run of the same export: the kill tests try each in turn, with no clock involved.
//   MATFRAME_TEST_KILL_AT=N             SIGKILL at the Nth step
//   MATFRAME_TEST_INTERRUPT_AT=N        SIGINT (as Ctrl-C) at the Nth step, the export then
//                                       stopping as it does on Ctrl-C ...
//   MATFRAME_TEST_KILL_AFTER_INTERRUPT=M  ... and SIGKILL at the Mth step after the SIGINT arrived
// At exit, the steps seen are written to stderr as "commit points: N".
const diagnostics = require("node:diagnostics_channel");

const number = (name) => (process.env[name] ? Number(process.env[name]) : undefined);
const killAt = number("MATFRAME_TEST_KILL_AT");
const interruptAt = number("MATFRAME_TEST_INTERRUPT_AT");
const afterInterrupt = number("MATFRAME_TEST_KILL_AFTER_INTERRUPT");
let steps = 0;
let interruptedAt;

process.on("SIGINT", () => {
  interruptedAt ??= steps;
});
diagnostics.subscribe("matframe:export:commit", () => {
  steps++;
  if (steps === killAt) process.kill(process.pid, "SIGKILL");
  if (interruptedAt !== undefined && steps === interruptedAt + afterInterrupt) process.kill(process.pid, "SIGKILL");
  if (steps === interruptAt) process.kill(process.pid, "SIGINT");
});
process.on("exit", () => process.stderr.write(`commit points: ${steps}\n`));
