import "@xyflow/react/dist/style.css";
import "./graph.css";
import {
  ControlButton,
  Controls,
  Panel,
  ReactFlow,
  ReactFlowProvider,
  type Edge,
  type NodeChange,
  Position,
  type NodeHandle,
  type NodeMouseHandler,
  type NodeTypes,
  useStore,
} from "@xyflow/react";
import { useCallback, useDeferredValue, useMemo, useRef, useState } from "react";
import { useApp } from "../../store/context";
import { Later } from "../../ui/Later";
import { PaneHeader } from "../../ui/PaneHeader";
import { type FoldChoices, type Folded } from "./fold";
import {
  activeNode,
  nodeHeight,
  nodeWidth,
  originOf,
  type OriginNode as OriginNodeType,
  type StepNode as StepNodeType,
} from "./layout";
import { NodeDetailPanel } from "./NodeDetail";
import { OpenRun, OriginNode } from "./ForkLinks";
import { FoldToggle, StepNode } from "./StepNode";
import { GraphOverview, overviewNodes } from "./GraphOverview";
import { cellArea, inArea, viewCell } from "./window";
import type { Placed } from "./placer";
import { useLaid } from "./useLaid";
import { maxZoom, minZoom, useGraphView } from "./useGraphView";
import { useRunGraph } from "./useRunGraph";

// At module scope: a new object each render would remount every node.
const nodeTypes: NodeTypes = { step: StepNode, origin: OriginNode };

// Every node's two handles, where StepNode draws them: edges in at the top
// centre, out at the bottom centre.
const handleSize = 6;
const handles: NodeHandle[] = [
  { type: "target", position: Position.Top, x: nodeWidth / 2 - handleSize / 2, y: -handleSize / 2, width: handleSize, height: handleSize },
  { type: "source", position: Position.Bottom, x: nodeWidth / 2 - handleSize / 2, y: nodeHeight - handleSize / 2, width: handleSize, height: handleSize },
];

// Up to this many nodes all are given to the flow and rendered; past it
// only those around the view are given (window.ts) and those in view
// rendered (a small graph pans more smoothly with its nodes in place). Not
// in a replay: there a move of the scrubber adds or removes up to this many
// nodes at once, and mounting them all took 150-300 ms a jump back on a
// long run.
const renderAllUpTo = 200;
// The view's cell of a small graph, which is given whole: none.
const noCell = () => "";
// A graph with no layout yet (a long run's first nodes are laid out over
// several tasks).
const noFold: Folded = { nodes: [], edges: [], hidden: new Map() };
const noPlace: Placed = { positions: new Map(), edges: [] };

// The minimap stands in a column of its own beside the canvas, never over
// its nodes (a pan can bring any node under any corner of the canvas); a
// canvas too narrow to spare the column goes without it (graph.css).
const minimapSize = { width: 150, height: 100 };

// GraphPanel is the live execution graph of a run, built from the same
// reducer state as the transcript, and the details of the node selected in
// it. The selection is the store's, so that other views (the Files tab) can
// point at a node. A replay's graph (the recording player's) is moved by a
// scrubber, far back and forth, rather than grown node by node as a live
// run's is: it renders only the nodes in view and moves its view at once.
export function GraphPanel({ runId, replay = false }: { runId: string; replay?: boolean }) {
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
      {/* A task after the rest of the run view: the two mounted at once were one long task. */}
      <Later>
        <ReactFlowProvider>
          <GraphCanvas runId={runId} selected={selected} onSelect={setSelected} userMoved={userMoved} setUserMoved={setUserMoved} replay={replay} />
        </ReactFlowProvider>
      </Later>
      {selected && <NodeDetailPanel key={selected} runId={runId} nodeId={selected} onClose={() => setSelected(undefined)} />}
    </section>
  );
}

type CanvasProps = {
  runId: string;
  selected?: string;
  onSelect: (id: string | undefined) => void;
  userMoved: boolean;
  setUserMoved: (m: boolean) => void;
  replay: boolean;
};

