// The execution graph's shape and layout, as pure functions: graphFromTranscript
// reads the nodes and edges out of the reducer's state of a run, layoutGraph
// places them top to bottom. No React here, so both are tested alone.
//
// The layout is layered, by hand rather than with dagre or ELK: a node's
// layer is one below the deepest node it ran after (or, with none, below
// its parent), and each layer is a row centred under the nodes it came
// from. A run's graph is that regular (a model call fans out into its tool
// calls, which join into the next model call), and this layout has two
// properties a live view needs that a general one lacks: it is linear in
// nodes and edges (2,000 nodes in a few milliseconds, where dagre took
// 1.3 s, and ran out of memory once the containment edges to the root were
// included), and a node that starts only moves the nodes of its own row,
// so the picture does not reshuffle while a person watches it.
//
// A message that came in while the run ran (a steer) ran after nothing: the
// run's log gives it no after edge. Hung from its parent it would sit in
// the second row, beside the instructions; it is placed instead below the
// node that started last before it, by a place edge, which the layout
// reads as an after edge and nothing draws.

import type { Node } from "@xyflow/react";
import type { GraphEdge, NodeFinishedData, NodeKind } from "../../api/types";
import { orderGrows, type RunTranscript, type TranscriptNode } from "../../store/reducer";
import type { Fold } from "./fold";
import { keyArgument } from "./keyArgument";

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
  // What the node did, in a few words: a tool call's key argument
  // (keyArgument.ts), the first words of a model's answer or of a person's
  // message (whatOf).
  what?: string;
  usage?: NodeFinishedData["usage"];
  durationMs?: number;
  // A tool call's failure code (exit_status, declined, ...).
  code?: string;
  // A model node whose turn has tool calls: how they are folded.
  fold?: Fold;
  // The runs forked from this node.
  forks?: string[];
};

export type StepNode = Node<StepData, "step">;

// StepEdge is an edge of the run's graph, or a place edge (see the file's
// comment): laid out as an after edge, never drawn.
export type StepEdge = Omit<GraphEdge, "kind"> & { kind: GraphEdge["kind"] | "place" };

// OriginData is where a forked run came from, drawn above its first node:
// the run and the node it was forked at, that node's label when the source
// run is at hand, and the fork's first node, which the fork edge enters.
export type OriginData = { id: string; run: string; node: string; label?: string; to?: string };

export type OriginNode = Node<OriginData, "origin">;

// Every node is drawn at this size (the node's CSS matches), so the layout
// needs no measuring of the DOM.
export const nodeWidth = 240;
export const nodeHeight = 78;

// stepCache: a reducer node is immutable, so the step read from it can be
// kept with it.
const stepCache = new WeakMap<TranscriptNode, StepData>();

function stepOf(n: TranscriptNode): StepData {
  let s = stepCache.get(n);
  if (!s) {
    s = {
      id: n.id,
      kind: n.kind,
      status: n.status,
      label: n.label,
      parent: n.parent,
      after: n.after ?? [],
      tool: n.kind === "tool" ? n.tool : undefined,
      what: whatOf(n) || undefined,
      usage: n.kind === "llm" ? n.usage : undefined,
      durationMs: n.durationMs,
      code: n.kind === "tool" ? n.code : undefined,
    };
    stepCache.set(n, s);
  }
  return s;
}

// edgesInto is a node's after edges and its parent edge, kept with it as
// its step is: a long run's graph is read again for every update of its
// history, and 40,000 new edges each time were garbage to collect.
const edgeCache = new WeakMap<TranscriptNode, StepEdge[]>();

function edgesInto(n: TranscriptNode, step: StepData): StepEdge[] {
  let list = edgeCache.get(n);
  if (!list) {
    list = step.after.map((a): StepEdge => ({ from: a, to: n.id, kind: "after" }));
    if (n.parent) list.push({ from: n.parent, to: n.id, kind: "parent" });
    edgeCache.set(n, list);
  }
  return list;
}

// firstWordsMax bounds the first words of a text: about two lines of a
// node's width, so that a node stops changing (and rendering) once its
// model has streamed that much.
const firstWordsMax = 90;

