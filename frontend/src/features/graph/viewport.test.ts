import { describe, expect, it } from "vitest";
import { nodeHeight, nodeWidth } from "./layout";
import { inView, viewportToFit } from "./viewport";

const options = { padding: 0, minZoom: 0.1, maxZoom: 1 };

describe("viewportToFit", () => {
  it("centres a small graph at most at maxZoom", () => {
    const vp = viewportToFit([{ x: 0, y: 0 }], 1000, 500, options)!;
    expect(vp.zoom).toBe(1);
    expect(vp.x).toBe(500 - nodeWidth / 2);
    expect(vp.y).toBe(250 - nodeHeight / 2);
  });

  it("zooms out until the whole graph fits, and every node is then in view", () => {
    const corners = [
      { x: 0, y: 0 },
      { x: 2000, y: 0 },
      { x: 1000, y: 900 },
    ];
    const vp = viewportToFit(corners, 1000, 500, options)!;
    expect(vp.zoom).toBeCloseTo(1000 / (2000 + nodeWidth));
    for (const c of corners) expect(inView(vp, 1000, 500, c)).toBe(true);
  });

  it("follows the canvas: a wider canvas moves the view right", () => {
    const corners = [{ x: 0, y: 0 }, { x: 0, y: 300 }];
    const narrow = viewportToFit(corners, 500, 600, options)!;
    const wide = viewportToFit(corners, 1000, 600, options)!;
    expect(wide.x - narrow.x).toBe(250);
    expect(wide.zoom).toBe(narrow.zoom);
  });

  it("has nothing to fit without nodes or room", () => {
    expect(viewportToFit([], 100, 100, options)).toBeUndefined();
    expect(viewportToFit([{ x: 0, y: 0 }], 0, 100, options)).toBeUndefined();
  });
});

describe("inView", () => {
  it("says whether a node is wholly inside the canvas", () => {
    const vp = { x: 0, y: 0, zoom: 1 };
    expect(inView(vp, 500, 500, { x: 10, y: 10 })).toBe(true);
    expect(inView(vp, 500, 500, { x: 400, y: 10 })).toBe(false);
    expect(inView({ x: -20, y: 0, zoom: 1 }, 500, 500, { x: 10, y: 10 })).toBe(false);
  });
});
