import { describe, expect, it } from "vitest";
import type { Event } from "../../api/types";
import { emptyTranscript, reduceRun, reduceRunBatch } from "../../store/reducer";
import { bigRunEvents } from "../../test/bigRun";
import { foldGraph } from "./fold";
import {
  activeNode,
  graphFromTranscript,
  keepSame,
  nodeHeight,
  nodeWidth,
  originOf,
  originText,
  sameStep,
  type StepData,
} from "./layout";
import { drawnEdges, layoutGraph, positions, Placer } from "./placer";

const step = (id: string, kind: StepData["kind"], after: string[] = [], parent?: string): StepData => ({
  id, kind, status: "succeeded", label: id, after, parent,
});

function overlaps(a: { x: number; y: number }, b: { x: number; y: number }): boolean {
  return Math.abs(a.x - b.x) < nodeWidth && Math.abs(a.y - b.y) < nodeHeight;
}

describe("layoutGraph", () => {
  // An agent containing a user message, a model call that asked for two tools
  // run side by side, and a second model call after both.
  const nodes = [
    step("agent", "agent"),
    step("user", "user", [], "agent"),
    step("llm1", "llm", ["user"], "agent"),
    step("toolA", "tool", ["llm1"], "llm1"),
    step("toolB", "tool", ["llm1"], "agent"),
    step("llm2", "llm", ["toolA", "toolB"], "agent"),
  ];
  const edges = [
    { from: "agent", to: "user", kind: "parent" as const },
    { from: "user", to: "llm1", kind: "after" as const },
    { from: "agent", to: "llm1", kind: "parent" as const },
    { from: "llm1", to: "toolA", kind: "after" as const },
    { from: "llm1", to: "toolA", kind: "parent" as const }, // duplicates an after edge
    { from: "llm1", to: "toolB", kind: "after" as const },
    { from: "toolA", to: "llm2", kind: "after" as const },
    { from: "toolB", to: "llm2", kind: "after" as const },
    { from: "ghost", to: "llm2", kind: "after" as const }, // a node not in the list
  ];

  it("positions every node, top to bottom, without overlaps", () => {
    const out = layoutGraph(nodes, edges);
    expect(out.nodes.map((n) => n.id)).toEqual(nodes.map((n) => n.id));
    for (const n of out.nodes) {
      expect(Number.isFinite(n.position.x)).toBe(true);
      expect(Number.isFinite(n.position.y)).toBe(true);
    }
    for (let i = 0; i < out.nodes.length; i++) {
      for (let j = i + 1; j < out.nodes.length; j++) {
        expect(overlaps(out.nodes[i]!.position, out.nodes[j]!.position), `${out.nodes[i]!.id} / ${out.nodes[j]!.id}`).toBe(false);
      }
    }
    const y = (id: string) => out.nodes.find((n) => n.id === id)!.position.y;
    expect(y("user")).toBeLessThan(y("llm1"));
    expect(y("llm1")).toBeLessThan(y("toolA"));
    expect(y("toolA")).toBe(y("toolB"));
    expect(y("toolB")).toBeLessThan(y("llm2"));
  });

  it("keeps after edges solid, parent edges dashed, and drops duplicates, dangling edges and implied containment", () => {
    const out = layoutGraph(nodes, edges);
    const ids = out.edges.map((e) => e.id);
    // The root contains every node: a parent edge from it is drawn only to
    // a node that ran after nothing (the user's message).
    expect(ids).toEqual([
      "parent:agent->user",
      "after:user->llm1",
      "after:llm1->toolA",
      "after:llm1->toolB",
      "after:toolA->llm2",
      "after:toolB->llm2",
    ]);
    expect(out.edges.find((e) => e.id === "parent:agent->user")?.style?.strokeDasharray).toBeTruthy();
    expect(out.edges.find((e) => e.id === "after:user->llm1")?.style?.strokeDasharray).toBeUndefined();
  });

  it("lays out an empty graph", () => {
    expect(layoutGraph([], [])).toEqual({ nodes: [], edges: [] });
  });
});

