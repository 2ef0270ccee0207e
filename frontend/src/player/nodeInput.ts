// What a model call was given, for the node details of a recording: the
// server computes it with the run's fold of its log (backend/run fold.go,
// run.InputOf); this is the same fold of the conversation, without the
// engine's other state. The two are pinned to each other by the fold
// fixtures (backend/run/testdata/fold, read by fold.test.ts): recorded logs
// with the conversation the Go fold gives each model call.

import type { Event, Message, NodeFinishedData, NodeStartedData, RunCreatedData, ToolCall } from "../api/types";

// The result a call stands in with until its own is recorded.
const interrupted = (callId: string): Message => ({
  role: "tool",
  tool_call_id: callId,
  is_error: true,
  text: "error interrupted: no result was recorded for this call; its outcome is unknown",
});

// nodeInput is the conversation the model call nodeId was sent, or
// undefined when no such model call started in these events. As in the Go
// fold, the conversation is kept repaired as it grows: each assistant
// message is followed by one result per call, in call order, a stand-in
// until the call's own result replaces it.
export function nodeInput(events: readonly Event[], nodeId: string): Message[] | undefined {
  let conv: Message[] = [];
  let queued: Message[] = [];
  let llmOpen = "";
  // The calls of the last model answer without a result yet, the tool node
  // of each call id, and where each call's result stands in conv.
  let calls: ToolCall[] = [];
  let toolNodes = new Map<string, string>();
  let slots = new Map<string, number[]>();

  for (const e of events) {
    const data = (e.data ?? {}) as object;
    switch (e.type) {
      case "run.created":
        conv = repair((data as RunCreatedData).history ?? []);
        break;
      case "node.started": {
        const d = data as NodeStartedData;
        if (d.kind === "user" && !d.answer_to) {
          queued.push({ role: "user", text: d.text ?? "" });
        } else if (d.kind === "llm") {
          conv.push(...queued);
          queued = [];
          llmOpen = e.node_id ?? "";
          if (e.node_id === nodeId) return conv;
        } else if (d.kind === "tool" && d.call_id && e.node_id) {
          toolNodes.set(d.call_id, e.node_id);
        }
        break;
      }
      case "node.finished": {
        const d = data as NodeFinishedData;
        if (e.node_id && e.node_id === llmOpen) {
          llmOpen = "";
          if (d.status !== "succeeded") break;
          calls = d.tool_calls ?? [];
          toolNodes = new Map();
          slots = new Map();
          conv.push({ role: "assistant", text: d.text || undefined, tool_calls: calls.length ? calls : undefined });
          for (const c of calls) {
            slots.set(c.id, [...(slots.get(c.id) ?? []), conv.length]);
            conv.push(interrupted(c.id));
          }
          break;
        }
        const i = calls.findIndex((c) => toolNodes.get(c.id) === e.node_id);
        if (i < 0 || d.status === "interrupted") break;
        const c = calls[i]!;
        // What the model reads of a failed call: its code, then its output.
        const text = d.is_error && d.code ? `error ${d.code}: ${d.output ?? ""}` : (d.output ?? "");
        const result: Message = { role: "tool", tool_call_id: c.id, text: text || undefined, is_error: d.is_error || undefined };
        for (const at of slots.get(c.id) ?? []) conv[at] = result;
        slots.delete(c.id);
        calls = calls.filter((_, k) => k !== i);
        break;
      }
    }
  }
  return undefined;
}

// repair puts every tool call's result of a recorded conversation (a fork's
// history) right after its assistant message, with a stand-in where none
// was recorded, as the engine does.
function repair(msgs: readonly Message[]): Message[] {
  const results = new Map<string, Message>();
  for (const m of msgs) if (m.role === "tool" && m.tool_call_id) results.set(m.tool_call_id, m);
  const out: Message[] = [];
  for (const m of msgs) {
    if (m.role === "tool") continue;
    out.push(m);
    for (const c of m.tool_calls ?? []) out.push(results.get(c.id) ?? interrupted(c.id));
  }
  return out;
}
