import { useNodesInitialized, useReactFlow, type Viewport } from "@xyflow/react";
import { useCallback, useEffect, useRef, type RefObject } from "react";
import { nodeHeight, nodeWidth } from "./layout";
import { holdWhilePressed, type ViewHold } from "./viewHold";
import { inView, viewportToFit } from "./viewport";

type Point = { x: number; y: number };

// The flow's zoom bounds (GraphCanvas passes them to the flow) and how a fit
// frames the graph. A fit never zooms out below readableZoom, where a
// node's smallest text (11.5 px) is still 8.6 px on screen: a graph larger
// than that is shown in part, around the running node, and scrolls. A
// person may zoom out further.
export const minZoom = 0.1;
export const maxZoom = 1.75;
export const readableZoom = 0.75;
const fitOptions = { padding: 0.12, minZoom: readableZoom, maxZoom: 1 };
// A pan shorter than this, in pixels, is a click's jitter, not a move.
const userMoveSlack = 4;
// How long a move to a node takes, when moves are animated.
const centreMs = 250;
// A move to a node farther than this many canvas sizes is not animated.
const farFlight = 3;

type Params = {
  wrapper: RefObject<HTMLDivElement | null>;
  // The nodes' top-left corners, in the order they started.
  corners: readonly Point[];
  // The node to keep in view (the running one), and the selected one.
  active?: Point;
  selected?: Point;
  // Set once the person moved the view: it then stays where they put it.
  userMoved: boolean;
  setUserMoved: (m: boolean) => void;
  // False in a replay: the scrubber moves the running node thousands of
  // pixels several times a second, and an animated move would draw the
  // nodes it passes over on every frame (default true).
  animate?: boolean;
};

