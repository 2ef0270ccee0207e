import { describe, expect, it } from "vitest";
import { nodeHeight } from "./layout";
import { cellArea, inArea, viewCell } from "./window";

// A column of n nodes, each after the one before.
const column = (n: number) => {
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `n${i}`, position: { x: 0, y: i * (nodeHeight + 44) } }));
  const edges = nodes.slice(1).map((m, i) => ({ id: `e${i}`, source: `n${i}`, target: m.id }));
  return { nodes, edges };
};

describe("the graph's window", () => {
  it("keeps the same cell while the view pans within it", () => {
    const at = (y: number) => viewCell({ transform: [0, -y, 1], width: 800, height: 600 });
    expect(at(0)).toBe(at(500));
    expect(at(0)).not.toBe(at(700));
    expect(viewCell({ transform: [0, 0, 1], width: 0, height: 0 })).toBe("");
    expect(cellArea("")).toBeUndefined();
    expect(cellArea("garbage")).toBeUndefined();
  });

  it("gives the nodes around the view, the ends of their edges and the kept node, in order", () => {
    const { nodes, edges } = column(1000);
    // The view at y = 60,000 (node 491), 600 px high at zoom 1.
    const area = cellArea(viewCell({ transform: [0, -60_000, 1], width: 800, height: 600 }))!;
    const w = inArea(nodes, edges, area, ["n999"]);
    const ids = w.nodes.map((n) => n.id);
    expect(ids).toContain("n491");
    expect(ids).toContain("n999");
    expect(ids).not.toContain("n0");
    expect(ids.length).toBeLessThan(40);
    // In the input's order, and every edge between nodes given.
    expect(ids).toEqual(nodes.filter((n) => ids.includes(n.id)).map((n) => n.id));
    for (const e of w.edges) expect(ids.includes(e.source) && ids.includes(e.target)).toBe(true);
    // The view's own nodes are all there: those at 60,000 to 60,600.
    for (const n of nodes) if (n.position.y + nodeHeight > 60_000 && n.position.y < 60_600) expect(ids).toContain(n.id);
  });

  it("gives the kept nodes alone before the view has a size", () => {
    const { nodes, edges } = column(10);
    expect(inArea(nodes, edges, undefined, ["n9", undefined]).nodes.map((n) => n.id)).toEqual(["n8", "n9"]);
  });
});