// whatOf is what a node did, in a few words: a tool call's key argument
// (of the arguments a person edited, when they did: those ran); the first
// words of a model's answer, or the tools it called when it said nothing;
// the first words of a person's message.
export function whatOf(n: TranscriptNode): string {
  switch (n.kind) {
    case "tool": {
      const edited = n.approval?.editedArguments;
      return keyArgument(n.tool, edited !== undefined && edited !== null ? edited : n.arguments);
    }
    case "llm": {
      // While it streams the node says so, not its growing words: a delta
      // must not redraw the graph (streaming.test.tsx).
      if (n.status === "running" || n.status === "pending") return "";
      const words = firstWords(n.text);
      if (words || !n.toolCalls?.length) return words;
      return "→ " + [...new Set(n.toolCalls.map((c) => c.name))].join(", ");
    }
    case "user":
      return firstWords(n.text);
    default:
      return "";
  }
}

// firstWords is the start of a text on one line, cut at a word.
function firstWords(text: string): string {
  const flat = text.slice(0, firstWordsMax * 4).replace(/\s+/g, " ").trim();
  if (flat.length <= firstWordsMax) return flat;
  const cut = flat.slice(0, firstWordsMax);
  const space = cut.lastIndexOf(" ");
  return (space > firstWordsMax / 2 ? cut.slice(0, space) : cut) + "…";
}

// graphFromTranscript is the graph of a run's nodes in the order they started:
// an after edge for each node it ran after, a parent edge to the node that
// contains it.
// A user message that ran after nothing and is not the run's first message
// (a steer) gets a place edge from the node that started last before it,
// other than the run's root: where it came in, in time.
// RunGraph is a run's steps and the edges between them, a node's edges after it.
export type RunGraph = { nodes: StepData[]; edges: StepEdge[] };

export function graphFromTranscript(t: RunTranscript | undefined, before?: GraphOf): RunGraph {
  if (!t) return { nodes: [], edges: [] };
  const forks = new Map<string, string[]>();
  for (const f of t.forks) forks.set(f.node_id, [...(forks.get(f.node_id) ?? []), f.fork]);
  const withForks = (n: TranscriptNode) => {
    const step = stepOf(n);
    const fk = forks.get(n.id);
    return fk ? { ...step, forks: fk } : step;
  };
  // The graph of an order this one grows (with the same forks, and a step
  // for each node of it): its nodes stand, but those the reducer changed
  // since, and its edges all do (they come from where a node started, which
  // never changes); only the new nodes are read.
  const b = before?.from;
  if (before && b && b.forks === t.forks && before.graph.nodes.length === b.nodeOrder.length && b.runId === t.runId && orderGrows(b.nodeOrder, t.nodeOrder)) {
    const nodes = before.graph.nodes.slice();
    for (let i = 0; i < b.nodeOrder.length; i++) {
      const id = b.nodeOrder[i]!;
      const n = t.nodes[id];
      if (n !== b.nodes[id]) {
        if (!n) return graphFromTranscript(t);
        nodes[i] = withForks(n);
      }
    }
    const edges = before.graph.edges.slice();
    let last: string | undefined;
    for (let i = b.nodeOrder.length - 1; i >= 0 && last === undefined; i--) {
      const n = t.nodes[b.nodeOrder[i]!]!;
      if (!(n.kind === "agent" && !n.parent)) last = n.id;
    }
    for (let i = b.nodeOrder.length; i < t.nodeOrder.length; i++) {
      const n = t.nodes[t.nodeOrder[i]!];
      if (!n) return graphFromTranscript(t);
      last = addStep(nodes, edges, n, withForks(n), last);
    }
    return { nodes, edges };
  }
  const nodes: StepData[] = [];
  const edges: StepEdge[] = [];
  let last: string | undefined;
  for (const id of t.nodeOrder) {
    const n = t.nodes[id];
    if (n) last = addStep(nodes, edges, n, withForks(n), last);
  }
  return { nodes, edges };
}

// GraphOf is a graph and the transcript it was read from.
export type GraphOf = { from: RunTranscript | undefined; graph: RunGraph };

