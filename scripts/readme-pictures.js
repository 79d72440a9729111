// Makes the README's notebook pictures the way a reader of a handout sees them: notebook 05 (as
// committed, the outputs of a clean run) exported to HTML with nbconvert, shown in headless
// Chromium at 2 device pixels per CSS pixel, and each tagged cell's picture cut out of the
// screenshot.
//
//   node scripts/readme-pictures.js     writes docs/notebook-chart.png and docs/notebook-structure.png
//
// Exit codes: 0 written, 1 the handout check found a problem, 4 nbconvert or Chromium is missing.
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { checkHandout, crop, handoutMissing } = require("./handout");

const root = path.join(__dirname, "..");
const NOTEBOOK = path.join(root, "notebooks", "05-teaching-crystals.ipynb");
/** Cell tag → picture file. */
const PICTURES = {
  "readme-chart": path.join(root, "docs", "notebook-chart.png"),
  "readme-structure": path.join(root, "docs", "notebook-structure.png"),
};
const SCALE = 2;

function main() {
  const missing = handoutMissing();
  if (missing) {
    console.error(`Cannot make the README pictures: ${missing}.`);
    return 4;
  }
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "matframe-readme-pictures-"));
  try {
    const handout = checkHandout(NOTEBOOK, { workDir, scale: SCALE });
    if (handout.problems.length > 0) {
      console.error(`The exported notebook does not show its pictures:\n${handout.problems.join("\n")}`);
      return 1;
    }
    for (const [tag, file] of Object.entries(PICTURES)) {
      const picture = handout.pictures.find((p) => p.tags.includes(tag));
      if (!picture?.shownAt) throw new Error(`${path.basename(NOTEBOOK)}: no picture in a cell tagged "${tag}"`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, crop(handout.screenshot, picture.shownAt, SCALE));
      console.log(
        `wrote ${path.relative(root, file)} (${picture.width}×${picture.height} CSS px at ${SCALE}x) from cell ${picture.cell} of the exported ${path.basename(NOTEBOOK)}`,
      );
    }
    return 0;
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

process.exitCode = main();
