import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { estimateTextWidth, placeLabels, type LabelPlacement } from "../../src/notebook/charts/label-placement";
import { zip } from "../structure/support/checked";

const area = { width: 400, height: 300, fontSize: 10, pointRadius: 4 };

describe("placeLabels", () => {
  it("puts a lone label above and to the right of its point", () => {
    expect(placeLabels([{ x: 100, y: 100, text: "Si" }], area)).toEqual([
      { dx: 5, dy: -3, align: "left", baseline: "bottom" },
    ]);
  });

  it("moves the second of two neighbouring labels off the first", () => {
    const [a, b] = placeLabels(
      [
        { x: 100, y: 100, text: "ZrO2" },
        { x: 104, y: 102, text: "ZnO" },
      ],
      area,
    );
    expect(a).toEqual({ dx: 5, dy: -3, align: "left", baseline: "bottom" });
    expect(b).not.toEqual(a);
  });

  it("keeps labels inside the plotting area at the edges", () => {
    const [right] = placeLabels([{ x: 398, y: 150, text: "Te2Mo" }], area);
    expect(right?.align).toBe("right");
    const [top] = placeLabels([{ x: 200, y: 1, text: "Au" }], area);
    expect(top?.baseline).not.toBe("bottom");
  });
});

/** The box a placed label covers (without margin), as a renderer would draw it. */
function box(p: { x: number; y: number; text: string }, c: LabelPlacement, fontSize: number) {
  const w = estimateTextWidth(p.text, fontSize);
  const x = p.x + c.dx;
  const y = p.y + c.dy;
  const left = c.align === "left" ? x : x - w;
  const top = c.baseline === "bottom" ? y - fontSize : c.baseline === "top" ? y : y - fontSize / 2;
  return { left, top, right: left + w, bottom: top + fontSize };
}

describe("placeLabels never lets two labels overlap", () => {
  it("leaves out the labels of a tight cluster that cannot all be placed", () => {
    const cluster = Array.from({ length: 12 }, (_, i) => ({
      x: 200 + (i % 3),
      y: 150 + Math.floor(i / 3),
      text: `Label${i}`,
    }));
    const placed = placeLabels(cluster, area);
    expect(placed[0]).not.toBeNull();
    expect(placed.filter((p) => p === null).length).toBeGreaterThan(0);
  });

  it("for any points and texts", () => {
    const point = fc.record({
      x: fc.double({ min: 0, max: 400, noNaN: true }),
      y: fc.double({ min: 0, max: 300, noNaN: true }),
      text: fc.stringMatching(/^[A-Za-z0-9]{1,8}$/),
    });
    fc.assert(
      fc.property(fc.array(point, { maxLength: 40 }), (points) => {
        const placed = placeLabels(points, area);
        const boxes = zip(points, placed, "the placements").flatMap(([p, c]) => (c ? [box(p, c, area.fontSize)] : []));
        for (const [i, a] of boxes.entries()) {
          for (const b of boxes.slice(i + 1)) {
            const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
            if (!apart) return false;
          }
        }
        return true;
      }),
    );
  });
});
