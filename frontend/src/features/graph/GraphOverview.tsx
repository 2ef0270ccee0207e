// GraphOverview is the graph's minimap: every node as a dot of its status's
// colour and the part in view as a frame, on a canvas. React Flow's MiniMap
// draws an SVG element per node, each subscribed to the flow's store: at
// 10,000 nodes that was 10,000 selectors run on every change of the view
// and 10,000 elements to commit, the largest cost of opening a long run.
// Here the nodes are painted once per change of the graph, and a move of
// the view repaints only the frame, on a canvas of its own.

import { useReactFlow, useStore, type ReactFlowState } from "@xyflow/react";
import { useEffect, useMemo, useRef, useSyncExternalStore, type PointerEvent, type WheelEvent } from "react";
import { statusColour } from "../../ui/status";
import { nodeHeight, nodeWidth } from "./layout";

// OverviewNode is a node as the overview paints it: its top-left corner and
// its colour, as a CSS value (a custom property is resolved when painted).
export type OverviewNode = { x: number; y: number; colour: string };

// The least size, in pixels, of the view's frame.
const minFrame = 8;

type Rect = { x: number; y: number; width: number; height: number };

// Frame maps the graph's coordinates onto the overview's: the box that
// holds every node and the view, scaled to fit and centred.
export type Frame = { scale: number; offsetX: number; offsetY: number };

// frameOf fits bounds into a width × height box with a margin.
export function frameOf(bounds: Rect, width: number, height: number, margin = 4): Frame {
  const w = Math.max(bounds.width, 1);
  const h = Math.max(bounds.height, 1);
  const scale = Math.min((width - 2 * margin) / w, (height - 2 * margin) / h);
  return {
    scale,
    offsetX: (width - w * scale) / 2 - bounds.x * scale,
    offsetY: (height - h * scale) / 2 - bounds.y * scale,
  };
}

// boundsOf is the box around the nodes and the view's rectangle.
export function boundsOf(nodes: readonly OverviewNode[], view?: Rect): Rect | undefined {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const n of nodes) {
    if (n.x < x0) x0 = n.x;
    if (n.y < y0) y0 = n.y;
    if (n.x + nodeWidth > x1) x1 = n.x + nodeWidth;
    if (n.y + nodeHeight > y1) y1 = n.y + nodeHeight;
  }
  if (view) {
    x0 = Math.min(x0, view.x);
    y0 = Math.min(y0, view.y);
    x1 = Math.max(x1, view.x + view.width);
    y1 = Math.max(y1, view.y + view.height);
  }
  if (x0 === Infinity) return undefined;
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

// The view in the graph's coordinates.
const viewOf = (s: ReactFlowState): Rect => {
  const [tx, ty, zoom] = s.transform;
  return { x: -tx / zoom, y: -ty / zoom, width: s.width / zoom, height: s.height / zoom };
};
const sameRect = (a: Rect, b: Rect) => a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;

type Props = {
  nodes: readonly OverviewNode[];
  width: number;
  height: number;
  // Called when the person moves the view from here: it is their move, and
  // the graph stops following the running node.
  onPersonMove: () => void;
};