describe("graphFromTranscript", () => {
  it("reads nodes and their after and parent edges from the reducer's state", () => {
    const events: Omit<Event, "run_id" | "ts">[] = [
      { seq: 1, type: "node.started", node_id: "n1", data: { kind: "agent", label: "demo" } },
      { seq: 2, type: "node.started", node_id: "n2", data: { kind: "user", label: "instructions", parent: "n1", text: "hi" } },
      { seq: 3, type: "node.started", node_id: "n3", data: { kind: "llm", label: "model call 1", parent: "n1", after: ["n2"] } },
      { seq: 4, type: "node.finished", node_id: "n3", data: { status: "succeeded", duration_ms: 5, usage: { input_tokens: 10, output_tokens: 3, cached_tokens: 0 } } },
      { seq: 5, type: "node.started", node_id: "n4", data: { kind: "tool", label: "write_file", tool: "write_file", parent: "n1", after: ["n3"] } },
    ];
    const t = events.reduce((acc, e) => reduceRun(acc, { run_id: "r", ts: e.seq, ...e }), emptyTranscript("r"));
    const g = graphFromTranscript(t);
    expect(g.nodes.map((n) => [n.id, n.kind, n.status])).toEqual([
      ["n1", "agent", "running"],
      ["n2", "user", "succeeded"],
      ["n3", "llm", "succeeded"],
      ["n4", "tool", "running"],
    ]);
    expect(g.nodes[2]!.usage?.output_tokens).toBe(3);
    expect(g.nodes[3]!.tool).toBe("write_file");
    expect(g.edges.map((e) => `${e.kind}:${e.from}->${e.to}`)).toEqual([
      "parent:n1->n2",
      "after:n2->n3",
      "parent:n1->n3",
      "after:n3->n4",
      "parent:n1->n4",
    ]);
    expect(layoutGraph(g.nodes, g.edges).edges.map((e) => e.id)).toEqual(["parent:n1->n2", "after:n2->n3", "after:n3->n4"]);
    expect(activeNode(g.nodes)).toBe("n4");
    // The root runs as long as the run: it is not followed.
    expect(activeNode(g.nodes.slice(0, 3))).toBeUndefined();
  });
});

