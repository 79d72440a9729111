/** A point to label, in pixels of the plotting area, and its label text. */
export interface LabelPoint {
  x: number;
  y: number;
  text: string;
}

/** Where a label goes relative to its point (Vega text mark properties). */
export interface LabelPlacement {
  dx: number;
  dy: number;
  align: "left" | "right";
  baseline: "bottom" | "top" | "middle";
}

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

// Preferred first: upper right, as the eye reads a label after its point.
export const DIRECTIONS: LabelPlacement[] = [
  { dx: 5, dy: -3, align: "left", baseline: "bottom" },
  { dx: 5, dy: 3, align: "left", baseline: "top" },
  { dx: -5, dy: -3, align: "right", baseline: "bottom" },
  { dx: -5, dy: 3, align: "right", baseline: "top" },
  { dx: 7, dy: 0, align: "left", baseline: "middle" },
  { dx: -7, dy: 0, align: "right", baseline: "middle" },
];

// The same directions a little further out, for crowded points, before a label is left out.
const CANDIDATES: LabelPlacement[] = [1, 2.2].flatMap((k) =>
  DIRECTIONS.map((d) => ({ ...d, dx: d.dx * k, dy: d.dy * k })),
);

/** Space kept between two labels, in pixels. */
const MARGIN = 1;

/**
 * Width of a text in a sans-serif face (advance widths in em, rounded up from DejaVu Sans, the
 * widest common sans-serif face): Node has no font metrics without a canvas, which is also why
 * Vega's own label transform, which needs a canvas, is not used.
 */
export function estimateTextWidth(text: string, fontSize: number): number {
  let em = 0;
  for (const ch of text) {
    if ("iljI.,:;'|!()[]".includes(ch)) em += 0.35;
    else if ("ft r".includes(ch)) em += 0.45;
    else if ("mwMW".includes(ch)) em += 0.95;
    else if (/[A-Z]/.test(ch)) em += 0.75;
    else em += 0.65;
  }
  return em * fontSize;
}

/**
 * Places point labels greedily so that no two labels overlap, and labels avoid the points and
 * the edges: each label takes the first candidate position that touches nothing; else the one
 * that overlaps no other label and least of the rest; a label that cannot avoid every other label
 * is left out (`null`), as an overlapping label cannot be read anyway.
 */
export function placeLabels(
  points: readonly LabelPoint[],
  area: { width: number; height: number; fontSize: number; pointRadius: number },
): (LabelPlacement | null)[] {
  const { width, height, fontSize, pointRadius: r } = area;
  const dots: Box[] = points.map((p) => ({ left: p.x - r, top: p.y - r, right: p.x + r, bottom: p.y + r }));
  const labels: Box[] = [];
  return points.map((point) => {
    if (point.text === "") return null;
    const textWidth = estimateTextWidth(point.text, fontSize);
    let best: { placement: LabelPlacement; box: Box } | undefined;
    let bestCost = Infinity;
    for (const candidate of CANDIDATES) {
      const box = labelBox(point, candidate, textWidth, fontSize);
      if (labels.some((other) => overlap(grow(box, MARGIN), other) > 0)) continue;
      const cost = dots.reduce((sum, o) => sum + overlap(box, o), 0) + outside(box, width, height);
      if (cost < bestCost) {
        best = { placement: candidate, box };
        bestCost = cost;
        if (cost === 0) break;
      }
    }
    if (!best) return null;
    labels.push(best.box);
    return best.placement;
  });
}

/** The box a label covers. */
function labelBox(p: LabelPoint, c: LabelPlacement, textWidth: number, textHeight: number): Box {
  const x = p.x + c.dx;
  const y = p.y + c.dy;
  const left = c.align === "left" ? x : x - textWidth;
  const top = c.baseline === "bottom" ? y - textHeight : c.baseline === "top" ? y : y - textHeight / 2;
  return { left, top, right: left + textWidth, bottom: top + textHeight };
}

function grow(box: Box, by: number): Box {
  return { left: box.left - by, top: box.top - by, right: box.right + by, bottom: box.bottom + by };
}

function overlap(a: Box, b: Box): number {
  const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
  return w > 0 && h > 0 ? w * h : 0;
}

/** Area of the box outside the plotting area, weighted so that cut-off labels lose to overlaps. */
function outside(box: Box, width: number, height: number): number {
  const inside = overlap(box, { left: 0, top: 0, right: width, bottom: height });
  return 4 * ((box.right - box.left) * (box.bottom - box.top) - inside);
}
