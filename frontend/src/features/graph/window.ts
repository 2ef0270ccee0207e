// The part of a large graph that is given to React Flow: the nodes in and
// around the view, and the nodes at the other end of their edges. The flow
// keeps a store entry, a lookup of connections and a subscription for each
// node it is given, whether drawn or not (onlyRenderVisibleElements only
// skips the drawing): at 10,000 nodes a change cost it 100-250 ms. The view
// is read in cells of about its own size, so that a pan within a cell gives
// the flow the same nodes and nothing renders again.

import type { ReactFlowState } from "@xyflow/react";
import { nodeHeight, nodeWidth } from "./layout";

export type Area = { x0: number; y0: number; x1: number; y1: number };

// The zoom is read in steps of this factor: a cell's size changes only
// when the zoom moves past a step.
const zoomStep = 1.25;

// viewCell is the view's cell, as a key: its size (the canvas's, at the
// zoom's step) and its place. Empty before the flow knows its size.
export function viewCell(s: Pick<ReactFlowState, "transform" | "width" | "height">): string {
  const [tx, ty, zoom] = s.transform;
  if (!(s.width > 0) || !(s.height > 0) || !(zoom > 0)) return "";
  const z = Math.pow(zoomStep, Math.round(Math.log(zoom) / Math.log(zoomStep)));
  const w = s.width / z;
  const h = s.height / z;
  return `${w}|${h}|${Math.floor(-tx / zoom / w)}|${Math.floor(-ty / zoom / h)}`;
}

// cellArea is the area a cell stands for: the cell and the view beyond it,
// a screen's worth on every side (the view starts in its cell and is at
// most a step's share wider than it).
export function cellArea(cell: string): Area | undefined {
  const [w, h, cx, cy] = cell.split("|").map(Number);
  if (cell === "" || ![w, h, cx, cy].every((v) => Number.isFinite(v))) return undefined;
  return { x0: (cx! - 1) * w!, y0: (cy! - 1) * h!, x1: (cx! + 3) * w!, y1: (cy! + 3) * h! };
}

type Placed = { id: string; position: { x: number; y: number } };
type Linked = { source: string; target: string };

// inArea is the nodes that meet the area, the nodes at the other end of
// their edges (an edge is drawn only between nodes the flow has) and the
// nodes to keep whatever the view (the one followed: the flow has nothing to
// fit or follow without a node), in the input's order; and the edges among
// them.
export function inArea<N extends Placed, E extends Linked>(
  nodes: readonly N[],
  edges: readonly E[],
  area: Area | undefined,
  keep: readonly (string | undefined)[],
): { nodes: N[]; edges: E[] } {
  const near = new Set<string>();
  for (const k of keep) if (k !== undefined) near.add(k);
  if (area)
    for (const n of nodes) {
      const p = n.position;
      if (p.x < area.x1 && p.x + nodeWidth > area.x0 && p.y < area.y1 && p.y + nodeHeight > area.y0) near.add(n.id);
    }
  const ids = new Set(near);
  const kept: E[] = [];
  for (const e of edges) {
    if (!near.has(e.source) && !near.has(e.target)) continue;
    kept.push(e);
    ids.add(e.source);
    ids.add(e.target);
  }
  return { nodes: nodes.filter((n) => ids.has(n.id)), edges: kept };
}
