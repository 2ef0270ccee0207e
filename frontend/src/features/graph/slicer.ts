// The graph's fold (fold.ts) and layout (placer.ts) taken in slices when
// much arrives at once. Both work on what changed, so a live run's node
// costs little; but a long run's history brings thousands of nodes an
// update, and a new choice of folds (or a node to reveal) folds the whole
// graph again: 20,000 nodes took 150 ms and more in one task, and the page
// answers nothing meanwhile. The Slicer feeds the Folder and the Placer
// the graph's first nodes a slice at a time, each slice a graph that the
// next one extends, so the work can be spread over tasks; the canvas shows
// the last whole layout until the new one is done.

import { Folder, openUpTo, type FoldChoices, type Folded } from "./fold";
import { extendsGraph, keepSame, type OriginData, type RunGraph, type StepData, type StepEdge } from "./layout";
import { Placer, sameOrigin, type Placed } from "./placer";

// Laid is a graph folded and laid out: folded's nodes keep the objects of
// steps that draw as before (keepSame), so their flow nodes do not render
// again.
export type Laid = { graph: RunGraph; origin?: OriginData; folded: Folded; placed: Placed };

type Aim = { graph: RunGraph; choices: FoldChoices; reveal?: string; origin?: OriginData };

export class Slicer {
  private folder?: Folder;
  private placer = new Placer();
  private readonly stable = new Map<string, StepData>();
  // The graph given to the Folder last (a prefix of the aim's, or the whole).
  private fedNodes: readonly StepData[] = [];
  private fedEdges: readonly StepEdge[] = [];
  private aimed?: Aim;
  private done?: Laid;
  // The aim done was laid out for.
  private doneFor?: Aim;

  constructor(private readonly openUpToNodes = openUpTo) {}

  // aim sets the graph to lay out. A new choice of folds or node to reveal
  // starts the fold again; a graph that does not grow the one fed so far
  // is fed from its first node.
  aim(graph: RunGraph, choices: FoldChoices, reveal: string | undefined, origin: OriginData | undefined): void {
    const a = this.aimed;
    if (a && a.graph === graph && a.choices === choices && a.reveal === reveal && sameOrigin(a.origin, origin)) return;
    if (!this.folder || this.folder.choices !== choices || this.folder.reveal !== reveal) {
      this.folder = new Folder(choices, reveal, this.openUpToNodes);
      this.fedNodes = [];
      this.fedEdges = [];
    } else if (!extendsGraph(this.fedNodes, this.fedEdges, graph.nodes, graph.edges)) {
      this.fedNodes = [];
      this.fedEdges = [];
    }
    this.aimed = { graph, choices, reveal, origin };
  }

  // left is how many of the aim's nodes are still to be taken in; 0 with
  // only changed nodes (or nothing) left.
  left(): number {
    return this.aimed ? this.aimed.graph.nodes.length - this.fedNodes.length : 0;
  }

  // ready says whether laid() is the aim's layout.
  ready(): boolean {
    const a = this.aimed;
    return !a || this.doneFor === a;
  }

  // step takes in up to n more of the aim's nodes; true once its layout is done.
  step(n: number): boolean {
    const a = this.aimed;
    if (!a || this.ready()) return true;
    const { nodes, edges } = a.graph;
    const k = this.fedNodes.length + Math.max(1, n);
    if (k < nodes.length) {
      // A node's edges come with it (graphFromTranscript gives them after
      // it, into it), so the edges into the first k nodes are a prefix of
      // the edges. An edge out of place only makes the fold and layout
      // start again when it comes: the result is the same.
      const part = nodes.slice(0, k);
      let j = this.fedEdges.length;
      for (let i = this.fedNodes.length; i < k; i++) while (j < edges.length && edges[j]!.to === nodes[i]!.id) j++;
      const partEdges = edges.slice(0, j);
      const f = this.folder!.fold(part, partEdges);
      this.placer.place(f.nodes, f.edges, a.origin);
      this.fedNodes = part;
      this.fedEdges = partEdges;
      return false;
    }
    const f = this.folder!.fold(nodes, edges);
    const folded = { ...f, nodes: keepSame(this.stable, f.nodes) };
    const placed = this.placer.place(folded.nodes, folded.edges, a.origin);
    this.fedNodes = nodes;
    this.fedEdges = edges;
    this.done = { graph: a.graph, origin: a.origin, folded, placed };
    this.doneFor = a;
    return true;
  }

  // finish takes in all that is left: the layout of the aim.
  finish(): Laid {
    while (!this.step(Infinity));
    return this.done!;
  }

  // laid is the last layout finished: the aim's when ready, else an older
  // graph's. Its hidden map and positions are the Folder's and the
  // Placer's, which later steps change: a reader of an older layout gets
  // a node's newer place, or misses it.
  laid(): Laid | undefined {
    return this.done;
  }
}
