import { useNodesInitialized, useReactFlow, type Viewport } from "@xyflow/react";
import { useCallback, useEffect, useRef, type RefObject } from "react";
import { nodeHeight, nodeWidth } from "./layout";
import { holdWhilePressed, type ViewHold } from "./viewHold";
import { inView, viewportToFit } from "./viewport";

type Point = { x: number; y: number };

// The flow's zoom bounds (GraphCanvas passes them to the flow) and how a fit
// frames the graph.
export const minZoom = 0.1;
export const maxZoom = 1.75;
const fitOptions = { padding: 0.12, minZoom, maxZoom: 1 };
// A graph larger than this is not fitted whole (every node would be a
// speck): the view shows its last nodes, where the run is.
const fitWholeUpTo = 40;
const fitLast = 5;
// A pan shorter than this, in pixels, is a click's jitter, not a move.
const userMoveSlack = 4;
// How long a move to a node takes, when moves are animated.
const centreMs = 250;

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
// as it grows while small, and when the canvas is resized; keeps the running
// node in view; brings a node selected elsewhere into view. Every move is
// synchronous (the view never moves frames after what caused it) and waits
// while a pointer is pressed on the canvas (viewHold.ts). It returns the
// flow's move handlers, which tell the person's moves from its own.
export function useGraphView({ wrapper, corners, active, selected, userMoved, setUserMoved, animate = true }: Params) {
  const flow = useReactFlow();
  const initialized = useNodesInitialized();
  const fitted = useRef(false);

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

  // centre brings a node into view at the present zoom, unless it is in view.
  const centre = useCallback(
    (pos: Point | undefined) => {
      const el = wrapper.current;
      if (!pos || !el || !fitted.current || inView(flow.getViewport(), el.clientWidth, el.clientHeight, pos)) return;
      void flow.setCenter(pos.x + nodeWidth / 2, pos.y + nodeHeight / 2, { zoom: flow.getViewport().zoom, duration: animate ? centreMs : 0 });
    },
    [flow, wrapper, animate],
  );

  // fit shows the whole graph when it is small, else its last nodes; not
  // once the person moved the view (a fit held during a press runs later).
  const fit = useCallback(() => {
    move("fit", () => {
      const { corners: cs, userMoved: moved } = latest.current;
      const el = wrapper.current;
      // Before the flow has its pan and zoom, there is no view to set.
      if (!el || moved || !flow.viewportInitialized) return;
      const vp = viewportToFit(cs.length <= fitWholeUpTo ? cs : cs.slice(-fitLast), el.clientWidth, el.clientHeight, fitOptions);
      if (!vp) return;
      const first = !fitted.current;
      fitted.current = true;
      void flow.setViewport(vp);
      // A run opened at a node (from a fork's origin) shows that node.
      if (first) centre(latest.current.selected);
    });
  }, [flow, move, wrapper, centre]);

  // The first view; and while the graph is small, the whole of it as it
  // grows. Not once the person moved the view.
  useEffect(() => {
    if (!initialized || corners.length === 0 || userMoved) return;
    if (fitted.current && corners.length > fitWholeUpTo) return;
    fit();
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
      if (fitted.current && !latest.current.userMoved) fit();
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

  // The person moved the view: a pan or a zoom of theirs changed it. A press
  // on a node starts a pan gesture too (the nodes are not dragged), and
  // clicking a node must not stop the following.
  const moveStart = useRef<Viewport | undefined>(undefined);
  const onMoveStart = useCallback((event: unknown, vp: Viewport) => {
    moveStart.current = event ? vp : undefined;
  }, []);
  const onMove = useCallback(
    (event: unknown, vp: Viewport) => {
      const from = moveStart.current;
      if (!event || !from || latest.current.userMoved) return;
      if (Math.abs(vp.x - from.x) + Math.abs(vp.y - from.y) > userMoveSlack || vp.zoom !== from.zoom) setUserMoved(true);
    },
    [setUserMoved],
  );
  return { onMoveStart, onMove };
}