function GraphCanvas({ runId, selected, onSelect, userMoved, setUserMoved, replay }: CanvasProps) {
  const [choices, setChoices] = useState<FoldChoices>({});
  const toggleFold = useCallback((id: string, open: boolean) => setChoices((c) => ({ ...c, [id]: open })), []);

  // The steps and edges, not the whole transcript: a streamed token changes
  // neither, and renders nothing here. Deferred: the graph renders after
  // the transcript, in a render React can split, not in the same task.
  const graph = useDeferredValue(useRunGraph(runId));
  // A fork's origin: the run and node it came from, with that node's label
  // when the source run is in the store.
  const from = useApp((s) => s.stream.runs[runId]?.forkedFrom);
  const sourceLabel = useApp((s) => (from ? s.stream.runs[from.run_id]?.nodes[from.node_id]?.label : undefined));
  const firstNode = useApp((s) => s.stream.runs[runId]?.nodeOrder[0]);
  const origin = useMemo(() => originOf(from && { forkedFrom: from, nodeOrder: firstNode ? [firstNode] : [] }, sourceLabel), [from, firstNode, sourceLabel]);

  // Folded and laid out again only where nodes or edges were added (or
  // folded), not on each streamed token (fold.ts, placer.ts); much at once
  // (a page of a long run's history, a new choice of folds or node to
  // reveal) over several tasks, the last layout shown meanwhile (useLaid).
  // Steps that draw as before keep their objects, so their nodes do not
  // render again, and so do the positions of nodes that did not move.
  const done = useLaid(graph, choices, selected, origin);
  const folded = done?.folded ?? noFold;
  const laid = done?.placed ?? noPlace;
  const position = laid.positions;
  // The origin's position is the layout's; its label may be newer.
  const originNode = useMemo<OriginNodeType | undefined>(
    () =>
      laid.origin &&
      origin && {
        ...laid.origin,
        data: origin,
        measured: { width: nodeWidth, height: nodeHeight },
        handles: [handles[1]!],
        focusable: false,
      },
    [laid, origin],
  );

  // Flow nodes keep their objects while their step and selection stay.
  const flowNodes = useRef(new Map<string, StepNodeType>());
  const nodes = useMemo<(StepNodeType | OriginNodeType)[]>(() => {
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
    return originNode ? [originNode, ...list] : list;
  }, [laid, position, folded, selected, originNode]);

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

  const overview = useMemo(() => overviewNodes(nodes), [nodes]);

  // A large graph gives the flow only the nodes around the view (window.ts);
  // the overview and the fit read them all.
  const large = nodes.length > renderAllUpTo;
  const cell = useStore(large ? viewCell : noCell);
  const onOverviewMove = useCallback(() => setUserMoved(true), [setUserMoved]);

  const wrapper = useRef<HTMLDivElement>(null);
  const corners = useMemo(() => nodes.map((n) => n.position), [nodes]);
  // Keep the running (or waiting) node in view, else the last one (a run
  // that ended, or is read from its history): a folded call is followed on
  // its model node.
  const activeRaw = activeNode(graph.nodes);
  const active = activeRaw === undefined ? folded.nodes.at(-1)?.id : (folded.hidden.get(activeRaw) ?? activeRaw);
  const shown = useMemo(
    () => (large ? inArea(nodes, edges, cellArea(cell), [active, selected, originNode?.id]) : { nodes, edges }),
    [large, nodes, edges, cell, active, selected, originNode],
  );
  const { onMoveStart, onMove, onMoveEnd, fitAgain } = useGraphView({
    wrapper,
    corners,
    active: active === undefined ? undefined : position.get(active),
    selected: selected === undefined ? undefined : position.get(selected),
    userMoved,
    setUserMoved,
    // A person who asked for less motion gets jumps, not flights.
    animate: !replay && !reducedMotion(),
  });

  // A click on a fork's origin opens the run it came from at its node.
  const openRun = useOpenRun();
  const onNodeClick = useCallback<NodeMouseHandler>(
    (_, n) => {
      if (n.type === "origin") {
        const o = n.data as OriginNodeType["data"];
        openRun(o.run, o.node);
      } else onSelect(n.id);
    },
    [onSelect, openRun],
  );
  // Enter or Space on a focused node selects it, as a click does.
  const onNodesChange = useCallback(
    (changes: NodeChange[]) => {
      for (const c of changes) if (c.type === "select" && c.selected && c.id !== origin?.id) onSelect(c.id);
    },
    [onSelect, origin],
  );

  return (
    <OpenRun.Provider value={openRun}>
      <FoldToggle.Provider value={toggleFold}>
        <div className="graph-stage">
          <div className="graph-canvas" ref={wrapper}>
            <ReactFlow
              nodes={shown.nodes}
              edges={shown.edges}
              nodeTypes={nodeTypes}
              onNodeClick={onNodeClick}
              onNodesChange={onNodesChange}
              onPaneClick={() => onSelect(undefined)}
              // Programmatic moves (fit, follow) come without an event.
              onMoveStart={onMoveStart}
              onMove={onMove}
              onMoveEnd={onMoveEnd}
              nodesDraggable={false}
              nodesConnectable={false}
              // The wheel scrolls the graph, as it does a page: a graph too
              // large to read whole is shown in part (useGraphView). A pinch,
              // or the wheel with Ctrl, zooms.
              panOnScroll
              onlyRenderVisibleElements={replay || large}
              colorMode="system"
              minZoom={minZoom}
              maxZoom={maxZoom}
              proOptions={{ hideAttribution: true }}
            >
              {/* The flow's own fit zooms out until all fits, to specks: ours stops where text is readable. */}
              <Controls showInteractive={false} showFitView={false}>
                <ControlButton className="react-flow__controls-fitview" onClick={fitAgain} title="Fit view" aria-label="Fit view">
                  <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 30" aria-hidden="true">
                    <path d="M3.692 4.63c0-.53.4-.938.939-.938h5.215V0H4.708C2.13 0 0 2.054 0 4.63v5.216h3.692V4.631zM27.354 0h-5.2v3.692h5.17c.53 0 .984.4.984.939v5.215H32V4.631A4.624 4.624 0 0027.354 0zm.954 24.83c0 .532-.4.94-.939.94h-5.215v3.768h5.215c2.577 0 4.631-2.13 4.631-4.707v-5.139h-3.692v5.139zm-23.677.94c-.531 0-.939-.4-.939-.94v-5.138H0v5.139c0 2.577 2.13 4.707 4.708 4.707h5.138V25.77H4.631z" />
                  </svg>
                </ControlButton>
              </Controls>
              {graph.nodes.length === 0 && (
                <Panel position="top-center" className="graph-empty">
                  No nodes yet: they appear here as the run starts model and tool calls.
                </Panel>
              )}
            </ReactFlow>
          </div>
          <div className="graph-overview">
            <GraphOverview nodes={overview} width={minimapSize.width} height={minimapSize.height} onPersonMove={onOverviewMove} />
          </div>
        </div>
      </FoldToggle.Provider>
    </OpenRun.Provider>
  );
}

// useOpenRun opens a run, and selects one of its nodes when given: the
// store's selection, which the URL's hash follows (store/hash.ts).
function useOpenRun(): (runId: string, nodeId?: string) => void {
  const select = useApp((s) => s.select);
  const selectNode = useApp((s) => s.selectNode);
  return useCallback(
    (runId: string, nodeId?: string) => {
      select(runId);
      if (nodeId !== undefined) selectNode(nodeId);
    },
    [select, selectNode],
  );
}

// reducedMotion says whether the person asked the system for less motion.
function reducedMotion(): boolean {
  return typeof window !== "undefined" && typeof window.matchMedia === "function" && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}
