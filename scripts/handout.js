// A notebook as a student gets it: exported to HTML by Jupyter's nbconvert, opened in headless
// Chromium, photographed. Used by the notebook tests (every picture must be visible in the
// screenshot) and by scripts/readme-pictures.js (the README's pictures are cut from it).
//
//   node scripts/handout.js NOTEBOOK.ipynb [OUT_DIR]   check one notebook, print what each picture shows
//
// Needs `jupyter nbconvert` (Debian: jupyter-nbconvert) and Debian's `chromium`.
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { PNG } = require("pngjs");

const WINDOW_WIDTH = 1280;
// Chromium waits this much virtual time for the page (scripts, images) before it dumps or shoots.
const VIRTUAL_TIME_MS = "10000";
/** A pixel is ink when any channel is darker than this (white and near-white paper are not). */
const INK_BELOW = 235;

function nbEnv() {
  // Debian's Python warns about frozen modules and the debugger on every start.
  return { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: "1" };
}

/** Why a handout cannot be made here (nbconvert or Chromium missing), or undefined. */
function handoutMissing() {
  const nbconvert = spawnSync("jupyter", ["nbconvert", "--version"], { env: nbEnv(), encoding: "utf8" });
  if (nbconvert.error || nbconvert.status !== 0)
    return "Jupyter's nbconvert is not installed (Debian: apt-get install jupyter-nbconvert)";
  const chromium = spawnSync("chromium", ["--version"], { encoding: "utf8" });
  if (chromium.error || chromium.status !== 0) return "Chromium is not installed (Debian: apt-get install chromium)";
  return undefined;
}

/** Exports a notebook to HTML with nbconvert's default (lab) template; returns the HTML file. */
function exportHtml(notebook, outDir) {
  const run = spawnSync("jupyter", ["nbconvert", "--to", "html", "--output-dir", outDir, notebook], {
    env: nbEnv(),
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`nbconvert --to html failed for ${notebook}:\n${run.stdout}${run.stderr}`);
  return path.join(outDir, path.basename(notebook).replace(/\.ipynb$/, ".html"));
}

const joined = (text) => (Array.isArray(text) ? text.join("") : (text ?? ""));

/**
 * The pictures of a notebook's outputs, in order: each with its cell (1-based), tags, the MIME
 * type that carries it, its display size and the share of ink in the image itself. A picture
 * that only has `image/svg+xml` is listed with `stripped: true`: nbconvert's HTML export drops it.
 */
function notebookPictures(notebook) {
  const nb = JSON.parse(fs.readFileSync(notebook, "utf8"));
  const pictures = [];
  nb.cells.forEach((cell, i) => {
    for (const output of cell.outputs ?? []) {
      const data = output.data ?? {};
      const base = { cell: i + 1, tags: cell.metadata?.tags ?? [], text: joined(data["text/plain"]) };
      if (data["image/png"]) {
        const png = PNG.sync.read(Buffer.from(joined(data["image/png"]), "base64"));
        const size = output.metadata?.["image/png"] ?? {};
        pictures.push({
          ...base,
          mime: "image/png",
          width: size.width ?? png.width,
          height: size.height ?? png.height,
          ink: inkShare(png, 0, 0, png.width, png.height),
        });
      } else if (/<img src="data:image\/svg\+xml;base64,/.test(joined(data["text/html"]))) {
        const html = joined(data["text/html"]);
        pictures.push({
          ...base,
          mime: "text/html",
          width: Number(/width="(\d+)"/.exec(html)?.[1]),
          height: Number(/height="(\d+)"/.exec(html)?.[1]),
          ink: undefined,
        });
      } else if (data["image/svg+xml"]) {
        pictures.push({ ...base, mime: "image/svg+xml", stripped: true });
      }
    }
  });
  return pictures;
}

/** Share of pixels in a rectangle of a decoded PNG that are ink (not white, not transparent). */
function inkShare(png, left, top, width, height) {
  let ink = 0;
  let total = 0;
  const [x0, y0] = [Math.max(0, Math.round(left)), Math.max(0, Math.round(top))];
  const [x1, y1] = [Math.min(png.width, Math.round(left + width)), Math.min(png.height, Math.round(top + height))];
  for (let y = y0; y < y1; y += 1) {
    for (let x = x0; x < x1; x += 1) {
      const i = (y * png.width + x) * 4;
      total += 1;
      if (
        png.data[i + 3] > 0 &&
        (png.data[i] < INK_BELOW || png.data[i + 1] < INK_BELOW || png.data[i + 2] < INK_BELOW)
      )
        ink += 1;
    }
  }
  return total === 0 ? 0 : ink / total;
}

// Written into a copy of the page: where each output image landed, once everything has loaded.
const MEASURE = `<script>
window.addEventListener("load", () => {
  const images = [...document.querySelectorAll(".jp-OutputArea-output img")].map((img) => {
    const r = img.getBoundingClientRect();
    return { left: r.left + scrollX, top: r.top + scrollY, width: r.width, height: r.height, loaded: img.complete && img.naturalWidth > 0 };
  });
  const out = document.createElement("pre");
  out.id = "matframe-measure";
  out.textContent = JSON.stringify({ images, height: document.documentElement.scrollHeight });
  document.body.appendChild(out);
});
</script>`;

function chromium(args) {
  // A profile of its own in a temporary folder, removed afterwards: no dependence on HOME, no
  // clash between runs, and nothing of Chromium's left beside the handout.
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "matframe-chromium-"));
  const flags = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    `--user-data-dir=${profile}`,
  ];
  try {
    const run = spawnSync("chromium", [...flags, `--virtual-time-budget=${VIRTUAL_TIME_MS}`, ...args], {
      encoding: "utf8",
      maxBuffer: 256 << 20,
      timeout: 120_000,
    });
    if (run.error || run.status !== 0)
      throw new Error(
        `chromium ${args.join(" ")} failed (${run.error?.message ?? `exit ${run.status}`}):\n${run.stderr}`,
      );
    return run.stdout;
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

/**
 * Opens an exported page in headless Chromium: where its output images are, and a screenshot of
 * the whole page at `scale` device pixels per CSS pixel (none when the page has no output image).
 */
function photograph(htmlFile, workDir, scale = 1) {
  const measured = path.join(workDir, "measured.html");
  fs.writeFileSync(measured, fs.readFileSync(htmlFile, "utf8").replace(/<\/body>/i, `${MEASURE}</body>`));
  const url = `file://${measured}`;
  const dom = chromium([`--window-size=${WINDOW_WIDTH},1000`, "--dump-dom", url]);
  const json = /<pre id="matframe-measure">([^<]*)<\/pre>/.exec(dom)?.[1];
  if (!json) throw new Error(`Chromium did not finish loading ${htmlFile} (no measurement in the page)`);
  const layout = JSON.parse(
    json
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&"),
  );
  // A page without output images has no ink to measure: the second Chromium launch is skipped.
  if (layout.images.length === 0) return { images: [], screenshot: undefined, scale };
  const shot = path.join(workDir, "page.png");
  chromium([
    `--window-size=${WINDOW_WIDTH},${Math.ceil(layout.height)}`,
    `--force-device-scale-factor=${scale}`,
    `--screenshot=${shot}`,
    url,
  ]);
  return { images: layout.images, screenshot: PNG.sync.read(fs.readFileSync(shot)), scale };
}

/**
 * Checks a notebook as a handout: exported to HTML and shown in Chromium, every picture output is
 * an image that loaded, at its display size, with about as much ink on screen as in the image.
 * Returns the pictures with what was measured, and the problems found (empty when it passes).
 */
function checkHandout(notebook, { workDir, scale = 1 } = {}) {
  const dir = workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "matframe-handout-"));
  const pictures = notebookPictures(notebook);
  const problems = pictures
    .filter((p) => p.stripped)
    .map((p) => `cell ${p.cell}: a picture only as image/svg+xml, which nbconvert's HTML export strips`);
  const shown = pictures.filter((p) => !p.stripped);
  const html = exportHtml(notebook, dir);
  const page = photograph(html, dir, scale);
  if (page.images.length !== shown.length) {
    problems.push(
      `the exported page has ${page.images.length} output images; the notebook has ${shown.length} pictures`,
    );
  }
  shown.forEach((picture, i) => {
    const image = page.images[i];
    if (!image) return;
    const where = `cell ${picture.cell} (${picture.text || picture.mime})`;
    picture.shownAt = image;
    picture.inkShown = inkShare(
      page.screenshot,
      image.left * scale,
      image.top * scale,
      image.width * scale,
      image.height * scale,
    );
    if (!image.loaded) problems.push(`${where}: the image did not load in Chromium`);
    if (Math.abs(image.width - picture.width) > 1 || Math.abs(image.height - picture.height) > 1) {
      problems.push(
        `${where}: shown at ${image.width}×${image.height}, not its display size ${picture.width}×${picture.height}`,
      );
    }
    if (!(picture.inkShown > 0.01))
      problems.push(`${where}: blank on screen (${(100 * picture.inkShown).toFixed(2)} % ink)`);
    if (picture.ink !== undefined && picture.inkShown < 0.5 * picture.ink) {
      problems.push(
        `${where}: ${(100 * picture.inkShown).toFixed(1)} % ink on screen against ${(100 * picture.ink).toFixed(1)} % in the image`,
      );
    }
  });
  return { pictures, problems, html, screenshot: page.screenshot, dir };
}

