import type * as ResvgModule from "@resvg/resvg-js";
import { MissingDependencyError, ValidationError } from "../../errors";
import { escapeHtml } from "../tables/escape-html";
import type { MimeBundle } from "../kernel/mime-bundle";

/**
 * Pixels per SVG pixel in the PNG: 2 keeps text sharp on high-density screens and in print; the
 * PNG's metadata gives the SVG's size, so notebooks and exported HTML show it at that size.
 */
export const PNG_SCALE = 2;

/** The size an SVG document declares (its `width` and `height` attributes, in pixels). */
export function svgSize(svg: string): { width: number; height: number } {
  const tag = /<svg\b[^>]*>/.exec(svg)?.[0] ?? "";
  const width = Number(/\swidth="([\d.]+)(?:px)?"/.exec(tag)?.[1]);
  const height = Number(/\sheight="([\d.]+)(?:px)?"/.exec(tag)?.[1]);
  if (!(width > 0 && height > 0))
    throw new ValidationError("svg", "the SVG document has no width and height in pixels on its <svg> element");
  return { width, height };
}

let resvg: typeof ResvgModule | null | undefined;

/**
 * Loads @resvg/resvg-js on the first picture: an optional peer (a prebuilt native binary per
 * platform, about 5 MB) that only the PNG copies of pictures need. Undefined when not installed.
 */
function loadResvg(): typeof ResvgModule | undefined {
  if (resvg === undefined) {
    try {
      resvg = require("@resvg/resvg-js") as typeof ResvgModule;
    } catch (error) {
      if (
        (error as { code?: unknown }).code !== "MODULE_NOT_FOUND" ||
        !String((error as Error).message).includes("@resvg/resvg-js")
      )
        throw error;
      resvg = null;
    }
  }
  return resvg ?? undefined;
}

// resvg maps the generic "sans-serif" to Arial, which Linux rarely has; it then falls back to a serif face.
const SANS_SERIF = process.platform === "darwin" ? "Helvetica" : process.platform === "win32" ? "Arial" : "DejaVu Sans";

/**
 * Renders an SVG document to PNG with resvg, at {@link PNG_SCALE} pixels per SVG pixel.
 * @throws MissingDependencyError when @resvg/resvg-js is not installed.
 */
export function svgToPng(svg: string, scale = PNG_SCALE): Buffer {
  const mod = loadResvg();
  if (!mod) {
    throw new MissingDependencyError("@resvg/resvg-js", "A PNG of a picture", {
      hint: "Pictures without it are shown as SVG in an <img> element.",
    });
  }
  const renderer = new mod.Resvg(svg, {
    fitTo: { mode: "zoom", value: scale },
    font: { loadSystemFonts: true, defaultFontFamily: SANS_SERIF, sansSerifFamily: SANS_SERIF },
  });
  return renderer.render().asPng();
}

/**
 * The MIME bundle of a picture, chosen to survive `jupyter nbconvert --to html`, which drops
 * inline SVG (6.5 passes it through its HTML cleaner) and prefers `image/svg+xml` over
 * `image/png`, so the bundle holds no SVG: a PNG (with its display size in the metadata) when
 * resvg is installed, else the SVG inside an `<img>` in `text/html`; and always `text/plain`.
 */
export function pictureBundle(svg: string, text: string): MimeBundle {
  const { width, height } = svgSize(svg);
  const plain = { "text/plain": text };
  if (loadResvg()) {
    const png = svgToPng(svg).toString("base64");
    return { data: { "image/png": png, ...plain }, metadata: { "image/png": { width, height } } };
  }
  const src = `data:image/svg+xml;base64,${Buffer.from(svg, "utf8").toString("base64")}`;
  const img = `<img src="${src}" width="${width}" height="${height}" alt="${escapeHtml(text)}">`;
  return { data: { "text/html": img, ...plain }, metadata: {} };
}

/** For tests: forget whether resvg loaded, or pretend it is not installed. @internal */
export function resetResvgForTests(state: "unloaded" | "missing"): void {
  resvg = state === "missing" ? null : undefined;
}
