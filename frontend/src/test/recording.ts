// A small recording for the player's tests, as backend/recording/html
// writes one: a model call asking for two tools, a file written (both
// contents embedded), an approval, a screenshot, a last answer.

import type { Event, EventType } from "../api/types";
import { deflate, partElementId, recordingElementId, recordingFormat, type Recording } from "../player/recording";

export const runId = "run_rec1";
export const sumBefore = "a".repeat(64);
export const sumAfter = "b".repeat(64);
export const firstText = "I will write hello.txt, then look at the page.";
export const finalText = "Done: hello.txt now greets the world.";
// A 1×1 PNG.
export const pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

export function recordingEvents(): Event[] {
  const out: Event[] = [];
  const add = (type: EventType, node_id: string | undefined, data: unknown) =>
    out.push({ run_id: runId, seq: out.length + 1, ts: 1_000_000 + out.length * 500, type, node_id, data });
  const writeArgs = { path: "hello.txt", content: "hello, world\n" };
  add("run.created", undefined, {
    agent: { id: "ag_1", name: "Researcher", provider: "openai", model: "gpt-test" },
    instructions: "Write hello.txt",
    workspace: "/ws",
    mode: "edits",
    max_steps: 20,
  });
  add("run.status", undefined, { status: "running" });
  add("node.started", "n1", { kind: "agent", label: "Researcher" });
  add("node.started", "n2", { kind: "user", parent: "n1", label: "instructions", text: "Write hello.txt" });
  add("node.started", "n3", { kind: "llm", parent: "n1", after: ["n2"], label: "model call 1", model: "gpt-test" });
  add("llm.delta", "n3", { text: "I will write hello.txt, " });
  add("node.finished", "n3", {
    status: "succeeded",
    text: firstText,
    duration_ms: 900,
    tool_calls: [
      { id: "c1", name: "write_file", arguments: writeArgs },
      { id: "c2", name: "browser_screenshot", arguments: {} },
    ],
    usage: { input_tokens: 1200, output_tokens: 80 },
    cost_usd: 0.004,
  });
  add("node.started", "n4", { kind: "tool", parent: "n1", after: ["n3"], label: "write_file", tool: "write_file", call_id: "c1", arguments: writeArgs, risk: "write" });
  add("policy.decided", "n4", { effect: "ask", reason: "writes ask" });
  add("approval.requested", "n4", { interaction_id: "ia_1", tool: "write_file", arguments: writeArgs, risk: "write", reason: "writes ask" });
  add("approval.decided", "n4", { interaction_id: "ia_1", decision: "approve", source: "web" });
  add("tool.executing", "n4", {});
  add("file.changed", "n4", { path: "hello.txt", before: sumBefore, after: sumAfter, size: 13, source: "tool", op: "n4" });
  add("node.finished", "n4", { status: "succeeded", output: "wrote hello.txt", duration_ms: 12 });
  add("node.started", "n5", { kind: "tool", parent: "n1", after: ["n3"], label: "browser_screenshot", tool: "browser_screenshot", call_id: "c2", arguments: {}, risk: "read" });
  add("artifact.created", "n5", { name: "shot-1.png", kind: "screenshot", mime: "image/png", size: 68, description: "The page" });
  add("node.finished", "n5", { status: "failed", is_error: true, code: "timeout", output: "took too long", duration_ms: 30000 });
  add("node.started", "n6", { kind: "llm", parent: "n1", after: ["n4", "n5"], label: "model call 2", model: "gpt-test" });
  add("node.finished", "n6", { status: "succeeded", text: finalText, duration_ms: 600, usage: { input_tokens: 1500, output_tokens: 20 }, cost_usd: 0.003 });
  add("run.status", undefined, { status: "completed" });
  return out;
}

// testRecording is the recording as the player holds it once read; as
// JSON it is a version 1 page's, which held the events in itself.
export function testRecording(): Recording {
  return {
    format: recordingFormat,
    version: 1,
    manifest: { steward: "v0.9.0-test", created_at: 2_000_000, run: { id: runId, status: "completed", agent_name: "Researcher" } },
    events: recordingEvents(),
    blobs: { [sumBefore]: btoa("hello\n"), [sumAfter]: btoa("hello, world\n") },
    artifacts: { "shot-1.png": { mime: "image/png", data: pngBase64 } },
    omitted: [],
  };
}

// pageOf is a document holding rec as the exporter writes it today
// (version 2): the recording without its events, then the events in parts
// of perPart.
export async function pageOf(rec: Recording, perPart: number): Promise<Document> {
  const doc = document.implementation.createHTMLDocument("recording");
  const { events, ...rest } = rec;
  const parts: Event[][] = [];
  for (let i = 0; i < events.length; i += perPart) parts.push(events.slice(i, i + perPart));
  const add = (id: string, type: string, text: string) => {
    const el = doc.createElement("script");
    el.type = type;
    el.id = id;
    el.textContent = text;
    doc.body.append(el);
  };
  add(recordingElementId, "application/json", JSON.stringify({ ...rest, version: 2, event_count: events.length, event_parts: parts.length }));
  for (const [i, p] of parts.entries()) add(partElementId(i), "application/gzip", await deflate(JSON.stringify(p)));
  return doc;
}
