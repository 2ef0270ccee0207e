import { describe, expect, it } from "vitest";
import { boundsOf, frameOf, overviewNodes } from "./GraphOverview";
import { nodeHeight, nodeWidth } from "./layout";

describe("the graph's overview", () => {
  it("bounds the nodes, and the view where it reaches past them", () => {
    const nodes = [
      { x: 0, y: 0, colour: "red" },
      { x: 300, y: 500, colour: "red" },
    ];
    expect(boundsOf(nodes)).toEqual({ x: 0, y: 0, width: 300 + nodeWidth, height: 500 + nodeHeight });
    expect(boundsOf(nodes, { x: -100, y: 10, width: 50, height: 50 })).toEqual({ x: -100, y: 0, width: 400 + nodeWidth, height: 500 + nodeHeight });
    expect(boundsOf([])).toBeUndefined();
  });

  it("fits the bounds in the box, centred, with a margin", () => {
    const f = frameOf({ x: 100, y: 0, width: 1000, height: 100_000 }, 150, 100, 4);
    expect(f.scale).toBeCloseTo(92 / 100_000);
    // The top edge at the margin, the column centred across.
    expect(0 * f.scale + f.offsetY).toBeCloseTo(4);
    expect((100 + 500) * f.scale + f.offsetX).toBeCloseTo(75);
  });

  it("paints a fork's origin violet and a step in its status's colour", () => {
    const o = overviewNodes([
      { type: "origin", position: { x: 1, y: 2 }, data: {} },
      { type: "step", position: { x: 3, y: 4 }, data: { status: "failed" } },
    ]);
    expect(o).toEqual([
      { x: 1, y: 2, colour: "var(--violet)" },
      { x: 3, y: 4, colour: "var(--tone-bad)" },
    ]);
  });
});
