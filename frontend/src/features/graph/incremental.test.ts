// The graph's fold (Folder) and layout (Placer) work on what changed: a run
// read page by page, or grown event by event, must give at every step the
// graph that folding and laying out the whole of it at once gives.

import { describe, expect, it } from "vitest";
import { emptyTranscript, reduceRunBatch, type RunTranscript } from "../../store/reducer";
import { foldLogs, readInPages, seeded } from "../../test/foldLogs";
import { Folder, foldGraph, type FoldChoices } from "./fold";
import { graphFromTranscript, type GraphOf, type OriginData, type StepData, type StepEdge } from "./layout";
import { layoutGraph, Placer } from "./placer";

const logs = foldLogs(40);

const plain = (f: ReturnType<typeof foldGraph>) => ({ nodes: f.nodes, edges: f.edges, hidden: [...f.hidden].sort() });

describe("the graph folded as it grows", () => {
  // Every turn folded (0), the default (a small run's turns open, past it
  // all folded: the default flips as the run grows), and a person's choice.
  const cases: [string, number, FoldChoices, string | undefined][] = [
    ["all folded", 0, {}, undefined],
    ["by default", 12, {}, undefined],
    ["a turn chosen open, a node revealed", 0, { m3: true, m1: false }, "c5_1"],
  ];
  for (const [name, evs] of logs)
    for (const [what, upTo, choices, reveal] of cases)
      it(`folds ${name} (${what}) as folding it whole does`, () => {
        for (let seed = 1; seed <= 4; seed++) {
          const folder = new Folder(choices, reveal, upTo);
          let steps_ = 0;
          for (const t of readInPages(evs, seed)) {
            const g = graphFromTranscript(t);
            const got = folder.fold(g.nodes, g.edges);
            expect(plain(got), `${what}, seed ${seed}, step ${++steps_}`).toEqual(plain(foldGraph(g.nodes, g.edges, choices, reveal, upTo)));
          }
        }
      });
});

describe("the graph laid out as it grows", () => {
  // The layout of a run's graph folded (the long run's) and open (a small
  // run's), and of a fork, whose origin sits above its first node.
  const cases: [string, number, boolean][] = [
    ["folded", 0, false],
    ["open", 1_000_000, false],
    ["a fork", 0, true],
  ];
  for (const [name, evs] of logs)
    for (const [what, upTo, fork] of cases)
      it(`lays ${name} out (${what}) as laying it out whole does`, () => {
        for (let seed = 1; seed <= 4; seed++) {
          const folder = new Folder({}, undefined, upTo);
          const placer = new Placer();
          let n = 0;
          for (const t of readInPages(evs, seed)) {
            const g = graphFromTranscript(t);
            const f = folder.fold(g.nodes, g.edges);
            const origin: OriginData | undefined = fork && t.nodeOrder.length > 0 ? { id: "origin:src:n1", run: "src", node: "n1", to: t.nodeOrder[0] } : undefined;
            const got = placer.place(f.nodes, f.edges, origin);
            const want = layoutGraph(f.nodes, f.edges, origin);
            const at = `${what}, seed ${seed}, step ${++n}`;
            expect(
              f.nodes.map((x) => [x.id, got.positions.get(x.id)]),
              at,
            ).toEqual(want.nodes.map((x) => [x.id, x.position]));
            expect(got.edges, at).toEqual(want.edges);
            expect(got.origin, at).toEqual(want.origin);
          }
        }
      });

  it("keeps the position objects of nodes that did not move", () => {
    const evs = logs.find(([name]) => name === "big run")![1];
    const folder = new Folder({}, undefined, 0);
    const placer = new Placer();
    let before = new Map<string, unknown>();
    let kept = 0;
    for (const t of readInPages(evs, 7)) {
      const g = graphFromTranscript(t);
      const f = folder.fold(g.nodes, g.edges);
      const p = placer.place(f.nodes, f.edges);
      for (const x of f.nodes) if (before.get(x.id) === p.positions.get(x.id)) kept++;
      before = new Map(f.nodes.map((x) => [x.id, p.positions.get(x.id)]));
    }
    // A folded long run is one column: a new turn moves no other.
    expect(kept).toBeGreaterThan(0);
  });
});

