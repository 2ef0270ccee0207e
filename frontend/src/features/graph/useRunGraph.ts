import { useApp } from "../../store/context";
import type { RunTranscript } from "../../store/reducer";
import { graphFromTranscript, sameStep, type GraphOf, type RunGraph } from "./layout";

// useRunGraph is the run's graph as the layout reads it (graphOf).
export function useRunGraph(runId: string): RunGraph {
  return useApp((s) => graphOf(s.stream.runs[runId]));
}

const noGraph: RunGraph = { nodes: [], edges: [] };
// The graph read of each transcript, and the last one read of each run,
// which a longer order of that run extends (graphFromTranscript).
const graphs = new WeakMap<RunTranscript, RunGraph>();
const lastOfRun = new Map<string, GraphOf>();

// graphOf is a run's graph, the same object while no step and no edge
// changed. A streamed delta makes a new transcript and a new model node,
// whose text the graph does not show: the graph then renders nothing
// again, where a subscription to the whole transcript laid it out and
// redrew it on every token. The store calls a selector on every change of
// anything, and several times a render: a transcript's graph is read once,
// and is ready when the history's reader read it before the commit that
// brings it (sync.ts, prepare).
export function graphOf(t: RunTranscript | undefined): RunGraph {
  if (!t) return noGraph;
  let g = graphs.get(t);
  if (g) return g;
  const last = lastOfRun.get(t.runId);
  g = graphFromTranscript(t, last);
  if (last && sameGraph(last.graph, g)) g = last.graph;
  graphs.set(t, g);
  lastOfRun.set(t.runId, { from: t, graph: g });
  return g;
}

function sameGraph(a: RunGraph, b: RunGraph): boolean {
  return (
    a.nodes.length === b.nodes.length &&
    a.edges.length === b.edges.length &&
    a.nodes.every((n, i) => n === b.nodes[i] || sameStep(n, b.nodes[i]!)) &&
    a.edges.every((e, i) => {
      const f = b.edges[i]!;
      return e === f || (e.from === f.from && e.to === f.to && e.kind === f.kind);
    })
  );
}
