// What a model call was given, for the node details of a recording: the
// server computes it by folding the log up to the call (backend/run
// state.go, runState.request); this is the same fold of the conversation,
// without the engine's other state.

import type { Event, Message, NodeFinishedData, NodeStartedData, RunCreatedData, ToolCall } from "../api/types";

// nodeInput is the conversation the model call nodeId was sent, or
// undefined when no such model call started in these events.
export function nodeInput(events: readonly Event[], nodeId: string): Message[] | undefined {
  let messages: Message[] = [];
  let queued: Message[] = [];
  let llmOpen = "";
  // The calls of the last model answer without a result yet, and the tool
  // node of each call id.
  let calls: ToolCall[] = [];
  let toolNodes = new Map<string, string>();

  for (const e of events) {
    const data = (e.data ?? {}) as object;
    switch (e.type) {
      case "run.created":
        messages = [...((data as RunCreatedData).history ?? [])];
        break;
      case "node.started": {
        const d = data as NodeStartedData;
        if (d.kind === "user" && !d.answer_to) {
          queued.push({ role: "user", text: d.text ?? "" });
        } else if (d.kind === "llm") {
          if (e.node_id === nodeId) return repair([...messages, ...queued]);
          messages.push(...queued);
          queued = [];
          llmOpen = e.node_id ?? "";
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
          messages.push({ role: "assistant", text: d.text || undefined, tool_calls: calls.length ? calls : undefined });
          break;
        }
        const i = calls.findIndex((c) => toolNodes.get(c.id) === e.node_id);
        if (i < 0 || d.status === "interrupted") break;
        const c = calls[i]!;
        // What the model reads of a failed call: its code, then its output.
        const text = d.is_error && d.code ? `error ${d.code}: ${d.output ?? ""}` : (d.output ?? "");
        messages.push({ role: "tool", tool_call_id: c.id, text: text || undefined, is_error: d.is_error || undefined });
        calls = calls.filter((_, k) => k !== i);
        break;
      }
    }
  }
  return undefined;
}

// repair puts every tool call's result right after its assistant message,
// with a synthesized one where none was recorded, as the engine does
// before each call.
function repair(msgs: Message[]): Message[] {
  const results = new Map<string, Message>();
  for (const m of msgs) if (m.role === "tool" && m.tool_call_id) results.set(m.tool_call_id, m);
  const out: Message[] = [];
  for (const m of msgs) {
    if (m.role === "tool") continue;
    out.push(m);
    for (const c of m.tool_calls ?? []) {
      out.push(
        results.get(c.id) ?? {
          role: "tool",
          tool_call_id: c.id,
          is_error: true,
          text: "error interrupted: no result was recorded for this call; its outcome is unknown",
        },
      );
    }
  }
  return out;
}
