// The graph's layout as it grows (see layout.ts for the layout itself):
// which edges are drawn, and where each node goes, worked out for the nodes
// added since the last time rather than for the whole graph. A long run's
// history arrives in pages of thousands of nodes, and a live run adds one
// at a time; laying out 10,000 nodes again for each took 35 ms and more.
//
// Growth is the common case, and is cheap because of how a layer is made:
// a node is placed only by nodes that started before it, and an edge comes
// with the node it enters. So nodes added at the end are placed by what is
// there, and of what is there only their rows move, and the rows of the
// nodes placed under a node that moved. Anything else (an edge into a node
// placed before, a node that an edge dropped earlier for want of it, a new
// origin) is laid out again from nothing, which gives the same layout.

import type { Edge } from "@xyflow/react";
import type { GraphEdge } from "../../api/types";
import { extendsGraph, nodeHeight, nodeWidth, type OriginData, type OriginNode, type StepData, type StepEdge, type StepNode } from "./layout";

const columnGap = 28;
const rowGap = 44;

type Point = { x: number; y: number };
type Placeable = { id: string; kind?: StepData["kind"]; parent?: string };

// DrawnEdges keeps drawnEdges' choice (layout.ts) as nodes and edges are
// added.
export class DrawnEdges {
  private readonly ids = new Set<string>();
  private readonly roots = new Set<string>();
  private readonly afterPairs = new Set<string>();
  private readonly hasAfter = new Set<string>();
  private readonly seen = new Set<string>();
  // Endpoints of edges left out for want of their node.
  private readonly missing = new Set<string>();
  readonly drawn: GraphEdge[] = [];

