// Types of scripts/handout.js, for the notebook tests that use it.
import type { PNG } from "pngjs";

export interface HandoutPicture {
  /** 1-based cell index. */
  cell: number;
  tags: string[];
  /** The output's text/plain fallback. */
  text: string;
  /** The MIME type that carries the picture in the notebook. */
  mime: "image/png" | "text/html" | "image/svg+xml";
  /** True for an SVG-only output, which nbconvert's HTML export strips. */
  stripped?: boolean;
  /** Display size in CSS pixels. */
  width: number;
  height: number;
  /** Share of ink (non-white pixels) in the image itself; undefined for an SVG in HTML. */
  ink?: number;
  /** Where Chromium drew it, in CSS pixels of the page. */
  shownAt?: { left: number; top: number; width: number; height: number; loaded: boolean };
  /** Share of ink in the screenshot where it was drawn. */
  inkShown?: number;
}

export function handoutMissing(): string | undefined;
export function notebookPictures(notebook: string): HandoutPicture[];
export function checkHandout(
  notebook: string,
  options?: { workDir?: string; scale?: number },
): { pictures: HandoutPicture[]; problems: string[]; html: string; screenshot: PNG; dir: string };
export function crop(
  screenshot: PNG,
  rect: { left: number; top: number; width: number; height: number },
  scale: number,
): Buffer;
export function inkShare(png: PNG, left: number, top: number, width: number, height: number): number;
