import { describe, expect, it } from "vitest";
import { placeLabels } from "../../src/notebook/label-placement";

const area = { width: 400, height: 300, fontSize: 10, pointRadius: 4 };

describe("placeLabels", () => {
  it("puts a lone label above and to the right of its point", () => {
    expect(placeLabels([{ x: 100, y: 100, text: "Si" }], area)).toEqual([{ dx: 5, dy: -3, align: "left", baseline: "bottom" }]);
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
    expect(right.align).toBe("right");
    const [top] = placeLabels([{ x: 200, y: 1, text: "Au" }], area);
    expect(top.baseline).not.toBe("bottom");
  });
});
