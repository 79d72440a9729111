"use strict";
// pw.x's own wall time, from the last timing line of its output (`PWSCF : 4.72s CPU 8.99s WALL`,
// or `1m 2.30s WALL` past a minute): the compute group's measure of the queue's own share.

/** Seconds of wall time pw.x reports for itself; throws when the output has no such line. */
function pwWall(output) {
  const lines = output.match(/PWSCF\s*:.*WALL/g);
  const line = lines?.[lines.length - 1];
  const wall = line && /CPU\s+(?:(\d+)h\s*)?(?:(\d+)m\s*)?([\d.]+)s\s+WALL/.exec(line);
  if (!wall) throw new Error("pw.x's output has no PWSCF ... WALL line: did it finish?");
  return Number(wall[1] ?? 0) * 3600 + Number(wall[2] ?? 0) * 60 + Number(wall[3]);
}

module.exports = { pwWall };
