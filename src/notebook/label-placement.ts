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
const CANDIDATES: LabelPlacement[] = [
  { dx: 5, dy: -3, align: "left", baseline: "bottom" },
  { dx: 5, dy: 3, align: "left", baseline: "top" },
  { dx: -5, dy: -3, align: "right", baseline: "bottom" },
  { dx: -5, dy: 3, align: "right", baseline: "top" },
  { dx: 7, dy: 0, align: "left", baseline: "middle" },
  { dx: -7, dy: 0, align: "right", baseline: "middle" },
];

/**
 * Places point labels greedily so that they avoid each other, the points and the edges:
 * each label takes the first candidate position that touches nothing, else the one that
 * overlaps least. Text widths are estimated (Node has no font metrics without a canvas), which
 * is why Vega's own label transform, which needs a canvas, is not used.
 */
export function placeLabels(
  points: readonly LabelPoint[],
  area: { width: number; height: number; fontSize: number; pointRadius: number },
): LabelPlacement[] {
  const { width, height, fontSize, pointRadius: r } = area;
  const obstacles: Box[] = points.map((p) => ({ left: p.x - r, top: p.y - r, right: p.x + r, bottom: p.y + r }));
  return points.map((point) => {
    const textWidth = 0.6 * fontSize * point.text.length;
    let best = CANDIDATES[0];
    let bestCost = Infinity;
    for (const candidate of CANDIDATES) {
      const box = labelBox(point, candidate, textWidth, fontSize);
      const cost = obstacles.reduce((sum, o) => sum + overlap(box, o), 0) + outside(box, width, height);
      if (cost < bestCost) {
        best = candidate;
        bestCost = cost;
        if (cost === 0) break;
      }
    }
    obstacles.push(labelBox(point, best, textWidth, fontSize));
    return best;
  });
}

function labelBox(p: LabelPoint, c: LabelPlacement, textWidth: number, textHeight: number): Box {
  const x = p.x + c.dx;
  const y = p.y + c.dy;
  const left = c.align === "left" ? x : x - textWidth;
  const top = c.baseline === "bottom" ? y - textHeight : c.baseline === "top" ? y : y - textHeight / 2;
  return { left, top, right: left + textWidth, bottom: top + textHeight };
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