describe("what a node says it did", () => {
  const events: Omit<Event, "run_id" | "ts">[] = [
    { seq: 1, type: "node.started", node_id: "n1", data: { kind: "agent", label: "demo" } },
    { seq: 2, type: "node.started", node_id: "n2", data: { kind: "user", label: "instructions", parent: "n1", text: "Fix   the\nsum in calc.py" } },
    { seq: 3, type: "node.started", node_id: "n3", data: { kind: "llm", label: "model call 1", parent: "n1", after: ["n2"] } },
    { seq: 4, type: "llm.delta", node_id: "n3", data: { text: "I will read calc.py first, then run the tests to see which of them fail and why they do that." } },
    { seq: 5, type: "node.finished", node_id: "n3", data: { status: "succeeded", duration_ms: 5, tool_calls: [{ id: "c1", name: "read_file", arguments: { path: "calc.py" } }, { id: "c2", name: "run_command", arguments: { command: "pytest -q" } }] } },
    { seq: 6, type: "node.started", node_id: "n4", data: { kind: "tool", label: "read_file", tool: "read_file", parent: "n1", after: ["n3"], arguments: { path: "calc.py" } } },
    { seq: 7, type: "node.started", node_id: "n5", data: { kind: "tool", label: "run_command", tool: "run_command", parent: "n1", after: ["n3"], arguments: { command: "pytest -q" } } },
    { seq: 8, type: "approval.requested", node_id: "n5", data: { interaction_id: "ia", tool: "run_command", arguments: { command: "pytest -q" }, risk: "exec", reason: "ask" } },
    { seq: 9, type: "approval.decided", node_id: "n5", data: { interaction_id: "ia", decision: "approve", arguments: { command: "pytest -q -x" } } },
    { seq: 10, type: "node.started", node_id: "n6", data: { kind: "user", label: "steer", parent: "n1", text: "Use the new API" } },
    { seq: 11, type: "node.finished", node_id: "n4", data: { status: "succeeded", duration_ms: 2 } },
    { seq: 12, type: "node.finished", node_id: "n5", data: { status: "failed", duration_ms: 1200, code: "exit_status", is_error: true } },
    { seq: 13, type: "node.started", node_id: "n7", data: { kind: "llm", label: "model call 2", parent: "n1", after: ["n4", "n5", "n6"] } },
    { seq: 14, type: "node.finished", node_id: "n7", data: { status: "succeeded", tool_calls: [{ id: "c3", name: "edit_file", arguments: {} }, { id: "c4", name: "edit_file", arguments: {} }] } },
  ];
  const t = events.reduce((acc, e) => reduceRun(acc, { run_id: "r", ts: e.seq, ...e }), emptyTranscript("r"));
  const g = graphFromTranscript(t);
  const what = (id: string) => g.nodes.find((n) => n.id === id)!.what;

  it("is a tool call's key argument (as a person edited it), a model's or a person's first words", () => {
    expect(what("n1")).toBeUndefined();
    expect(what("n2")).toBe("Fix the sum in calc.py");
    expect(what("n3")).toBe("I will read calc.py first, then run the tests to see which of them fail and why they do…");
    expect(what("n4")).toBe("calc.py");
    expect(what("n5")).toBe("pytest -q -x");
    expect(g.nodes.find((n) => n.id === "n5")).toMatchObject({ status: "failed", code: "exit_status", durationMs: 1200 });
    // A model call that said nothing names the tools it called.
    expect(what("n7")).toBe("→ edit_file");
  });

  it("places a steer below the node that started before it, and draws no edge for that", () => {
    expect(g.edges.filter((e) => e.kind === "place")).toEqual([{ from: "n5", to: "n6", kind: "place" }]);
    const out = layoutGraph(g.nodes, g.edges);
    const pos = (id: string) => out.nodes.find((n) => n.id === id)!.position;
    // Below the calls that ran when it came, above the model call that read it.
    expect(pos("n6").y).toBeGreaterThan(pos("n5").y);
    expect(pos("n6").y).toBeLessThan(pos("n7").y);
    // Not beside the instructions, and hung from no root edge.
    expect(pos("n6").y).not.toBe(pos("n2").y);
    expect(out.edges.map((e) => e.id)).not.toContain("parent:n1->n6");
    expect(out.edges.map((e) => e.id)).toContain("after:n6->n7");
    expect(out.edges.some((e) => e.id.startsWith("place:"))).toBe(false);
    // The calls of one turn side by side, in one row.
    expect(pos("n4").y).toBe(pos("n5").y);
    expect(Math.abs(pos("n4").x - pos("n5").x)).toBeGreaterThanOrEqual(nodeWidth);
  });

  it("stops changing once a model has streamed more than it shows", () => {
    const more = reduceRun(t, { run_id: "r", seq: 15, ts: 15, type: "llm.delta", node_id: "n7", data: { text: "x" } });
    expect(what("n7")).toBe("→ edit_file");
    const streaming = [
      { seq: 20, type: "node.started" as const, node_id: "n8", data: { kind: "llm", label: "model call 3", parent: "n1", after: ["n7"] } },
      { seq: 21, type: "llm.delta" as const, node_id: "n8", data: { text: "word ".repeat(40) } },
    ].reduce((acc, e) => reduceRun(acc, { run_id: "r", ts: e.seq, ...e }), more);
    const before = graphFromTranscript(streaming).nodes.at(-1)!;
    const after = graphFromTranscript(reduceRun(streaming, { run_id: "r", seq: 22, ts: 22, type: "llm.delta", node_id: "n8", data: { text: "more" } })).nodes.at(-1)!;
    expect(after).not.toBe(before);
    expect(sameStep(after, before)).toBe(true);
  });
});