// addStep adds a node's step and the edges into it; it returns the node
// that started last (other than the run's root), which a steer is placed
// after.
function addStep(nodes: StepData[], edges: StepEdge[], n: TranscriptNode, step: StepData, last: string | undefined): string | undefined {
  nodes.push(step);
  for (const e of edgesInto(n, step)) edges.push(e);
  if (n.kind === "user" && step.after.length === 0 && last !== undefined) edges.push({ from: last, to: n.id, kind: "place" });
  return n.kind === "agent" && !n.parent ? last : n.id;
}

// originOf is the origin of a forked run (undefined for a run that was not
// forked), with the label of the node it was forked at when the caller
// knows it (the source run is in the store).
export function originOf(t: Pick<RunTranscript, "forkedFrom" | "nodeOrder"> | undefined, sourceLabel?: string): OriginData | undefined {
  const f = t?.forkedFrom;
  if (!f) return undefined;
  return { id: `origin:${f.run_id}:${f.node_id}`, run: f.run_id, node: f.node_id, label: sourceLabel, to: t.nodeOrder[0] };
}

// originText is what an origin says: the run and the node of the fork.
export function originText(o: OriginData): string {
  return `forked from ${o.run} · ${o.label || o.node}`;
}

// sameStep says whether two steps draw the same node.
export function sameStep(a: StepData, b: StepData): boolean {
  return (
    a.id === b.id &&
    a.kind === b.kind &&
    a.status === b.status &&
    a.label === b.label &&
    a.parent === b.parent &&
    a.tool === b.tool &&
    a.what === b.what &&
    a.usage === b.usage &&
    a.durationMs === b.durationMs &&
    a.code === b.code &&
    sameList(a.after, b.after) &&
    sameList(a.forks ?? [], b.forks ?? []) &&
    sameFold(a.fold, b.fold)
  );
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((x, i) => x === b[i]));
}

function sameFold(a: Fold | undefined, b: Fold | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.count !== b.count || a.open !== b.open || a.statuses.length !== b.statuses.length) return false;
  return a.statuses.every(([s, n], i) => b.statuses[i]![0] === s && b.statuses[i]![1] === n);
}

// keepSame returns steps where each step that draws the same as the one in
// prev is prev's object, so that memoised nodes do not render again; prev
// is updated to the returned steps.
export function keepSame(prev: Map<string, StepData>, steps: readonly StepData[]): StepData[] {
  const out = steps.map((s) => {
    const p = prev.get(s.id);
    return p && (p === s || sameStep(p, s)) ? p : s;
  });
  prev.clear();
  for (const s of out) prev.set(s.id, s);
  return out;
}

// extendsGraph says whether nodes and edges are the graph before with more
// at their end: the same nodes, by id, and the same edges first (a node's
// edges come with it and never change). What works on what changed
// (fold.ts's Folder, placer.ts's Placer) then takes in only the rest.
export function extendsGraph(
  beforeNodes: readonly { id: string }[],
  beforeEdges: readonly StepEdge[],
  nodes: readonly { id: string }[],
  edges: readonly StepEdge[],
): boolean {
  if (nodes.length < beforeNodes.length || edges.length < beforeEdges.length) return false;
  for (let i = 0; i < beforeNodes.length; i++) if (nodes[i]!.id !== beforeNodes[i]!.id) return false;
  for (let i = 0; i < beforeEdges.length; i++) {
    const a = edges[i]!;
    const b = beforeEdges[i]!;
    if (a !== b && (a.from !== b.from || a.to !== b.to || a.kind !== b.kind)) return false;
  }
  return true;
}

// activeNode is the node to keep in view: one waiting for a person first,
// else the newest running one. The run's root runs as long as the run does:
// it is never the one to follow.
export function activeNode(nodes: readonly StepData[]): string | undefined {
  let running: string | undefined;
  for (const n of nodes) {
    if (n.status === "waiting") return n.id;
    if (n.status === "running" && !(n.kind === "agent" && !n.parent)) running = n.id;
  }
  return running;
}
