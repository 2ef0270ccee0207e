import { describe, expect, it } from "vitest";
import type { Event } from "../api/types";
import { describeProgress, progressShare } from "./progressFold";
import { emptyStream, reduce, type StreamState, type ToolNode } from "./reducer";

const run = "run_1";

function log(...events: Omit<Event, "run_id" | "seq" | "ts">[]): Event[] {
  return events.map((e, i) => ({ run_id: run, seq: i + 1, ts: 1000 + i, ...e }));
}

const replay = (events: Event[], state: StreamState = emptyStream) => events.reduce(reduce, state);
const tool = (s: StreamState, id: string) => s.runs[run]!.nodes[id] as ToolNode;

// A call that reports its progress as it runs, then ends.
const copying = log(
  { type: "run.status", data: { status: "running" } },
  { type: "node.started", node_id: "n_llm", data: { kind: "llm", label: "Model" } },
  { type: "node.started", node_id: "n_copy", data: { kind: "tool", label: "mcp__fx__copy", tool: "mcp__fx__copy", after: ["n_llm"] } },
  { type: "tool.executing", node_id: "n_copy", data: {} },
  { type: "tool.progress", node_id: "n_copy", data: { progress: 1, total: 4, message: "copying a.txt" } },
  { type: "tool.progress", node_id: "n_copy", data: { progress: 3, total: 4, message: "copying c.txt", skipped: 1 } },
);

describe("reduce, tool.progress", () => {
  it("keeps the latest progress on the running call", () => {
    const s = replay(copying);
    const n = tool(s, "n_copy");
    expect(n.status).toBe("running");
    expect(n.progress).toEqual({ seq: 6, ts: 1005, progress: 3, total: 4, message: "copying c.txt" });
    expect(progressShare(n.progress!)).toBe(0.75);
    expect(describeProgress(n.progress!)).toBe("3 of 4 (75%): copying c.txt");
  });

  it("says a count without a total, and caps a share past the total", () => {
    const s = replay(
      log(...copying.slice(0, 4), { type: "tool.progress", node_id: "n_copy", data: { progress: 2.5 } }),
    );
    const p = tool(s, "n_copy").progress!;
    expect(p.total).toBeUndefined();
    expect(progressShare(p)).toBeUndefined();
    expect(describeProgress(p)).toBe("2.5");
    expect(progressShare({ seq: 1, ts: 1, progress: 12, total: 10 })).toBe(1);
  });

  it("leaves out what it cannot read, and what names no tool call, without mutating its input", () => {
    const s = replay(copying);
    const before = JSON.stringify(s);
    const bad = reduce(s, { run_id: run, seq: 7, ts: 2000, type: "tool.progress", node_id: "n_copy", data: { progress: "half" } });
    expect(JSON.stringify(s)).toBe(before);
    expect(tool(bad, "n_copy").progress!.progress).toBe(3);
    expect(bad.runs[run]!.nodes).toBe(s.runs[run]!.nodes); // no node changed: none copied
    const onLlm = reduce(bad, { run_id: run, seq: 8, ts: 2001, type: "tool.progress", node_id: "n_llm", data: { progress: 1 } });
    expect(onLlm.runs[run]!.nodes["n_llm"]).toBe(s.runs[run]!.nodes["n_llm"]);
    const negative = reduce(onLlm, { run_id: run, seq: 9, ts: 2002, type: "tool.progress", node_id: "n_copy", data: { progress: 4, total: -1 } });
    expect(tool(negative, "n_copy").progress).toMatchObject({ progress: 4, total: undefined });
    // Applied once: the same seq again changes nothing.
    expect(reduce(negative, { run_id: run, seq: 9, ts: 2002, type: "tool.progress", node_id: "n_copy", data: { progress: 1 } })).toBe(negative);
  });

  it("keeps the last after the call ended", () => {
    const s = replay(
      log(...copying, { type: "node.finished", node_id: "n_copy", data: { status: "succeeded", duration_ms: 900, output: "copied 4 files" } }),
    );
    const n = tool(s, "n_copy");
    expect(n.status).toBe("succeeded");
    expect(n.progress?.progress).toBe(3);
  });
});