// useGraphView moves the graph's view by itself: it fits the graph at first,
// as it grows while it fits whole, and when the canvas is resized; keeps
// the running node in view; brings a node selected elsewhere into view.
// Every move is synchronous (the view never moves frames after what caused
// it) and waits while a pointer is pressed on the canvas (viewHold.ts). It
// returns the flow's move handlers, which tell the person's moves from its
// own, and fit, for the Fit button: it undoes the person's pan and zoom.
//
// A pan of the person's stops the following (setUserMoved); a zoom of
// theirs (the wheel with Ctrl, a pinch, the zoom buttons, the minimap's
// wheel) does not: the graph then keeps their zoom, fits no more, and
// keeps the running node in view at that zoom.
export function useGraphView({ wrapper, corners, active, selected, userMoved, setUserMoved, animate = true }: Params) {
  const flow = useReactFlow();
  const initialized = useNodesInitialized();
  const fitted = useRef(false);
  // The zoom the person chose, once they zoomed.
  const zoomed = useRef<number | undefined>(undefined);
  // Set while the graph sets its own view: the moves it makes are not the person's.
  const own = useRef(false);

  const hold = useRef<ViewHold | undefined>(undefined);
  useEffect(() => {
    if (!wrapper.current) return;
    const h = holdWhilePressed(wrapper.current);
    hold.current = h;
    return () => {
      h.dispose();
      hold.current = undefined;
    };
  }, [wrapper]);
  const move = useCallback((kind: string, f: () => void) => (hold.current ? hold.current.run(kind, f) : f()), []);

  const latest = useRef({ corners, active, selected, userMoved });
  latest.current = { corners, active, selected, userMoved };

  // centre brings a node into view at the present zoom, unless it is in
  // view. Linear: the flow's default flight zooms out and in on the way,
  // which would read as a zoom of the person's.
  const centre = useCallback(
    (pos: Point | undefined) => {
      const el = wrapper.current;
      if (!pos || !el || !fitted.current) return;
      const vp = flow.getViewport();
      if (inView(vp, el.clientWidth, el.clientHeight, pos)) return;
      // A flight of more than a few screens (a long run read from its
      // history, far from where its first page left the view) jumps: each
      // of its frames would draw the nodes it passes over, and nobody
      // follows a flight that long.
      const far = Math.hypot(pos.x * vp.zoom + vp.x - el.clientWidth / 2, pos.y * vp.zoom + vp.y - el.clientHeight / 2) > farFlight * Math.max(el.clientWidth, el.clientHeight);
      void flow.setCenter(pos.x + nodeWidth / 2, pos.y + nodeHeight / 2, {
        zoom: vp.zoom,
        duration: animate && !far ? centreMs : 0,
        interpolate: "linear",
      });
    },
    [flow, wrapper, animate],
  );

  // fit shows the whole graph, or as much as is readable around the running
  // node (viewport.ts); not once the person moved or zoomed the view, unless
  // forced (the Fit button). Grown, the graph is fitted again only while it
  // fits whole: past that the view stays, and follows. A fit held during a
  // press runs later.
  const fitNow = useCallback(
    (why: "grow" | "resize" | "force") => {
      const { corners: cs, userMoved: moved, active: at } = latest.current;
      const el = wrapper.current;
      // Before the flow has its pan and zoom, there is no view to set.
      if (!el || !flow.viewportInitialized) return;
      if (why !== "force" && moved) return;
      if (why !== "force" && zoomed.current !== undefined) return centre(at);
      const f = viewportToFit(cs, el.clientWidth, el.clientHeight, fitOptions, at);
      if (!f) return;
      const first = !fitted.current;
      if (why === "grow" && !first && !f.whole) return centre(at);
      fitted.current = true;
      own.current = true;
      try {
        void flow.setViewport(f.viewport);
      } finally {
        own.current = false;
      }
      // A run opened at a node (from a fork's origin) shows that node.
      if (first) centre(latest.current.selected);
    },
    [flow, wrapper, centre],
  );
  const fit = useCallback((why: "grow" | "resize" | "force") => move("fit", () => fitNow(why)), [move, fitNow]);

  // The first view; and, as the graph grows, the whole of it while it fits.
  // Not once the person moved the view.
  useEffect(() => {
    if (!initialized || corners.length === 0 || userMoved) return;
    fit("grow");
  }, [initialized, corners.length, userMoved, fit]);

  // A canvas resized (the splitter, a maximised pane, the Graph tab) is
  // fitted again.
  useEffect(() => {
    const el = wrapper.current;
    if (!el) return;
    let size = `${el.clientWidth}x${el.clientHeight}`;
    const ro = new ResizeObserver(() => {
      const now = `${el.clientWidth}x${el.clientHeight}`;
      if (now === size) return;
      size = now;
      if (fitted.current && !latest.current.userMoved) fit("resize");
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [fit, wrapper]);

  // The running node (or the last one) stays in view, unless the person
  // moved the view.
  useEffect(() => {
    if (!active || userMoved) return;
    move("follow", () => {
      if (!latest.current.userMoved) centre(latest.current.active);
    });
  }, [active, userMoved, move, centre]);

  // A node selected from elsewhere (a change in the Files tab) is brought
  // into view; the person's own click is on a node already in view.
  useEffect(() => {
    if (selected) move("reveal", () => centre(latest.current.selected));
  }, [selected, move, centre]);

  // The person moved the view: a pan of theirs changed it (a press on a
  // node starts a pan gesture too: the nodes are not dragged, and clicking
  // a node must not stop the following), or they zoomed, which any change
  // of the zoom not made here is: the zoom buttons and the minimap's wheel
  // move the view without an event.
  const moveStart = useRef<Viewport | undefined>(undefined);
  const zoomedNow = useRef(false);
  const onMoveStart = useCallback((_: unknown, vp: Viewport) => {
    moveStart.current = own.current ? undefined : vp;
    zoomedNow.current = false;
  }, []);
  const onMove = useCallback(
    (event: unknown, vp: Viewport) => {
      const from = moveStart.current;
      if (own.current || !from) return;
      if (vp.zoom !== from.zoom) {
        zoomed.current = vp.zoom;
        zoomedNow.current = true;
        return;
      }
      if (event && !latest.current.userMoved && Math.abs(vp.x - from.x) + Math.abs(vp.y - from.y) > userMoveSlack) setUserMoved(true);
    },
    [setUserMoved],
  );

  // A zoom of the person's while following ends with the running node in
  // view: the zoom buttons zoom about the canvas's centre, not about it.
  const onMoveEnd = useCallback(() => {
    if (!zoomedNow.current) return;
    zoomedNow.current = false;
    move("follow", () => {
      if (!latest.current.userMoved) centre(latest.current.active);
    });
  }, [move, centre]);

  // The Fit button: the person's pan and zoom are undone, and the view follows again.
  const fitAgain = useCallback(() => {
    zoomed.current = undefined;
    latest.current.userMoved = false;
    setUserMoved(false);
    fit("force");
  }, [fit, setUserMoved]);
  return { onMoveStart, onMove, onMoveEnd, fitAgain };
}
