// Where the graph's view should be, as pure functions of the nodes'
// positions and the canvas's size: the flow's own fitView is queued until a
// later frame (it waits for its nodes to be measured, which ours never need:
// their size is fixed), and a view that moves frames after the canvas was
// resized moves under a person's (or a test's) click.

import { getViewportForBounds, type Viewport } from "@xyflow/react";
import { nodeHeight, nodeWidth } from "./layout";

export type FitOptions = { padding: number; minZoom: number; maxZoom: number };

// viewportToFit is the viewport that shows nodes whole (given by their
// top-left corners) in a canvas of width by height pixels, centred, at most
// at maxZoom; undefined when there is nothing to fit or no room.
export function viewportToFit(
  corners: readonly { x: number; y: number }[],
  width: number,
  height: number,
  { padding, minZoom, maxZoom }: FitOptions,
): Viewport | undefined {
  if (corners.length === 0 || !(width > 0) || !(height > 0)) return undefined;
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const p of corners) {
    minX = Math.min(minX, p.x);
    minY = Math.min(minY, p.y);
    maxX = Math.max(maxX, p.x + nodeWidth);
    maxY = Math.max(maxY, p.y + nodeHeight);
  }
  return getViewportForBounds({ x: minX, y: minY, width: maxX - minX, height: maxY - minY }, width, height, minZoom, maxZoom, padding);
}

// inView says whether a node at pos (its top-left corner) is wholly inside a
// canvas of width by height pixels seen through vp.
export function inView(vp: Viewport, width: number, height: number, pos: { x: number; y: number }): boolean {
  const left = pos.x * vp.zoom + vp.x;
  const top = pos.y * vp.zoom + vp.y;
  return left >= 0 && top >= 0 && left + nodeWidth * vp.zoom <= width && top + nodeHeight * vp.zoom <= height;
}
