import { describe, expect, it } from "vitest";
import { nodeHeight, nodeWidth } from "./layout";
import { inView, viewportToFit } from "./viewport";

const options = { padding: 0, minZoom: 0.1, maxZoom: 1 };
const fit = (...a: Parameters<typeof viewportToFit>) => viewportToFit(...a)?.viewport;

describe("viewportToFit", () => {
  it("centres a small graph at most at maxZoom", () => {
    const vp = fit([{ x: 0, y: 0 }], 1000, 500, options)!;
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
    const vp = fit(corners, 1000, 500, options)!;
    expect(vp.zoom).toBeCloseTo(1000 / (2000 + nodeWidth));
    for (const c of corners) expect(inView(vp, 1000, 500, c)).toBe(true);
  });

  it("follows the canvas: a wider canvas moves the view right", () => {
    const corners = [{ x: 0, y: 0 }, { x: 0, y: 300 }];
    const narrow = fit(corners, 500, 600, options)!;
    const wide = fit(corners, 1000, 600, options)!;
    expect(wide.x - narrow.x).toBe(250);
    expect(wide.zoom).toBe(narrow.zoom);
  });

  it("never zooms out below minZoom: a large graph shows its focus, as far as the graph goes", () => {
    const readable = { padding: 0, minZoom: 0.7, maxZoom: 1 };
    // A column of 40 rows: too tall for the canvas at 0.7.
    const column = Array.from({ length: 40 }, (_, i) => ({ x: 0, y: i * 120 }));
    const last = column.at(-1)!;
    const f = viewportToFit(column, 800, 600, readable, column[20])!;
    expect(f.whole).toBe(false);
    expect(f.viewport.zoom).toBe(0.7);
    expect(inView(f.viewport, 800, 600, column[20]!)).toBe(true);
    // Narrow enough to centre along x; centred on the focus along y.
    expect(f.viewport.x).toBeCloseTo((800 - nodeWidth * 0.7) / 2);
    expect(f.viewport.y).toBeCloseTo(300 - (column[20]!.y + nodeHeight / 2) * 0.7);
    // Without a focus, the last node; held at the graph's end, not past it.
    const end = viewportToFit(column, 800, 600, readable)!.viewport;
    expect(inView(end, 800, 600, last)).toBe(true);
    expect((last.y + nodeHeight) * 0.7 + end.y).toBeCloseTo(600 - 16);
    // At the top, the graph's first row stays at the top.
    const top = viewportToFit(column, 800, 600, readable, column[0])!.viewport;
    expect(top.y).toBeCloseTo(16);
    // One that fits at minZoom is fitted whole.
    expect(viewportToFit(column.slice(0, 3), 800, 600, readable)!.whole).toBe(true);
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
