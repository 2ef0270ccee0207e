// The Slicer folds and lays a graph out a slice of nodes at a time: a run
// read in pages, each page taken in slices of any size, must end at every
// page with the fold and layout of the whole graph at once; while a page
// is taken in, the last layout finished stands.

import { describe, expect, it } from "vitest";
import { foldLogs, readInPages, seeded } from "../../test/foldLogs";
import { foldGraph, type FoldChoices } from "./fold";
import { graphFromTranscript, type OriginData } from "./layout";
import { layoutGraph } from "./placer";
import { Slicer } from "./slicer";

const logs = foldLogs(40);
const plain = (f: ReturnType<typeof foldGraph>) => ({ nodes: f.nodes, edges: f.edges, hidden: [...f.hidden].sort() });

describe("the graph taken in slices", () => {
  const cases: [string, number, FoldChoices, string | undefined, boolean][] = [
    ["all folded", 0, {}, undefined, false],
    ["by default", 12, {}, undefined, false],
    ["a turn chosen open, a node revealed, a fork", 0, { m3: true, m1: false }, "c5_1", true],
  ];
  for (const [name, evs] of logs)
    for (const [what, upTo, choices, reveal, fork] of cases)
      it(`lays ${name} out (${what}) as laying it out whole does`, () => {
        for (let seed = 1; seed <= 3; seed++) {
          const r = seeded(seed * 31);
          const slicer = new Slicer(upTo);
          let page = 0;
          for (const t of readInPages(evs, seed)) {
            const g = graphFromTranscript(t);
            const origin: OriginData | undefined = fork && t.nodeOrder.length > 0 ? { id: "origin:src:n1", run: "src", node: "n1", to: t.nodeOrder[0] } : undefined;
            const before = slicer.laid();
            slicer.aim(g, choices, reveal, origin);
            const at = `${what}, seed ${seed}, page ${++page}`;
            for (;;) {
              const done = slicer.step(1 + Math.floor(r() * 40));
              if (done) break;
              // Meanwhile the last layout finished stands.
              expect(slicer.ready(), at).toBe(false);
              expect(slicer.laid(), at).toBe(before);
            }
            const got = slicer.laid()!;
            const f = foldGraph(g.nodes, g.edges, choices, reveal, upTo);
            const want = layoutGraph(f.nodes, f.edges, origin);
            expect(slicer.ready(), at).toBe(true);
            expect(got.graph, at).toBe(g);
            expect(plain(got.folded), at).toEqual(plain(f));
            expect(got.folded.nodes.map((x) => [x.id, got.placed.positions.get(x.id)]), at).toEqual(want.nodes.map((x) => [x.id, x.position]));
            expect(got.placed.edges, at).toEqual(want.edges);
            expect(got.placed.origin, at).toEqual(want.origin);
          }
        }
      });

  it("takes in only what a page added, and starts again for a new choice", () => {
    const evs = logs.find(([name]) => name === "big run")![1];
    const pages = [...readInPages(evs, 3)];
    const mid = graphFromTranscript(pages[Math.floor(pages.length / 2)]!);
    const end = graphFromTranscript(pages.at(-1)!);
    const slicer = new Slicer(0);
    const none = {};
    slicer.aim(mid, none, undefined, undefined);
    expect(slicer.left()).toBe(mid.nodes.length);
    slicer.finish();
    slicer.aim(end, none, undefined, undefined);
    expect(slicer.left()).toBe(end.nodes.length - mid.nodes.length);
    expect(slicer.ready()).toBe(false);
    const done = slicer.finish();
    expect(done.graph).toBe(end);
    // The same aim again is ready at once.
    slicer.aim(end, none, undefined, undefined);
    expect(slicer.ready()).toBe(true);
    expect(slicer.left()).toBe(0);
    // A turn unfolded refolds the whole graph.
    slicer.aim(end, { [end.nodes.find((n) => n.kind === "llm")!.id]: true }, undefined, undefined);
    expect(slicer.ready()).toBe(false);
    expect(slicer.left()).toBe(end.nodes.length);
    expect(slicer.laid()).toBe(done);
  });
});
