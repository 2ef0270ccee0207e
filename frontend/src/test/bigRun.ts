// A long run's event log for performance tests: turns of one model call
// (streamed in deltas) and three tool calls, about 10,000 events and 2,000
// nodes in all.

import type { Event, EventType } from "../api/types";

export type BigRunOptions = { turns?: number; toolsPerTurn?: number; deltas?: number; runId?: string };

export function bigRunEvents({ turns = 500, toolsPerTurn = 3, deltas = 5, runId = "run_big" }: BigRunOptions = {}): Event[] {
  const out: Event[] = [];
  let seq = 0;
  const push = (type: EventType, node_id: string | undefined, data: unknown) =>
    out.push({ run_id: runId, seq: ++seq, ts: 1_000 + seq, type, node_id, data });
  push("run.created", undefined, {
    agent: { id: "ag", name: "bench", provider: "script", model: "", demo: true },
    instructions: "A long run",
    workspace: "/ws",
    mode: "auto",
    max_steps: 0,
  });
  push("run.status", undefined, { status: "running" });
  push("node.started", "root", { kind: "agent", label: "bench" });
  push("node.started", "u0", { kind: "user", label: "instructions", parent: "root", text: "A long run" });
  let prev = ["u0"];
  for (let i = 0; i < turns; i++) {
    const llm = `m${i}`;
    push("node.started", llm, { kind: "llm", label: `model call ${i + 1}`, parent: "root", after: prev, model: "script" });
    for (let d = 0; d < deltas; d++) push("llm.delta", llm, { text: `word${d} of turn ${i}. ` });
    const calls = Array.from({ length: toolsPerTurn }, (_, k) => ({ id: `c${i}_${k}`, name: k === 0 ? "read_file" : "grep", arguments: { path: `src/file${i}_${k}.go` } }));
    push("node.finished", llm, { status: "succeeded", duration_ms: 40, tool_calls: calls, usage: { input_tokens: 100, output_tokens: 20, cached_tokens: 0 } });
    prev = [];
    for (let k = 0; k < toolsPerTurn; k++) {
      const id = `t${i}_${k}`;
      prev.push(id);
      push("node.started", id, { kind: "tool", label: calls[k]!.name, tool: calls[k]!.name, parent: "root", after: [llm], arguments: calls[k]!.arguments, risk: "read", call_id: calls[k]!.id });
      push("policy.decided", id, { effect: "allow", reason: "read tools run" });
      push("tool.executing", id, {});
      push("node.finished", id, { status: "succeeded", duration_ms: 3, output: `line one of ${id}\nline two\nfunc main() {}\n` });
    }
  }
  return out;
}
