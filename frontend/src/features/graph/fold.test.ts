import { describe, expect, it } from "vitest";
import { foldGraph as foldAny, foldSummary, isOpen, openUpTo, turnsOf, type FoldChoices } from "./fold";
import type { StepData, StepEdge } from "./layout";

const step = (id: string, kind: StepData["kind"], after: string[] = [], status = "succeeded"): StepData => ({
  id, kind, status, label: id, after,
});

// A user message, a model call with three tool calls, the next model call
// after them, and a tool call of that second turn.
function run(statuses: Record<string, string> = {}) {
  const s = (id: string) => statuses[id] ?? "succeeded";
  const nodes = [
    step("u", "user"),
    step("m1", "llm", ["u"]),
    step("a", "tool", ["m1"], s("a")),
    step("b", "tool", ["m1"], s("b")),
    step("c", "tool", ["m1"], s("c")),
    step("m2", "llm", ["a", "b", "c"]),
    step("d", "tool", ["m2"], s("d")),
  ];
  const edges: StepEdge[] = nodes.flatMap((n) => n.after.map((a) => ({ from: a, to: n.id, kind: "after" as const })));
  return { nodes, edges };
}

// foldGraph as a long run's graph folds: its turns fold by default.
const foldGraph = (nodes: StepData[], edges: StepEdge[], choices?: FoldChoices, reveal?: string) => foldAny(nodes, edges, choices, reveal, 0);

const ids = (ns: StepData[]) => ns.map((n) => n.id);
const pairs = (es: StepEdge[]) => es.map((e) => `${e.from}->${e.to}`);

describe("turnsOf", () => {
  it("groups each tool call under the model call it ran after", () => {
    expect([...turnsOf(run().nodes)]).toEqual([
      ["m1", ["a", "b", "c"]],
      ["m2", ["d"]],
    ]);
  });
});

describe("foldGraph", () => {
  it("keeps a small run's turns open, and folds those of a run past openUpTo nodes", () => {
    const { nodes, edges } = run();
    expect(ids(foldAny(nodes, edges).nodes)).toEqual(ids(nodes));
    expect(foldAny(nodes, edges).nodes[1]!.fold).toEqual({ count: 3, open: true, statuses: [["succeeded", 3]] });
    // The same run with more user messages than openUpTo, after its turns.
    const more = [...nodes, ...Array.from({ length: openUpTo }, (_, i) => step(`x${i}`, "user"))];
    expect(ids(foldAny(more, edges).nodes).slice(0, 3)).toEqual(["u", "m1", "m2"]);
    // A person's choice still wins.
    expect(ids(foldAny(nodes, edges, { m1: false }).nodes)).toEqual(["u", "m1", "m2", "d"]);
  });

  it("folds every turn by default, with a badge count, and joins the edges on the model node", () => {
    const { nodes, edges } = run();
    const f = foldGraph(nodes, edges);
    expect(ids(f.nodes)).toEqual(["u", "m1", "m2"]);
    expect(f.nodes[1]!.fold).toEqual({ count: 3, open: false, statuses: [["succeeded", 3]] });
    expect(pairs(f.edges)).toEqual(["u->m1", "m1->m2"]);
    expect(f.hidden.get("b")).toBe("m1");
    expect(foldSummary(f.nodes[1]!.fold!).text).toBe("3 tools");
    expect(foldSummary(f.nodes[2]!.fold!).text).toBe("1 tool");
  });

  it("passes unchanged steps through as they are", () => {
    const { nodes, edges } = run();
    const f = foldGraph(nodes, edges);
    expect(f.nodes[0]).toBe(nodes[0]);
    expect(f.edges[0]).toBe(edges[0]);
  });

  it("unfolds a turn on a person's click, and folds it back", () => {
    const { nodes, edges } = run();
    const open = foldGraph(nodes, edges, { m1: true });
    expect(ids(open.nodes)).toEqual(["u", "m1", "a", "b", "c", "m2"]);
    expect(pairs(open.edges)).toEqual(["u->m1", "m1->a", "m1->b", "m1->c", "a->m2", "b->m2", "c->m2"]);
    expect(open.nodes[1]!.fold?.open).toBe(true);
    expect(ids(foldGraph(nodes, edges, { m1: false }).nodes)).toEqual(["u", "m1", "m2"]);
  });

  it.each(["waiting", "failed", "interrupted"])("unfolds a turn with a %s call by itself", (status) => {
    const { nodes, edges } = run({ b: status });
    const f = foldGraph(nodes, edges);
    expect(ids(f.nodes)).toEqual(["u", "m1", "a", "b", "c", "m2"]);
    expect(f.nodes[1]!.fold!.statuses).toEqual([
      ["succeeded", 2],
      [status, 1],
    ]);
  });

  it("keeps a running or denied call folded, and a person's fold wins over a waiting one", () => {
    expect(ids(foldGraph(...args(run({ a: "running", b: "denied" }))).nodes)).toEqual(["u", "m1", "m2"]);
    const waiting = run({ a: "waiting" });
    expect(ids(foldGraph(waiting.nodes, waiting.edges, { m1: false }).nodes)).toEqual(["u", "m1", "m2"]);
  });

  it("unfolds the turn of a node to reveal, whatever was chosen", () => {
    const { nodes, edges } = run();
    expect(ids(foldGraph(nodes, edges, { m2: false }, "d").nodes)).toContain("d");
    expect(isOpen("m2", [nodes[6]!], { m2: false }, "d")).toBe(true);
  });
});

function args(g: { nodes: StepData[]; edges: StepEdge[] }): [StepData[], StepEdge[]] {
  return [g.nodes, g.edges];
}
