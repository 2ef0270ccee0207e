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
  type NodeMouseHandler,
  type NodeTypes,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from "react";
import { useApp } from "../../store/context";
import { activeNode, graphFromTranscript, layoutGraph, nodeHeight, nodeWidth, structureKey, type StepNode as StepNodeType } from "./layout";
import { NodeDetailPanel } from "./NodeDetail";
import { StepNode } from "./StepNode";

// At module scope: a new object each render would remount every node.
const nodeTypes: NodeTypes = { step: StepNode };

const fitViewOptions = { padding: 0.12, maxZoom: 1 };

// The minimap paints each node in its status colour.
const statusColours: Record<string, string> = {
  running: "#2563eb",
  waiting: "#f59e0b",
  failed: "#c62828",
  interrupted: "#c62828",
  succeeded: "#15803d",
};
const minimapColour = (n: { data: unknown }) => statusColours[(n.data as StepNodeType["data"]).status] ?? "#9aa3af";

// GraphPanel is the live execution graph of a run, built from the same
// reducer state as the transcript, and the details of the node selected in
// it. The selection is the store's, so that other views (the Files tab) can
// point at a node.
export function GraphPanel({ runId }: { runId: string }) {
  const selected = useApp((s) => s.runView.node);
  const setSelected = useApp((s) => s.selectNode);
  return (
    <section aria-label="Graph" className="graph-pane">
      <ReactFlowProvider>
        <GraphCanvas runId={runId} selected={selected} onSelect={setSelected} />
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

function GraphCanvas({ runId, selected, onSelect }: { runId: string; selected?: string; onSelect: (id: string | undefined) => void }) {
  const t = useApp((s) => s.stream.runs[runId]);
  const graph = useMemo(() => graphFromTranscript(t), [t]);
  // Lay out again only when nodes or edges were added, not on each streamed token.
  const key = structureKey(graph.nodes, graph.edges);
  const laid = useMemo(() => layoutGraph(graph.nodes, graph.edges), [key]);
  const nodes = useMemo(() => {
    const data = new Map(graph.nodes.map((n) => [n.id, n]));
    return laid.nodes.map((n) => ({ ...n, data: data.get(n.id) ?? n.data, selected: n.id === selected }));
  }, [laid, graph, selected]);
  const edges = useMemo(() => {
    const running = new Set(graph.nodes.filter((n) => n.status === "running").map((n) => n.id));
    return laid.edges.map((e) => (e.id.startsWith("after:") && running.has(e.target) ? { ...e, animated: true } : e));
  }, [laid, graph]);

  const flow = useReactFlow();
  const initialized = useNodesInitialized();
  const wrapper = useRef<HTMLDivElement>(null);
  // Set when the person pans or zooms: the view then stays where they put it
  // until they fit it again or ask to follow.
  const [userMoved, setUserMoved] = useState(false);
  const fitted = useRef(false);

  useEffect(() => {
    if (!initialized || fitted.current || nodes.length === 0) return;
    fitted.current = true;
    // After the frame that gave the flow its nodes, or it fits an empty graph.
    const raf = requestAnimationFrame(() => void flow.fitView(fitViewOptions));
    return () => {
      cancelAnimationFrame(raf);
      fitted.current = false;
    };
  }, [initialized, nodes.length, flow]);

  // Keep the running (or waiting) node in view.
  const active = activeNode(graph.nodes);
  const activePos = laid.nodes.find((n) => n.id === active)?.position;
  useEffect(() => {
    if (!activePos || userMoved || !fitted.current || inView(flow, wrapper, activePos)) return;
    void flow.setCenter(activePos.x + nodeWidth / 2, activePos.y + nodeHeight / 2, { zoom: flow.getViewport().zoom, duration: 250 });
  }, [activePos, userMoved, flow]);

  // A node selected from elsewhere (a change in the Files tab) is brought
  // into view; the person's own click is on a node already in view.
  const selectedPos = laid.nodes.find((n) => n.id === selected)?.position;
  useEffect(() => {
    if (!selectedPos || !fitted.current || inView(flow, wrapper, selectedPos)) return;
    void flow.setCenter(selectedPos.x + nodeWidth / 2, selectedPos.y + nodeHeight / 2, { zoom: flow.getViewport().zoom, duration: 250 });
  }, [selectedPos, flow]);

  const onNodeClick = useCallback<NodeMouseHandler>((_, n) => onSelect(n.id), [onSelect]);

  return (
    <div className="graph-canvas" ref={wrapper}>
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodeClick={onNodeClick}
        fitView
        fitViewOptions={fitViewOptions}
        onPaneClick={() => onSelect(undefined)}
        onMoveStart={(event) => {
          // Programmatic moves (fit, follow) come without an event.
          if (event) setUserMoved(true);
        }}
        nodesDraggable={false}
        nodesConnectable={false}
        minZoom={0.2}
        maxZoom={1.75}
        proOptions={{ hideAttribution: true }}
      >
        <Controls showInteractive={false} onFitView={() => setUserMoved(false)} />
        <MiniMap pannable zoomable nodeColor={minimapColour} ariaLabel="Graph overview" />
        {graph.nodes.length === 0 && (
          <Panel position="top-center" className="graph-empty">
            No nodes yet.
          </Panel>
        )}
        {userMoved && active && (
          <Panel position="top-right">
            <button type="button" className="graph-follow" onClick={() => setUserMoved(false)}>
              Follow running node
            </button>
          </Panel>
        )}
      </ReactFlow>
    </div>
  );
}