describe("layout of a long run", () => {
  // 500 turns of a model call and three tool calls: 2,002 nodes, from the
  // same events a live run sends, through the reducer.
  const t = reduceRunBatch(emptyTranscript("run_big"), bigRunEvents());

  it("lays out 2,000 nodes, unfolded, well under a second", () => {
    const g = graphFromTranscript(t);
    expect(g.nodes.length).toBeGreaterThanOrEqual(2000);
    const start = performance.now();
    const all = foldGraph(g.nodes, g.edges, Object.fromEntries(g.nodes.filter((n) => n.kind === "llm").map((n) => [n.id, true])));
    const out = layoutGraph(all.nodes, all.edges);
    const ms = performance.now() - start;
    expect(out.nodes).toHaveLength(g.nodes.length);
    // Measured at about 15 ms on a 2-core machine; the bound is generous.
    expect(ms).toBeLessThan(1500);
    const rows = new Set(out.nodes.map((n) => n.position.y));
    expect(rows.size).toBe(2 + 2 * 500); // agent, instructions, then a model row and a tools row per turn
  });

  it("goes from the run's events to the graph's first layout well under a second", () => {
    const events = bigRunEvents();
    const t0 = performance.now();
    const run = reduceRunBatch(emptyTranscript("run_big"), events);
    const t1 = performance.now();
    const g = graphFromTranscript(run);
    const f = foldGraph(g.nodes, g.edges);
    const t2 = performance.now();
    const out = layoutGraph(f.nodes, f.edges);
    const t3 = performance.now();
    const open = foldGraph(g.nodes, g.edges, Object.fromEntries(g.nodes.filter((n) => n.kind === "llm").map((n) => [n.id, true])));
    const t4 = performance.now();
    const all = layoutGraph(open.nodes, open.edges);
    const t5 = performance.now();
    console.log(
      `graph of ${g.nodes.length} nodes from ${events.length} events: reduce ${(t1 - t0).toFixed(1)} ms, ` +
        `steps and fold ${(t2 - t1).toFixed(1)} ms, layout folded (${out.nodes.length} nodes) ${(t3 - t2).toFixed(1)} ms, ` +
        `unfolded (${all.nodes.length} nodes) fold ${(t4 - t3).toFixed(1)} ms + layout ${(t5 - t4).toFixed(1)} ms`,
    );
    expect(all.nodes).toHaveLength(g.nodes.length);
    expect(g.nodes.find((n) => n.id === "t7_1")!.what).toBe("src/file7_1.go");
    // The figure is 1 s for layout and first render together; the
    // bound leaves the render (TestE2EPerfLongRun) most of it.
    expect(t3 - t1).toBeLessThan(500);
    expect(t5 - t3).toBeLessThan(500);
  });

  it("folds each turn into its model node by default: a quarter of the nodes to draw", () => {
    const g = graphFromTranscript(t);
    const start = performance.now();
    const f = foldGraph(g.nodes, g.edges);
    const out = layoutGraph(f.nodes, f.edges);
    expect(performance.now() - start).toBeLessThan(1500);
    expect(out.nodes).toHaveLength(502);
    expect(out.nodes.filter((n) => n.data.fold?.count === 3)).toHaveLength(500);
  });

  it("moves only the new node's row-mates when a node starts", () => {
    const g = graphFromTranscript(t);
    const moved = (n: number) => {
      const before = positions(g.nodes.slice(0, n), g.edges);
      const after = positions(g.nodes.slice(0, n + 1), g.edges);
      return [...before].filter(([id, p]) => after.get(id)!.x !== p.x || after.get(id)!.y !== p.y).map(([id]) => id);
    };
    expect(g.nodes[1002]!.id).toBe("m250"); // a model call: a new row
    expect(moved(1002)).toEqual([]);
    expect(g.nodes[1001]!.id).toBe("t249_2"); // the third call of a turn
    expect(moved(1001)).toEqual(["t249_0", "t249_1"]);
  });
});

