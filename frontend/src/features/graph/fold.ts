// Folding of the execution graph, as pure functions: the tool calls of one
// model turn fold into their model node, which then carries a badge ("3
// tools"); a click unfolds them. A small run's turns are open: its calls,
// side by side under their model call, are what a person reads the graph
// for, and fit on a screen or two; past openUpTo nodes every turn folds, so
// that a long run reads as its model calls. A turn with a call that needs a person
// (waiting), went wrong (failed) or has an unknown outcome (interrupted)
// unfolds by itself, and so does the turn of a node selected from
// elsewhere (the Files tab), so that it can be seen. A person's own choice
// for a turn wins over the automatic one, except for a node to reveal.

import type { StepData, StepEdge } from "./layout";

// FoldChoices are the turns a person folded (false) or unfolded (true), by
// model node id.
export type FoldChoices = Readonly<Record<string, boolean>>;

// Fold is what a model node's badge says of its turn.
export type Fold = {
  count: number; // tool calls in the turn
  open: boolean;
  // The calls' statuses and how many have each, in first-seen order.
  statuses: [string, number][];
};

// Statuses that unfold a turn by themselves.
const unfoldOn: ReadonlySet<string> = new Set(["waiting", "failed", "interrupted"]);

// openUpTo is the most nodes a graph has with its turns open by default: a
// run of 40 tool calls in 15 turns has about 60; the 2,000-node run of the
// performance tests folds to its 500 model calls.
export const openUpTo = 150;

// turnsOf maps each model node to the tool calls of its turn, in start
// order: a tool node belongs to the first model node among its after nodes.
export function turnsOf(nodes: readonly StepData[]): Map<string, string[]> {
  const llm = new Set<string>();
  const turns = new Map<string, string[]>();
  for (const n of nodes) {
    if (n.kind === "llm") {
      llm.add(n.id);
      continue;
    }
    if (n.kind !== "tool") continue;
    const m = n.after.find((a) => llm.has(a));
    if (m === undefined) continue;
    const list = turns.get(m);
    if (list) list.push(n.id);
    else turns.set(m, [n.id]);
  }
  return turns;
}

// isOpen says whether a turn shows its calls; byDefault, when nothing else
// decides.
export function isOpen(modelId: string, tools: readonly StepData[], choices: FoldChoices, reveal?: string, byDefault = false): boolean {
  if (reveal !== undefined && tools.some((t) => t.id === reveal)) return true;
  const chosen = choices[modelId];
  if (chosen !== undefined) return chosen;
  return byDefault || tools.some((t) => unfoldOn.has(t.status));
}

export type Folded = {
  // The nodes to draw, in the input's order; a model node with a turn
  // carries its fold.
  nodes: StepData[];
  // The edges between drawn nodes: an edge of a folded call is the model
  // node's, and duplicates and self-loops are left out.
  edges: StepEdge[];
  // hidden maps each folded call to the model node that stands for it.
  hidden: Map<string, string>;
};

// foldGraph folds the turns that are not open (by default, all of them in
// a graph of more than openUpToNodes nodes). StepData objects of nodes
// that did not change are passed through as they are (a memoised node
// then does not render again); a model node's is copied with its fold.
export function foldGraph(
  nodes: readonly StepData[],
  edges: readonly StepEdge[],
  choices: FoldChoices = {},
  reveal?: string,
  openUpToNodes = openUpTo,
): Folded {
  return new Folder(choices, reveal, openUpToNodes).fold(nodes, edges);
}

// Folder folds a growing graph, as foldGraph does, in time proportional to
// what changed since its last fold: a run's graph mostly grows at its end,
// and a long run's history arrives in pages of thousands of nodes, where
// folding all 20,000 nodes again for each took 40 ms and more. Nodes added
// at the end, and changed nodes that leave every turn as open as it was,
// are folded into what was there; anything else (a turn that opens or
// folds by itself, the default crossing openUpToNodes, a graph that is not
// the last one grown) folds the whole graph again. One Folder serves one
// choice of folds and one node to reveal.
export class Folder {
  private input: readonly StepData[] = [];
  private inputEdges: readonly StepEdge[] = [];
  private byDefault = true;
  // The model nodes, by id; the calls of each turn, by model node, in
  // start order; and the turn of each call.
  private readonly models = new Map<string, StepData>();
  private readonly turns = new Map<string, StepData[]>();
  private readonly turnOf = new Map<string, string>();
  private readonly folds = new Map<string, Fold>();
  private readonly hidden = new Map<string, string>();
  // The drawn nodes, and where each is among them.
  private out: StepData[] = [];
  private readonly at = new Map<string, number>();
  private kept: StepEdge[] = [];
  private readonly seen = new Set<string>();
  private last?: Folded;

  constructor(
    readonly choices: FoldChoices,
    readonly reveal: string | undefined,
    readonly openUpToNodes: number,
  ) {}

  // fold is the folded graph of nodes and edges, the same object as last
  // time when neither changed. Its hidden map is the Folder's own: it holds
  // until the next fold.
  fold(nodes: readonly StepData[], edges: readonly StepEdge[]): Folded {
    if (this.last && nodes === this.input && edges === this.inputEdges) return this.last;
    if (!this.grows(nodes, edges) || !this.extend(nodes, edges)) this.rebuild(nodes, edges);
    this.input = nodes;
    this.inputEdges = edges;
    this.last = { nodes: this.out, edges: this.kept, hidden: this.hidden };
    return this.last;
  }