  // add takes nodes and the edges that came with them in; false when the
  // edges already chosen would change (an edge into an earlier node, or a
  // node an earlier edge lacked): then only a new DrawnEdges is right.
  add(nodes: readonly Placeable[], edges: readonly StepEdge[]): boolean {
    const fresh = new Set<string>();
    for (const n of nodes) {
      if (this.missing.has(n.id)) return false;
      fresh.add(n.id);
    }
    for (const e of edges) if (this.ids.has(e.to) && !fresh.has(e.to) && e.from !== e.to) return false;
    for (const n of nodes) {
      this.ids.add(n.id);
      if (n.kind === "agent" && !n.parent) this.roots.add(n.id);
    }
    const known = (e: StepEdge) => {
      const ok = this.ids.has(e.from) && this.ids.has(e.to);
      if (!ok) for (const id of [e.from, e.to]) if (!this.ids.has(id)) this.missing.add(id);
      return ok;
    };
    for (const e of edges) {
      if ((e.kind !== "after" && e.kind !== "place") || !known(e)) continue;
      if (e.kind === "after") this.afterPairs.add(pair(e));
      this.hasAfter.add(e.to);
    }
    for (const e of edges) {
      if (e.kind === "place" || !known(e) || e.from === e.to) continue;
      if (e.kind === "parent") {
        if (this.afterPairs.has(pair(e))) continue;
        if (this.roots.has(e.from) && this.hasAfter.has(e.to)) continue;
      }
      const key = `${e.kind}:${pair(e)}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.drawn.push(e as GraphEdge);
    }
    return true;
  }
}

const pair = (e: { from: string; to: string }) => `${e.from}\u0000${e.to}`;

// Rows keeps positions' layers and rows (layout.ts) as nodes are added.
export class Rows {
  private readonly index = new Map<string, number>();
  private readonly layer = new Map<string, number>();
  // The nodes each node is placed under, and the other way.
  private readonly under = new Map<string, string[]>();
  private readonly below = new Map<string, string[]>();
  private readonly rows: string[][] = [];
  private readonly centre = new Map<string, number>();
  private readonly missing = new Set<string>();
  // Each node's top-left corner: a node that did not move keeps its object.
  readonly at = new Map<string, Point>();

  // add places nodes and the edges that came with them in (after, fork and
  // place edges place a node under theirs, else its parent edge does);
  // false when an earlier node would move for other reasons than its row:
  // then only new Rows are right.
  add(nodes: readonly { id: string }[], edges: readonly StepEdge[]): boolean {
    const fresh = new Set<string>();
    for (const n of nodes) {
      if (this.missing.has(n.id)) return false;
      fresh.add(n.id);
    }
    const after = new Map<string, string[]>();
    const parent = new Map<string, string>();
    for (const e of edges) {
      if (e.from === e.to) continue;
      const has = (id: string) => this.index.has(id) || fresh.has(id);
      if (!has(e.from) || !has(e.to)) {
        for (const id of [e.from, e.to]) if (!has(id)) this.missing.add(id);
        continue;
      }
      if (!fresh.has(e.to)) return false;
      if (e.kind === "after" || e.kind === "fork" || e.kind === "place") {
        const list = after.get(e.to);
        if (list) list.push(e.from);
        else after.set(e.to, [e.from]);
      } else if (e.kind === "parent") {
        parent.set(e.to, e.from);
      }
    }
    for (const n of nodes) this.index.set(n.id, this.index.size);

    // Layers, in start order: only nodes started earlier count, so an edge
    // that would make a cycle is ignored.
    const touched = new Set<number>();
    for (const n of nodes) {
      const i = this.index.get(n.id)!;
      const before = (after.get(n.id) ?? []).filter((p) => this.layer.has(p) && this.index.get(p)! < i);
      const p = parent.get(n.id);
      const from = before.length > 0 ? before : p !== undefined && this.layer.has(p) ? [p] : [];
      const l = from.length === 0 ? 0 : 1 + Math.max(...from.map((f) => this.layer.get(f)!));
      this.layer.set(n.id, l);
      this.under.set(n.id, from);
      for (const f of from) {
        const b = this.below.get(f);
        if (b) b.push(n.id);
        else this.below.set(f, [n.id]);
      }
      (this.rows[l] ??= []).push(n.id);
      touched.add(l);
    }
    // A row moved moves the rows of the nodes placed under its nodes, which
    // are further down: one pass down the rows touched sets them all.
    const dirty: boolean[] = [];
    let top = Infinity;
    for (const l of touched) {
      dirty[l] = true;
      top = Math.min(top, l);
    }
    for (let l = top; l < this.rows.length; l++) {
      if (!dirty[l]) continue;
      for (const id of this.placeRow(l)) for (const b of this.below.get(id) ?? []) dirty[this.layer.get(b)!] = true;
    }
    return true;
  }

  // placeRow sets a row's centres: each node wants to sit under the centre
  // of the nodes it came from; a row keeps that order and is centred on the
  // mean of its wishes. It returns the nodes that moved.
  private placeRow(l: number): string[] {
    const row = this.rows[l]!;
    const wish = row.map((id) => {
      const from = this.under.get(id)!;
      return from.length === 0 ? 0 : from.reduce((s, f) => s + this.centre.get(f)!, 0) / from.length;
    });
    const order = row.map((_, i) => i).sort((a, b) => wish[a]! - wish[b]! || a - b);
    const mid = wish.reduce((s, w) => s + w, 0) / row.length;
    const step = nodeWidth + columnGap;
    const left = mid - ((row.length - 1) * step) / 2;
    const moved: string[] = [];
    order.forEach((k, j) => {
      const c = left + j * step;
      const id = row[k]!;
      if (this.centre.get(id) === c) return;
      this.centre.set(id, c);
      this.at.set(id, { x: c - nodeWidth / 2, y: l * (nodeHeight + rowGap) });
      moved.push(id);
    });
    return moved;
  }
}

// Placed is a graph's layout: each node's corner, the flow's edges, and a
// fork's origin as a flow node.
export type Placed = { positions: ReadonlyMap<string, Point>; edges: Edge[]; origin?: OriginNode };

// Edges are drawn in three styles: after edges solid, parent (containment)
// edges dashed and faint, the fork edge from a fork's origin dashed violet.
const edgeStyles: Record<GraphEdge["kind"], Edge["style"]> = {
  after: { stroke: "var(--edge)", strokeWidth: 1.6 },
  parent: { stroke: "var(--edge-faint)", strokeWidth: 1, strokeDasharray: "4 4" },
  fork: { stroke: "var(--violet)", strokeWidth: 1.6, strokeDasharray: "6 4" },
};

const flowEdge = (e: GraphEdge): Edge => ({
  id: `${e.kind}:${e.from}->${e.to}`,
  source: e.from,
  target: e.to,
  className: `graph-edge graph-edge-${e.kind}`,
  selectable: false,
  style: edgeStyles[e.kind],
});

// Placer lays a graph out as layoutGraph does (the origin of a forked run
// above its first node, the edges worth drawing as flow edges), working on
// the nodes and edges added since it last did. Its positions map is its
// own, and holds until the next place.
export class Placer {
  private nodes: readonly StepData[] = [];
  private edges: readonly StepEdge[] = [];
  private origin?: OriginData;
  private drawn = new DrawnEdges();
  private rows = new Rows();
  private flow: Edge[] = [];
  private last?: Placed;

  place(nodes: readonly StepData[], edges: readonly StepEdge[], origin?: OriginData): Placed {
    if (this.last && nodes === this.nodes && edges === this.edges && sameOrigin(origin, this.origin)) return { ...this.last, origin: this.originNode(origin) };
    if (!this.grows(nodes, edges, origin) || !this.extend(nodes.slice(this.nodes.length), edges.slice(this.edges.length))) {
      this.drawn = new DrawnEdges();
      this.rows = new Rows();
      this.flow = [];
      // The origin came before every node of the run: first, in the top row.
      const fork: GraphEdge[] = origin?.to !== undefined && nodes.some((n) => n.id === origin.to) ? [{ from: origin.id, to: origin.to, kind: "fork" }] : [];
      this.extend(origin ? [{ id: origin.id }, ...nodes] : nodes, [...fork, ...edges]);
    }
    this.nodes = nodes;
    this.edges = edges;
    this.origin = origin;
    this.last = { positions: this.rows.at, edges: this.flow, origin: this.originNode(origin) };
    return this.last;
  }

  private grows(nodes: readonly StepData[], edges: readonly StepEdge[], origin?: OriginData): boolean {
    if (!this.last || !sameOrigin(origin, this.origin)) return false;
    // A fork's first node not yet there would bring the fork edge.
    if (origin?.to !== undefined && !this.nodes.some((x) => x.id === origin.to)) return false;
    return extendsGraph(this.nodes, this.edges, nodes, edges);
  }

  // extend adds nodes and their edges: the drawn ones, then the place
  // edges (which place a node and are not drawn), in the order layoutGraph
  // gives them.
  private extend(nodes: readonly Placeable[], edges: readonly StepEdge[]): boolean {
    const from = this.drawn.drawn.length;
    if (!this.drawn.add(nodes, edges)) return false;
    const added = this.drawn.drawn.slice(from);
    if (!this.rows.add(nodes, [...added, ...edges.filter((e) => e.kind === "place")])) return false;
    if (added.length > 0) this.flow = [...this.flow, ...added.map(flowEdge)];
    return true;
  }

  private originNode(origin?: OriginData): OriginNode | undefined {
    const pos = origin && this.rows.at.get(origin.id);
    return (
      origin &&
      pos && {
        id: origin.id,
        type: "origin",
        position: pos,
        width: nodeWidth,
        height: nodeHeight,
        data: origin,
        draggable: false,
        connectable: false,
        selectable: false,
      }
    );
  }
}

// Two origins lay out alike when they are of the same node, before the same first node.
export const sameOrigin = (a?: OriginData, b?: OriginData) => a === b || (!!a && !!b && a.id === b.id && a.to === b.to);

// drawnEdges is the edges worth drawing among nodes: all after edges; a
// parent edge only where it says something the after edges do not (the
// node ran after nothing, so it hangs from its parent; or its parent is not
// the run's root, as for a sub-agent's calls). A node with a place edge is
// placed: its parent edge from the root is not drawn either, nor is the
// place edge. Duplicates, self-loops and edges to nodes not in the list are
// left out.
export function drawnEdges(nodes: readonly StepData[], edges: readonly StepEdge[]): GraphEdge[] {
  const d = new DrawnEdges();
  d.add(nodes, edges);
  return d.drawn;
}

// positions places the nodes in layers, top to bottom (see layout.ts): the
// top-left corner of each node, by id. A fork edge and a place edge place
// their node as an after edge does.
export function positions(nodes: readonly { id: string }[], edges: readonly StepEdge[]): ReadonlyMap<string, Point> {
  const r = new Rows();
  r.add(nodes, edges);
  return r.at;
}

// layoutGraph positions the nodes, and the origin of a forked run above
// its first node, and turns the edges worth drawing into flow edges.
export function layoutGraph(
  nodes: readonly StepData[],
  edges: readonly StepEdge[],
  origin?: OriginData,
): { nodes: StepNode[]; edges: Edge[]; origin?: OriginNode } {
  const p = new Placer().place(nodes, edges, origin);
  return {
    nodes: nodes.map((n) => ({
      id: n.id,
      type: "step",
      position: p.positions.get(n.id)!,
      width: nodeWidth,
      height: nodeHeight,
      data: n,
      draggable: false,
      connectable: false,
    })),
    edges: p.edges,
    ...(p.origin ? { origin: p.origin } : {}),
  };
}