describe("a random graph laid out as it grows", () => {
  // Graphs no run makes, to reach what the logs do not: a node joining a
  // row above nodes placed before it (which then move), an edge into a node
  // placed before, an edge from a node not there yet, roots and parents.
  for (let seed = 1; seed <= 40; seed++)
    it(`lays out random graph ${seed} as laying it out whole does`, () => {
      const r = seeded(seed);
      const nodes: StepData[] = [];
      const edges: StepEdge[] = [];
      const placer = new Placer();
      const kinds: StepData["kind"][] = ["agent", "llm", "tool", "user"];
      for (let round = 0; round < 30; round++) {
        const add = 1 + Math.floor(r() * 4);
        for (let k = 0; k < add; k++) {
          const id = `n${nodes.length}`;
          const pick = () => `n${Math.floor(r() * nodes.length)}`;
          const parent = nodes.length > 0 && r() < 0.5 ? pick() : undefined;
          const after = nodes.length > 0 ? [...new Set(Array.from({ length: Math.floor(r() * 3) }, pick))] : [];
          nodes.push({ id, kind: kinds[Math.floor(r() * kinds.length)]!, status: "succeeded", label: id, after, parent });
          for (const a of after) edges.push({ from: a, to: id, kind: "after" });
          if (parent) edges.push({ from: parent, to: id, kind: "parent" });
          if (r() < 0.1) edges.push({ from: pickAny(r, nodes.length + 3), to: id, kind: "place" });
        }
        // Now and then an edge into a node placed before, or from one to come.
        if (r() < 0.15 && nodes.length > 2) edges.push({ from: `n${nodes.length - 1}`, to: `n${Math.floor(r() * (nodes.length - 1))}`, kind: "after" });
        if (r() < 0.15) edges.push({ from: `n${nodes.length + 2}`, to: `n${nodes.length - 1}`, kind: "after" });
        const ns = nodes.slice();
        const es = edges.slice();
        const got = placer.place(ns, es);
        const want = layoutGraph(ns, es);
        expect(ns.map((x) => [x.id, got.positions.get(x.id)]), `round ${round}`).toEqual(want.nodes.map((x) => [x.id, x.position]));
        expect(got.edges, `round ${round}`).toEqual(want.edges);
      }
    });
});

const pickAny = (r: () => number, n: number) => `n${Math.floor(r() * n)}`;

describe("the graph read as the run grows", () => {
  // graphFromTranscript given the graph of an earlier transcript of the
  // same fold reads only the nodes added and changed: it must give what
  // reading the whole transcript gives, and keep the steps that stand.
  for (const [name, evs] of logs)
    it(`reads ${name} grown as reading it whole does`, () => {
      for (let seed = 1; seed <= 4; seed++) {
        let before: GraphOf | undefined;
        let n = 0;
        let kept = 0;
        for (const t of readInPages(evs, seed)) {
          const got = graphFromTranscript(t, before);
          expect(got, `seed ${seed}, step ${++n}`).toEqual(graphFromTranscript(t));
          if (before) kept += got.nodes.filter((s, i) => s === before!.graph.nodes[i]).length;
          before = { from: t, graph: got };
        }
        if (evs.length > 100) expect(kept, `seed ${seed}`).toBeGreaterThan(0);
      }
    });

  it("reads a transcript of another fold of the run whole", () => {
    const evs = logs.find(([name]) => name === "big run")![1];
    const half = reduceRunBatch(emptyTranscript(evs[0]!.run_id), evs.slice(0, evs.length / 2));
    // The same run, folded apart: its order does not descend from half's.
    const other = reduceRunBatch(emptyTranscript(evs[0]!.run_id), evs);
    const before = { from: half, graph: graphFromTranscript(half) };
    expect(graphFromTranscript(other, before)).toEqual(graphFromTranscript(other));
    // Its forks changed: the steps that carry them are read again.
    const forked: RunTranscript = { ...other, forks: [{ node_id: other.nodeOrder[1]!, fork: "run_f" }] };
    expect(graphFromTranscript(forked, { from: other, graph: graphFromTranscript(other) })).toEqual(graphFromTranscript(forked));
  });
});
