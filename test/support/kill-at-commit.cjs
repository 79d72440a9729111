// Loaded with `node --require` into a `matframe export` child: signals the process at a chosen
// step of its resumable export, the steps counted as the export publishes them on the
// "matframe:export:commit" diagnostics channel (src/frame/export/resume/commit-points.ts). The
// subscriber runs synchronously as each step is reached, so the Nth step is the same one in
// every run of the same export: tests stop it there with no clock involved.
//   MATFRAME_TEST_KILL_AT=N               SIGKILL at the Nth step
//   MATFRAME_TEST_SIGNAL_AT=N             MATFRAME_TEST_SIGNAL (SIGINT unless given: Ctrl-C) at
//                                         the Nth step, the export stopping as it does on it ...
//   MATFRAME_TEST_KILL_AFTER_SIGNAL=M     ... and SIGKILL at the Mth step after the signal arrived
//   MATFRAME_TEST_ANNOUNCE=1              "commit point N: STEP" on stderr at each step, for a
//                                         parent to act on (kill the server, say)
// At exit, the steps seen are written to stderr as "commit points: N".
const diagnostics = require("node:diagnostics_channel");

const number = (name) => (process.env[name] ? Number(process.env[name]) : undefined);
const killAt = number("MATFRAME_TEST_KILL_AT");
const signalAt = number("MATFRAME_TEST_SIGNAL_AT");
const signal = process.env.MATFRAME_TEST_SIGNAL || "SIGINT";
const afterSignal = number("MATFRAME_TEST_KILL_AFTER_SIGNAL");
const announce = process.env.MATFRAME_TEST_ANNOUNCE === "1";
let steps = 0;
let signalledAt;

if (signalAt !== undefined) {
  process.on(signal, () => {
    signalledAt ??= steps;
  });
}
diagnostics.subscribe("matframe:export:commit", (message) => {
  steps++;
  if (announce) process.stderr.write(`commit point ${steps}: ${message.step}\n`);
  if (steps === killAt) process.kill(process.pid, "SIGKILL");
  if (signalledAt !== undefined && steps === signalledAt + afterSignal) process.kill(process.pid, "SIGKILL");
  if (steps === signalAt) process.kill(process.pid, signal);
});
process.on("exit", () => process.stderr.write(`commit points: ${steps}\n`));
