import { describe, expect, it } from "vitest";
import type { Event } from "../../api/types";
import { emptyTranscript, reduceRun } from "../../store/reducer";
import { activeNode, graphFromTranscript, layoutGraph, nodeHeight, nodeWidth, type StepData } from "./layout";

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

  it("keeps after edges solid, parent edges dashed, and drops duplicates and dangling edges", () => {
    const out = layoutGraph(nodes, edges);
    expect(out.edges).toHaveLength(7);
    const ids = out.edges.map((e) => e.id);
    expect(ids).not.toContain("parent:llm1->toolA");
    expect(ids).toContain("after:llm1->toolA");
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
    expect(layoutGraph(g.nodes, g.edges).edges.map((e) => e.id)).toEqual([
      "parent:n1->n2",
      "after:n2->n3",
      "parent:n1->n3",
      "after:n3->n4",
      "parent:n1->n4",
    ]);
    expect(activeNode(g.nodes)).toBe("n4");
  });
});