export function GraphOverview({ nodes, width, height, onPersonMove }: Props) {
  const flow = useReactFlow();
  const view = useStore(viewOf, sameRect);
  const dots = useRef<HTMLCanvasElement>(null);
  const frameCanvas = useRef<HTMLCanvasElement>(null);
  const dpr = typeof window === "undefined" ? 1 : window.devicePixelRatio || 1;

  // The nodes' box changes only when the graph does; the view widens it
  // only when it reaches past the nodes (it then moves with every pan, as
  // React Flow's MiniMap always did).
  const nodeBounds = useMemo(() => boundsOf(nodes), [nodes]);
  const bounds = useMemo(() => (nodeBounds ? union(nodeBounds, view) : view), [nodeBounds, view]);
  const frameKey = `${bounds.x},${bounds.y},${bounds.width},${bounds.height}`;
  const frame = useMemo(() => frameOf(bounds, width, height), [frameKey, width, height]); // eslint-disable-line react-hooks/exhaustive-deps

  // A theme change (light, dark) repaints with the other colours. Colours
  // are read from the stylesheet once a theme: a read of a custom property
  // makes the browser bring the page's styles up to date first, which
  // after a render is the whole page's.
  const theme = useColourScheme();
  const colours = useMemo(() => new Map<string, string>(), [theme]); // eslint-disable-line react-hooks/exhaustive-deps
  const colourOf = (el: HTMLElement, c: string) => {
    let v = colours.get(c);
    if (v === undefined) {
      v = resolveColour(getComputedStyle(el), c);
      colours.set(c, v);
    }
    return v;
  };

  useEffect(() => {
    const paint = () => {
      const ctx = context(dots.current, width, height, dpr);
      if (!ctx) return;
      const el = dots.current!;
      // At least two pixels wide and one high: a long run's nodes are far
      // smaller than a pixel.
      const w = Math.max(nodeWidth * frame.scale, 2);
      const h = Math.max(nodeHeight * frame.scale, 1);
      let last = "";
      for (const n of nodes) {
        const c = colourOf(el, n.colour);
        if (c !== last) ctx.fillStyle = last = c;
        ctx.fillRect(n.x * frame.scale + frame.offsetX, n.y * frame.scale + frame.offsetY, w, h);
      }
    };
    // Painted before the next frame, in a task of its own: 20,000 nodes
    // take 10 ms, after a render that brought them and took long enough.
    // Graphs that come faster than frames are painted once.
    if (typeof requestAnimationFrame !== "function") return paint();
    const frameId = requestAnimationFrame(paint);
    return () => cancelAnimationFrame(frameId);
  }, [nodes, frame, width, height, dpr, colours]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    const ctx = context(frameCanvas.current, width, height, dpr);
    if (!ctx) return;
    const el = frameCanvas.current!;
    // A frame too small to see (the view on a long run is a sliver of
    // it) is drawn at a size that can be found, about its centre.
    const w = Math.max(view.width * frame.scale, minFrame);
    const h = Math.max(view.height * frame.scale, minFrame);
    const x = (view.x + view.width / 2) * frame.scale + frame.offsetX - w / 2;
    const y = (view.y + view.height / 2) * frame.scale + frame.offsetY - h / 2;
    // Outside the view is dimmed, the view framed.
    ctx.fillStyle = colourOf(el, "var(--overview-mask)");
    ctx.beginPath();
    ctx.rect(0, 0, width, height);
    ctx.rect(x, y, w, h);
    ctx.fill("evenodd");
    ctx.strokeStyle = colourOf(el, "var(--accent)");
    ctx.lineWidth = 1;
    ctx.strokeRect(x + 0.5, y + 0.5, Math.max(w - 1, 1), Math.max(h - 1, 1));
  }, [view, frame, width, height, dpr, colours]); // eslint-disable-line react-hooks/exhaustive-deps

  // A press or a drag centres the view where it points, at the zoom it has.
  const pointTo = (e: PointerEvent<HTMLDivElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    const gx = (e.clientX - r.left - frame.offsetX) / frame.scale;
    const gy = (e.clientY - r.top - frame.offsetY) / frame.scale;
    onPersonMove();
    void flow.setCenter(gx, gy, { zoom: flow.getViewport().zoom, duration: 0 });
  };
  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    pointTo(e);
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    if (e.currentTarget.hasPointerCapture(e.pointerId)) pointTo(e);
  };
  // The wheel zooms the graph about its centre, as the zoom buttons do.
  const onWheel = (e: WheelEvent<HTMLDivElement>) => {
    const zoom = flow.getViewport().zoom * (e.deltaY < 0 ? 1.2 : 1 / 1.2);
    void flow.zoomTo(zoom, { duration: 0 });
  };

  const size = { width, height };
  return (
    <div
      className="graph-minimap"
      role="img"
      aria-label="Graph overview"
      data-testid="graph-overview"
      style={size}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onWheel={onWheel}
    >
      <canvas ref={dots} width={Math.round(width * dpr)} height={Math.round(height * dpr)} style={size} />
      <canvas ref={frameCanvas} width={Math.round(width * dpr)} height={Math.round(height * dpr)} style={size} />
    </div>
  );
}

// overviewNodes is what the overview paints of the flow's nodes: a fork's
// origin in the fork's violet, a step in its status's colour.
export function overviewNodes(nodes: readonly { type?: string; position: { x: number; y: number }; data: unknown }[]): OverviewNode[] {
  return nodes.map((n) => ({
    x: n.position.x,
    y: n.position.y,
    colour: n.type === "origin" ? "var(--violet)" : statusColour((n.data as { status: string }).status),
  }));
}

function union(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}

// context is a canvas's 2D context, cleared and scaled for the screen's
// pixel ratio; undefined where there is none (jsdom).
function context(canvas: HTMLCanvasElement | null, width: number, height: number, dpr: number): CanvasRenderingContext2D | undefined {
  const ctx = canvas?.getContext("2d");
  if (!ctx) return undefined;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  return ctx;
}

// resolveColour turns var(--name), however nested, into the colour the
// stylesheet gives it here: a canvas takes no custom properties.
function resolveColour(style: CSSStyleDeclaration, value: string): string {
  for (let i = 0; i < 8; i++) {
    const m = /^var\((--[\w-]+)\)$/.exec(value.trim());
    if (!m) return value;
    value = style.getPropertyValue(m[1]!) || "transparent";
  }
  return value;
}

// useColourScheme is the system's light or dark, which the stylesheet follows.
function useColourScheme(): string {
  return useSyncExternalStore(subscribeScheme, schemeNow, () => "light");
}

const darkQuery = () => (typeof window !== "undefined" && typeof window.matchMedia === "function" ? window.matchMedia("(prefers-color-scheme: dark)") : undefined);
const schemeNow = () => (darkQuery()?.matches ? "dark" : "light");
function subscribeScheme(notify: () => void): () => void {
  const q = darkQuery();
  q?.addEventListener("change", notify);
  return () => q?.removeEventListener("change", notify);
}
