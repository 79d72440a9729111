import { PNG_SCALE, pictureBundle, svgSize, svgToPng } from "./picture-bundle";
import { RichOutput } from "../kernel/rich-output";
import type { MimeBundle } from "../kernel/mime-bundle";

/**
 * A picture drawn as SVG (a chart, a structure view): shown in notebooks as a PNG with a text
 * fallback (see `pictureBundle`), saved as SVG or PNG.
 */
export abstract class Picture extends RichOutput {
  #bundle: MimeBundle | undefined;

  /** The SVG document, starting with `<svg`. */
  abstract readonly svg: string;

  /** Width and height of the whole picture in pixels, as its SVG declares them. */
  get size(): { width: number; height: number } {
    return svgSize(this.svg);
  }

  /**
   * The picture as PNG, at `scale` pixels per SVG pixel (rendered with @resvg/resvg-js).
   * @default scale 2
   * @example fs.writeFileSync("chart.png", chart.png());
   */
  png(scale = PNG_SCALE): Buffer {
    return svgToPng(this.svg, scale);
  }

  /** The SVG, so a picture can be written straight to a file. */
  override toString(): string {
    return this.svg;
  }

  mimeBundle(): MimeBundle {
    this.#bundle ??= pictureBundle(this.svg, this.summary());
    return this.#bundle;
  }
}