/** Cuts a rectangle (CSS pixels) out of a screenshot taken at `scale`, as a PNG buffer. */
function crop(screenshot, rect, scale) {
  const [x, y] = [Math.round(rect.left * scale), Math.round(rect.top * scale)];
  const [w, h] = [Math.round(rect.width * scale), Math.round(rect.height * scale)];
  const out = new PNG({ width: w, height: h });
  PNG.bitblt(screenshot, out, x, y, w, h, 0, 0);
  return PNG.sync.write(out);
}

module.exports = { handoutMissing, checkHandout, notebookPictures, crop, inkShare };

if (require.main === module) {
  const [notebook, outDir] = process.argv.slice(2);
  if (!notebook) {
    console.error("usage: node scripts/handout.js NOTEBOOK.ipynb [OUT_DIR]");
    process.exitCode = 2;
  } else {
    const missing = handoutMissing();
    if (missing) {
      console.error(`Cannot make the handout: ${missing}.`);
      process.exitCode = 4;
    } else {
      if (outDir) fs.mkdirSync(outDir, { recursive: true });
      const result = checkHandout(path.resolve(notebook), { workDir: outDir && path.resolve(outDir) });
      for (const p of result.pictures) {
        console.log(
          `cell ${p.cell} ${p.mime} ${p.width}×${p.height}: ink ${p.ink === undefined ? "?" : (100 * p.ink).toFixed(1)} % in the image, ${p.inkShown === undefined ? "-" : (100 * p.inkShown).toFixed(1)} % on screen`,
        );
      }
      for (const problem of result.problems) console.error(`problem: ${problem}`);
      console.log(`page and screenshot in ${result.dir}`);
      process.exitCode = result.problems.length === 0 ? 0 : 1;
    }
  }
}
