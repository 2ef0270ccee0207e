import "@xyflow/react/dist/style.css";
import "./graph.css";
import {
  Controls,
  MiniMap,
  Panel,
  ReactFlow,
  ReactFlowProvider,
  useNodesInitialized,
  useReactFlow,
  type Edge,
  type NodeChange,
  Position,
  type NodeHandle,
  type NodeMouseHandler,
  type NodeTypes,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from "react";
import { useApp } from "../../store/context";
import { PaneHeader } from "../../ui/PaneHeader";
import { statusColour } from "../../ui/status";
import { foldGraph, type FoldChoices } from "./fold";
import {
  activeNode,
  graphFromTranscript,
  keepSame,
  layoutGraph,
  nodeHeight,
  nodeWidth,
  structureKey,
  type StepData,
  type StepNode as StepNodeType,
} from "./layout";
import { NodeDetailPanel } from "./NodeDetail";
import { FoldToggle, StepNode } from "./StepNode";

// At module scope: a new object each render would remount every node.
const nodeTypes: NodeTypes = { step: StepNode };

// Every node's two handles, where StepNode draws them: edges in at the top
// centre, out at the bottom centre.
const handleSize = 6;
const handles: NodeHandle[] = [
  { type: "target", position: Position.Top, x: nodeWidth / 2 - handleSize / 2, y: -handleSize / 2, width: handleSize, height: handleSize },
  { type: "source", position: Position.Bottom, x: nodeWidth / 2 - handleSize / 2, y: nodeHeight - handleSize / 2, width: handleSize, height: handleSize },
];

const fitViewOptions = { padding: 0.12, maxZoom: 1 };
// A graph larger than this is not fitted whole when it opens (every node
// would be a speck): the view shows its last nodes, where the run is.
const fitWholeUpTo = 40;
const fitLast = 5;
// Up to this many nodes all are rendered; past it only those in view (a
// small graph pans more smoothly with its nodes in place).
const renderAllUpTo = 200;

const minimapSize = { width: 150, height: 100 };

// The minimap paints each node in its status colour, as the badges are.
const minimapColour = (n: { data: unknown }) => statusColour((n.data as StepNodeType["data"]).status);

// GraphPanel is the live execution graph of a run, built from the same
// reducer state as the transcript, and the details of the node selected in
// it. The selection is the store's, so that other views (the Files tab) can
// point at a node.
export function GraphPanel({ runId }: { runId: string }) {
  const selected = useApp((s) => s.runView.node);
  const setSelected = useApp((s) => s.selectNode);
  // Set when the person pans or zooms: the view then stays where they put it
  // until they fit it again or ask to follow.
  const [userMoved, setUserMoved] = useState(false);
  return (
    <section aria-label="Graph" className="graph-pane pane">
      <PaneHeader pane="graph">
        <span className="spacer" />
        <button
          type="button"
          className="graph-follow"
          data-testid="graph-follow"
          aria-pressed={!userMoved}
          title={userMoved ? "Keep the running node in view again" : "The running node stays in view; pan or zoom to look elsewhere"}
          onClick={() => setUserMoved((m) => !m)}
        >
          {userMoved ? "Follow" : "Following"}
        </button>
      </PaneHeader>
      <ReactFlowProvider>
        <GraphCanvas runId={runId} selected={selected} onSelect={setSelected} userMoved={userMoved} setUserMoved={setUserMoved} />
      </ReactFlowProvider>
      {selected && <NodeDetailPanel key={selected} runId={runId} nodeId={selected} onClose={() => setSelected(undefined)} />}
    </section>
  );
}

// inView says whether a node at pos is wholly inside the canvas.
function inView(flow: ReturnType<typeof useReactFlow>, wrapper: RefObject<HTMLDivElement | null>, pos: { x: number; y: number }): boolean {
  if (!wrapper.current) return true;
  const { x, y, zoom } = flow.getViewport();
  const left = pos.x * zoom + x;
  const top = pos.y * zoom + y;
  return left >= 0 && top >= 0 && left + nodeWidth * zoom <= wrapper.current.clientWidth && top + nodeHeight * zoom <= wrapper.current.clientHeight;
}

type CanvasProps = {
  runId: string;
  selected?: string;
  onSelect: (id: string | undefined) => void;
  userMoved: boolean;
  setUserMoved: (m: boolean) => void;
};

function GraphCanvas({ runId, selected, onSelect, userMoved, setUserMoved }: CanvasProps) {
  const t = useApp((s) => s.stream.runs[runId]);
  const [choices, setChoices] = useState<FoldChoices>({});
  const toggleFold = useCallback((id: string, open: boolean) => setChoices((c) => ({ ...c, [id]: open })), []);

  const graph = useMemo(() => graphFromTranscript(t), [t]);
  // Steps that draw as before keep their objects, so their nodes do not render again.
  const stable = useRef(new Map<string, StepData>());
  const folded = useMemo(() => {
    const f = foldGraph(graph.nodes, graph.edges, choices, selected);
    return { ...f, nodes: keepSame(stable.current, f.nodes) };
  }, [graph, choices, selected]);

  // Lay out again only when nodes or edges were added (or folded), not on each streamed token.
  const key = structureKey(folded.nodes, folded.edges);
  // Keyed on the structure: the steps inside may be newer, positions are not.
  const laid = useMemo(() => layoutGraph(folded.nodes, folded.edges), [key]);
  const position = useMemo(() => new Map(laid.nodes.map((n) => [n.id, n.position])), [laid]);

  // Flow nodes keep their objects while their step and selection stay.
  const flowNodes = useRef(new Map<string, StepNodeType>());
  const nodes = useMemo(() => {
    const prev = flowNodes.current;
    const next = new Map<string, StepNodeType>();
    const list: StepNodeType[] = [];
    for (const step of folded.nodes) {
      const pos = position.get(step.id);
      if (!pos) continue;
      const isSelected = step.id === selected;
      const p = prev.get(step.id);
      const node: StepNodeType =
        p && p.data === step && p.position === pos && !!p.selected === isSelected
          ? p
          : {
              id: step.id,
              type: "step",
              position: pos,
              width: nodeWidth,
              height: nodeHeight,
              // Declared, not measured: a node's size is fixed by its CSS,
              // and nodes out of view are never rendered to be measured
              // (the flow would wait for them before fitting its view).
              measured: { width: nodeWidth, height: nodeHeight },
              handles,
              data: step,
              draggable: false,
              connectable: false,
              selected: isSelected,
            };
      next.set(step.id, node);
      list.push(node);
    }
    flowNodes.current = next;
    return list;
  }, [laid, position, folded, selected]);

  // An after edge into a running node is animated.
  const flowEdges = useRef(new Map<string, Edge>());
  const edges = useMemo(() => {
    const running = new Set(folded.nodes.filter((n) => n.status === "running").map((n) => n.id));
    const prev = flowEdges.current;
    const next = new Map<string, Edge>();
    const list = laid.edges.map((e) => {
      const animated = e.id.startsWith("after:") && running.has(e.target);
      const p = prev.get(e.id);
      const edge = p && p.source === e.source && !!p.animated === animated ? p : animated ? { ...e, animated } : e;
      next.set(e.id, edge);
      return edge;
    });
    flowEdges.current = next;
    return list;
  }, [laid, folded]);

  const flow = useReactFlow();
  const initialized = useNodesInitialized();
  const wrapper = useRef<HTMLDivElement>(null);
  const fitted = useRef(false);

  // fit shows the whole graph when it is small, else its last nodes.
  const latestNodes = useRef(nodes);
  latestNodes.current = nodes;
  const moved = useRef(userMoved);
  moved.current = userMoved;
  const fit = useCallback(() => {
    const ns = latestNodes.current;
    if (ns.length === 0) return;
    fitted.current = true;
    const whole = ns.length <= fitWholeUpTo;
    void flow.fitView(whole ? fitViewOptions : { ...fitViewOptions, nodes: ns.slice(-fitLast).map((n) => ({ id: n.id })) });
  }, [flow]);

  // The first view; and while the graph is small, the whole of it as it
  // grows. Not once the person moved the view.
  useEffect(() => {
    if (!initialized || nodes.length === 0 || userMoved) return;
    if (fitted.current && nodes.length > fitWholeUpTo) return;
    // After the frame that gave the flow its nodes, or it fits an empty graph.
    const raf = requestAnimationFrame(fit);
    return () => cancelAnimationFrame(raf);
  }, [initialized, nodes.length, userMoved, fit]);

  // A canvas resized (the splitter, a maximised pane) is fitted again.
  useEffect(() => {
    const el = wrapper.current;
    if (!el) return;
    let size = `${el.clientWidth}x${el.clientHeight}`;
    const ro = new ResizeObserver(() => {
      const now = `${el.clientWidth}x${el.clientHeight}`;
      if (now === size) return;
      size = now;
      if (fitted.current && !moved.current) fit();
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [fit]);

  // Keep the running (or waiting) node in view, else the last one (a run
  // that ended, or is read from its history): a folded call is followed on
  // its model node.
  const activeRaw = activeNode(graph.nodes);
  const active = activeRaw === undefined ? folded.nodes.at(-1)?.id : (folded.hidden.get(activeRaw) ?? activeRaw);
  const activePos = active === undefined ? undefined : position.get(active);
  useEffect(() => {
    if (!activePos || userMoved || !fitted.current || inView(flow, wrapper, activePos)) return;
    void flow.setCenter(activePos.x + nodeWidth / 2, activePos.y + nodeHeight / 2, { zoom: flow.getViewport().zoom, duration: 250 });
  }, [activePos, userMoved, flow]);

  // A node selected from elsewhere (a change in the Files tab) is brought
  // into view; the person's own click is on a node already in view.
  const selectedPos = selected === undefined ? undefined : position.get(selected);
  useEffect(() => {
    if (!selectedPos || !fitted.current || inView(flow, wrapper, selectedPos)) return;
    void flow.setCenter(selectedPos.x + nodeWidth / 2, selectedPos.y + nodeHeight / 2, { zoom: flow.getViewport().zoom, duration: 250 });
  }, [selectedPos, flow]);

  const onNodeClick = useCallback<NodeMouseHandler>((_, n) => onSelect(n.id), [onSelect]);
  // Enter or Space on a focused node selects it, as a click does.
  const onNodesChange = useCallback(
    (changes: NodeChange[]) => {
      for (const c of changes) if (c.type === "select" && c.selected) onSelect(c.id);
    },
    [onSelect],
  );

  return (
    <FoldToggle.Provider value={toggleFold}>
      <div className="graph-canvas" ref={wrapper}>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          onNodeClick={onNodeClick}
          onNodesChange={onNodesChange}
          onPaneClick={() => onSelect(undefined)}
          onMoveStart={(event) => {
            // Programmatic moves (fit, follow) come without an event.
            if (event) setUserMoved(true);
          }}
          nodesDraggable={false}
          nodesConnectable={false}
          onlyRenderVisibleElements={nodes.length > renderAllUpTo}
          colorMode="system"
          minZoom={0.1}
          maxZoom={1.75}
          proOptions={{ hideAttribution: true }}
        >
          <Controls showInteractive={false} onFitView={() => setUserMoved(false)} />
          <MiniMap pannable zoomable nodeColor={minimapColour} ariaLabel="Graph overview" style={minimapSize} />
          {graph.nodes.length === 0 && (
            <Panel position="top-center" className="graph-empty">
              No nodes yet: they appear here as the run starts model and tool calls.
            </Panel>
          )}
        </ReactFlow>
      </div>
    </FoldToggle.Provider>
  );
}
