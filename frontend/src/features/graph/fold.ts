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
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const turns = turnsOf(nodes);
  const hidden = new Map<string, string>();
  const folds = new Map<string, Fold>();
  const byDefault = nodes.length <= openUpToNodes;
  for (const [m, ids] of turns) {
    const tools = ids.map((id) => byId.get(id)!);
    const open = isOpen(m, tools, choices, reveal, byDefault);
    const counts = new Map<string, number>();
    for (const t of tools) counts.set(t.status, (counts.get(t.status) ?? 0) + 1);
    folds.set(m, { count: ids.length, open, statuses: [...counts] });
    if (!open) for (const id of ids) hidden.set(id, m);
  }

  const out: StepData[] = [];
  for (const n of nodes) {
    if (hidden.has(n.id)) continue;
    const fold = folds.get(n.id);
    out.push(fold ? { ...n, fold } : n);
  }

  const rep = (id: string) => hidden.get(id) ?? id;
  const seen = new Set<string>();
  const kept: StepEdge[] = [];
  for (const e of edges) {
    const from = rep(e.from);
    const to = rep(e.to);
    if (from === to) continue;
    const key = `${e.kind}\u0000${from}\u0000${to}`;
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(from === e.from && to === e.to ? e : { ...e, from, to });
  }
  return { nodes: out, edges: kept, hidden };
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
