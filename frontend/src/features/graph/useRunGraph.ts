import { useRef } from "react";
import { useApp } from "../../store/context";
import { graphFromTranscript, sameStep, type GraphOf, type RunGraph } from "./layout";

// useRunGraph is the run's graph as the layout reads it (graphFromTranscript),
// the same object while no step and no edge changed. A streamed delta makes
// a new transcript and a new model node, whose text the graph does not
// show: the graph then renders nothing again, where a subscription to the
// whole transcript laid it out and redrew it on every token.
export function useRunGraph(runId: string): RunGraph {
  // The graph last given and the transcript it was read from: the store
  // calls a selector on every change of anything, and several times a
  // render; the graph is read again only when the transcript changed.
  const held = useRef<GraphOf | undefined>(undefined);
  return useApp((s) => {
    const t = s.stream.runs[runId];
    const h = held.current;
    if (h && h.from === t) return h.graph;
    const g = graphFromTranscript(t, h);
    held.current = { from: t, graph: h && sameGraph(h.graph, g) ? h.graph : g };
    return held.current.graph;
  });
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