  // grows says whether nodes and edges are the last ones given, with more
  // at their end (a node's edges are given with it, and never change).
  private grows(nodes: readonly StepData[], edges: readonly StepEdge[]): boolean {
    const n = this.input.length;
    const m = this.inputEdges.length;
    if (!this.last || nodes.length < n || edges.length < m) return false;
    if (nodes.length <= this.openUpToNodes !== this.byDefault) return false;
    for (let i = 0; i < n; i++) if (nodes[i]!.id !== this.input[i]!.id) return false;
    for (let i = 0; i < m; i++) {
      const a = edges[i]!;
      const b = this.inputEdges[i]!;
      if (a !== b && (a.from !== b.from || a.to !== b.to || a.kind !== b.kind)) return false;
    }
    return true;
  }

  private rebuild(nodes: readonly StepData[], edges: readonly StepEdge[]): void {
    this.models.clear();
    this.turns.clear();
    this.turnOf.clear();
    this.folds.clear();
    this.hidden.clear();
    this.at.clear();
    this.seen.clear();
    this.out = [];
    this.kept = [];
    this.byDefault = nodes.length <= this.openUpToNodes;
    for (const n of nodes) this.join(n);
    for (const [m, tools] of this.turns) this.refold(m, tools);
    for (const n of nodes) if (!this.hidden.has(n.id)) this.draw(n);
    this.addEdges(edges, 0);
  }

  // extend folds in the nodes changed and added since the last fold; false
  // when that opened or folded a turn, which only a rebuild gets right.
  private extend(nodes: readonly StepData[], edges: readonly StepEdge[]): boolean {
    // The last result's arrays stay as they were: they are copied, not changed.
    const out = this.out.slice();
    const redraw = (n: StepData) => {
      const i = this.at.get(n.id);
      if (i !== undefined) out[i] = this.drawn(n);
    };
    const touched = new Set<string>();
    for (let i = 0; i < this.input.length; i++) {
      const n = nodes[i]!;
      if (n === this.input[i]) continue;
      if (this.models.has(n.id)) this.models.set(n.id, n);
      const m = this.turnOf.get(n.id);
      if (m !== undefined) {
        const tools = this.turns.get(m)!;
        tools[tools.findIndex((t) => t.id === n.id)] = n;
        touched.add(m);
      }
      redraw(n);
    }
    const added = nodes.slice(this.input.length);
    for (const n of added) {
      const m = this.join(n);
      if (m !== undefined) touched.add(m);
    }
    for (const m of touched) {
      const was = this.folds.get(m);
      const tools = this.turns.get(m)!;
      // A turn that had no calls before has only new ones, none drawn yet.
      if (was && was.open !== isOpen(m, tools, this.choices, this.reveal, this.byDefault)) return false;
      this.refold(m, tools);
      redraw(this.models.get(m)!);
    }
    this.out = out;
    for (const n of added) if (!this.hidden.has(n.id)) this.draw(n);
    this.kept = this.kept.slice();
    this.addEdges(edges, this.inputEdges.length);
    return true;
  }

  // join takes a node in: a model node, or a call into its turn (the first
  // model node among its after nodes). The call's turn, if it has one.
  private join(n: StepData): string | undefined {
    if (n.kind === "llm") {
      this.models.set(n.id, n);
      return undefined;
    }
    if (n.kind !== "tool") return undefined;
    const m = n.after.find((a) => this.models.has(a));
    if (m === undefined) return undefined;
    const tools = this.turns.get(m);
    if (tools) tools.push(n);
    else this.turns.set(m, [n]);
    this.turnOf.set(n.id, m);
    return m;
  }

  // refold sets a turn's fold, and hides its calls when it is folded.
  private refold(m: string, tools: readonly StepData[]): void {
    const open = isOpen(m, tools, this.choices, this.reveal, this.byDefault);
    const counts = new Map<string, number>();
    for (const t of tools) counts.set(t.status, (counts.get(t.status) ?? 0) + 1);
    this.folds.set(m, { count: tools.length, open, statuses: [...counts] });
    if (!open) for (const t of tools) this.hidden.set(t.id, m);
  }

  private drawn(n: StepData): StepData {
    const fold = this.folds.get(n.id);
    return fold ? { ...n, fold } : n;
  }

  private draw(n: StepData): void {
    this.at.set(n.id, this.out.length);
    this.out.push(this.drawn(n));
  }

  // addEdges adds the edges from index from on, between drawn nodes: an
  // edge of a folded call is its model node's; duplicates and self-loops
  // are left out.
  private addEdges(edges: readonly StepEdge[], from: number): void {
    for (let i = from; i < edges.length; i++) {
      const e = edges[i]!;
      const a = this.hidden.get(e.from) ?? e.from;
      const b = this.hidden.get(e.to) ?? e.to;
      if (a === b) continue;
      const key = `${e.kind}\u0000${a}\u0000${b}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.kept.push(a === e.from && b === e.to ? e : { ...e, from: a, to: b });
    }
  }
}

// foldSummary is a fold's badge text and its tooltip.
export function foldSummary(f: Fold): { text: string; title: string } {
  const calls = `${f.count} tool${f.count === 1 ? "" : "s"}`;
  const detail = f.statuses.map(([s, n]) => `${n} ${s}`).join(", ");
  return {
    text: calls,
    title: `${f.open ? "Fold" : "Unfold"} the ${calls} of this turn (${detail})`,
  };
}
