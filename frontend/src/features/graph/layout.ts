// The execution graph's shape and layout, as pure functions: graphFromTranscript
// reads the nodes and edges out of the reducer's state of a run, layoutGraph
// places them top to bottom with dagre. No React here, so both are tested alone.

import { Graph, layout } from "@dagrejs/dagre";
import type { Edge, Node } from "@xyflow/react";
import type { GraphEdge, NodeKind, Usage } from "../../api/types";
import type { RunTranscript } from "../../store/reducer";

// StepData is what a graph node shows: the node as the reducer knows it, cut
// down to what the picture needs.
export type StepData = {
  id: string;
  kind: NodeKind;
  status: string;
  label: string;
  parent?: string;
  after: string[];
  tool?: string;
  usage?: Usage;
};

export type StepNode = Node<StepData, "step">;

// Every node is drawn at this size (the node's CSS matches), so dagre can
// place them without measuring the DOM.
export const nodeWidth = 220;
export const nodeHeight = 64;

// graphFromTranscript is the graph of a run's nodes in the order they started:
// an after edge for each node it ran after, a parent edge to the node that
// contains it.
export function graphFromTranscript(t: RunTranscript | undefined): { nodes: StepData[]; edges: GraphEdge[] } {
  if (!t) return { nodes: [], edges: [] };
  const nodes: StepData[] = [];
  const edges: GraphEdge[] = [];
  for (const id of t.nodeOrder) {
    const n = t.nodes[id];
    if (!n) continue;
    nodes.push({
      id,
      kind: n.kind,
      status: n.status,
      label: n.label,
      parent: n.parent,
      after: n.after ?? [],
      tool: n.kind === "tool" ? n.tool : undefined,
      usage: n.kind === "llm" ? n.usage : undefined,
    });
    for (const a of n.after ?? []) edges.push({ from: a, to: id, kind: "after" });
    if (n.parent) edges.push({ from: n.parent, to: id, kind: "parent" });
  }
  return { nodes, edges };
}

// layoutGraph positions the nodes top to bottom and turns the edges into
// flow edges: after edges solid, parent (containment) edges dashed and faint.
// A parent edge between two nodes an after edge already links is left out,
// as is any edge to a node not in the list.
export function layoutGraph(nodes: readonly StepData[], edges: readonly GraphEdge[]): { nodes: StepNode[]; edges: Edge[] } {
  const ids = new Set(nodes.map((n) => n.id));
  const pair = (e: GraphEdge) => `${e.from}\u0000${e.to}`;
  const afterPairs = new Set(edges.filter((e) => e.kind === "after").map(pair));
  const seen = new Set<string>();
  const kept = edges.filter((e) => {
    if (!ids.has(e.from) || !ids.has(e.to) || e.from === e.to) return false;
    if (e.kind === "parent" && afterPairs.has(pair(e))) return false;
    const key = `${e.kind}:${pair(e)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });

  const g = new Graph({ multigraph: true });
  g.setGraph({ rankdir: "TB", nodesep: 28, ranksep: 44, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: nodeWidth, height: nodeHeight });
  // Containment should not pull the order apart: after edges weigh more.
  for (const e of kept) g.setEdge(e.from, e.to, { weight: e.kind === "after" ? 4 : 1, minlen: 1 }, e.kind);
  layout(g);

  return {
    nodes: nodes.map((n) => {
      const p = g.node(n.id) as { x: number; y: number };
      return {
        id: n.id,
        type: "step",
        position: { x: p.x - nodeWidth / 2, y: p.y - nodeHeight / 2 },
        width: nodeWidth,
        height: nodeHeight,
        data: n,
        draggable: false,
        connectable: false,
      };
    }),
    edges: kept.map((e) => ({
      id: `${e.kind}:${e.from}->${e.to}`,
      source: e.from,
      target: e.to,
      className: `graph-edge graph-edge-${e.kind}`,
      selectable: false,
      style:
        e.kind === "after"
          ? { stroke: "#7b8494", strokeWidth: 1.6 }
          : { stroke: "#b8bfcb", strokeWidth: 1, strokeDasharray: "4 4" },
    })),
  };
}

// structureKey changes only when a relayout is needed: nodes or edges added.
export function structureKey(nodes: readonly StepData[], edges: readonly GraphEdge[]): string {
  return nodes.map((n) => n.id).join(",") + "|" + edges.map((e) => `${e.kind}:${e.from}>${e.to}`).join(",");
}

// activeNode is the node to keep in view: one waiting for a person first,
// else the newest running one.
export function activeNode(nodes: readonly StepData[]): string | undefined {
  let running: string | undefined;
  for (const n of nodes) {
    if (n.status === "waiting") return n.id;
    if (n.status === "running") running = n.id;
  }
  return running;
}