describe("drawnEdges", () => {
  it("keeps a parent edge that is not the root's: a sub-agent's calls", () => {
    const nodes = [step("root", "agent"), step("sub", "agent", [], "root"), step("m", "llm", ["sub"], "sub")];
    const edges = [
      { from: "root", to: "sub", kind: "parent" as const },
      { from: "sub", to: "m", kind: "after" as const },
      { from: "sub", to: "m", kind: "parent" as const },
    ];
    expect(drawnEdges(nodes, edges).map((e) => `${e.kind}:${e.from}->${e.to}`)).toEqual(["parent:root->sub", "after:sub->m"]);
  });
});

describe("keepSame", () => {
  it("keeps the object of a step that draws the same, and takes a changed one", () => {
    const cache = new Map<string, StepData>();
    const a = step("a", "llm");
    const [first] = keepSame(cache, [a]);
    expect(first).toBe(a);
    const [same] = keepSame(cache, [{ ...a, after: [] }]);
    expect(same).toBe(a);
    const [changed] = keepSame(cache, [{ ...a, status: "failed" }]);
    expect(changed).not.toBe(a);
    expect(changed!.status).toBe("failed");
  });
});

describe("a fork's origin", () => {
  const created = (forked?: { run_id: string; node_id: string }): Omit<Event, "ts"> => ({
    run_id: "fork",
    seq: 1,
    type: "run.created",
    data: { agent: { id: "a", name: "demo", provider: "script", model: "" }, instructions: "", workspace: "/ws", mode: "ask", max_steps: 10, forked_from: forked },
  });
  const started: Omit<Event, "ts">[] = [
    { run_id: "fork", seq: 2, type: "node.started", node_id: "r", data: { kind: "agent", label: "demo (fork of src at n7)" } },
    { run_id: "fork", seq: 3, type: "node.started", node_id: "m", data: { kind: "llm", label: "model call 1", parent: "r" } },
  ];
  const transcript = (forked?: { run_id: string; node_id: string }) =>
    [created(forked), ...started].reduce((t, e) => reduceRun(t, { ts: e.seq, ...e }), emptyTranscript("fork"));

  it("is the run and node a fork came from, linked to its first node; none for a run not forked", () => {
    const t = transcript({ run_id: "src", node_id: "n7" });
    const o = originOf(t, "model call 2")!;
    expect(o).toEqual({ id: "origin:src:n7", run: "src", node: "n7", label: "model call 2", to: "r" });
    expect(originText(o)).toBe("forked from src · model call 2");
    // The source run not at hand: its node's id stands for the label.
    expect(originText(originOf(t)!)).toBe("forked from src · n7");
    expect(originOf(transcript())).toBeUndefined();
    expect(originOf(undefined)).toBeUndefined();
  });

  it("sits above the fork's first node, joined to it by a fork edge, and takes part in the structure", () => {
    const t = transcript({ run_id: "src", node_id: "n7" });
    const g = graphFromTranscript(t);
    const o = originOf(t)!;
    const out = layoutGraph(g.nodes, g.edges, o);
    const y = (id: string) => out.nodes.find((n) => n.id === id)!.position.y;
    expect(out.origin?.type).toBe("origin");
    expect(out.origin?.selectable).toBe(false);
    expect(out.origin!.position.y).toBeLessThan(y("r"));
    expect(y("r")).toBeLessThan(y("m"));
    expect(out.origin!.position.x).toBe(out.nodes.find((n) => n.id === "r")!.position.x);
    const fork = out.edges.find((e) => e.id === "fork:origin:src:n7->r")!;
    expect(fork).toMatchObject({ source: "origin:src:n7", target: "r", className: "graph-edge graph-edge-fork" });
    expect(fork.style?.strokeDasharray).toBeTruthy();
    // A layout that grew without the origin is laid out again with it.
    const p = new Placer();
    p.place(g.nodes, g.edges);
    expect(p.place(g.nodes, g.edges, o).origin?.position).toEqual(out.origin!.position);
    // Without the origin the layout is the run's own.
    expect(layoutGraph(g.nodes, g.edges).origin).toBeUndefined();
  });
});
