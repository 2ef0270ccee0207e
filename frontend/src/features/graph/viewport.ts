// Where the graph's view should be, as pure functions of the nodes'
// positions and the canvas's size: the flow's own fitView is queued until a
// later frame (it waits for its nodes to be measured, which ours never need:
// their size is fixed), and a view that moves frames after the canvas was
// resized moves under a person's (or a test's) click.

import { getViewportForBounds, type Viewport } from "@xyflow/react";
import { nodeHeight, nodeWidth } from "./layout";

export type FitOptions = { padding: number; minZoom: number; maxZoom: number };

// Fit is a view that fits nodes: whole says they are all in it, where
// false means minZoom held the zoom up and the view shows part of them.
export type Fit = { viewport: Viewport; whole: boolean };

// edge is the room, in pixels, kept between the graph and the canvas's
// border when the graph is larger than the view.
const edge = 16;

// viewportToFit is the viewport that shows nodes whole (given by their
// top-left corners) in a canvas of width by height pixels, centred, at most
// at maxZoom; undefined when there is nothing to fit or no room. It never
// zooms out below minZoom, where a node's text would be too small to read:
// a graph too large for that is shown at minZoom around focus (a node's
// top-left corner; the last node without one), as far as the graph goes,
// and the person scrolls to the rest.
export function viewportToFit(
  corners: readonly { x: number; y: number }[],
  width: number,
  height: number,
  { padding, minZoom, maxZoom }: FitOptions,
  focus?: { x: number; y: number },
): Fit | undefined {
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
  const vp = getViewportForBounds({ x: minX, y: minY, width: maxX - minX, height: maxY - minY }, width, height, 0, maxZoom, padding);
  if (vp.zoom >= minZoom) return { viewport: vp, whole: true };
  const z = minZoom;
  const f = focus ?? corners[corners.length - 1]!;
  // Each axis alone: centred when the graph fits along it, else on the
  // focus, held so that no more than the edge shows beyond the graph.
  const axis = (lo: number, hi: number, at: number, room: number) => {
    if ((hi - lo) * z + 2 * edge <= room) return (room - (hi - lo) * z) / 2 - lo * z;
    const centred = room / 2 - at * z;
    return Math.min(edge - lo * z, Math.max(room - edge - hi * z, centred));
  };
  return {
    viewport: { x: axis(minX, maxX, f.x + nodeWidth / 2, width), y: axis(minY, maxY, f.y + nodeHeight / 2, height), zoom: z },
    whole: false,
  };
}

// inView says whether a node at pos (its top-left corner) is wholly inside a
// canvas of width by height pixels seen through vp.
export function inView(vp: Viewport, width: number, height: number, pos: { x: number; y: number }): boolean {
  const left = pos.x * vp.zoom + vp.x;
  const top = pos.y * vp.zoom + vp.y;
  return left >= 0 && top >= 0 && left + nodeWidth * vp.zoom <= width && top + nodeHeight * vp.zoom <= height;
}
