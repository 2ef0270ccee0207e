import { describe, expect, it } from "vitest";
import type { Event } from "../../api/types";
import { emptyTranscript, reduceRunBatch } from "../../store/reducer";
import { searchTranscript, splitMatches } from "./search";

const events: Omit<Event, "run_id" | "ts">[] = [
  { seq: 1, type: "node.started", node_id: "u", data: { kind: "user", label: "instructions", text: "Tidy the README" } },
  { seq: 2, type: "node.started", node_id: "m", data: { kind: "llm", label: "model call 1" } },
  { seq: 3, type: "llm.delta", node_id: "m", data: { text: "Let me look at the files." } },
  { seq: 4, type: "node.finished", node_id: "m", data: { status: "succeeded", duration_ms: 1, tool_calls: [{ id: "c1", name: "grep", arguments: { pattern: "TODO" } }] } },
  { seq: 5, type: "node.started", node_id: "g", data: { kind: "tool", label: "grep", tool: "grep", arguments: { pattern: "TODO", path: "docs" } } },
  { seq: 6, type: "node.finished", node_id: "g", data: { status: "succeeded", duration_ms: 1, output: "docs/a.md:3: TODO: write the intro" } },
  { seq: 7, type: "node.started", node_id: "w", data: { kind: "tool", label: "write_file", tool: "write_file", arguments: { path: "README.md" } } },
  { seq: 8, type: "approval.requested", node_id: "w", data: { interaction_id: "ia", tool: "write_file", arguments: { path: "README.md" }, risk: "write", reason: "ask" } },
  { seq: 9, type: "approval.decided", node_id: "w", data: { interaction_id: "ia", decision: "deny", source: "web", feedback: "Not the licence section" } },
];
const t = reduceRunBatch(emptyTranscript("r"), events.map((e) => ({ run_id: "r", ts: e.seq, ...e })));

describe("searchTranscript", () => {
  it.each([
    ["readme", ["u", "w"]], // text, and a tool's arguments
    ["todo", ["m", "g"]], // a model call's tool calls, a tool's arguments and output
    ["write_file", ["w"]], // a tool's name
    ["intro", ["g"]], // an output
    ["LICENCE", ["w"]], // a person's feedback, case aside
    ["files", ["m"]], // model text
    ["nowhere", []],
    ["  ", []],
  ])("finds %j in %j", (query, want) => {
    expect(searchTranscript(t, query)).toEqual(want);
  });
});

describe("splitMatches", () => {
  it("marks each match, case aside, keeping the text's own case", () => {
    expect(splitMatches("Todo or TODO", "todo")).toEqual([
      { text: "Todo", match: true },
      { text: " or ", match: false },
      { text: "TODO", match: true },
    ]);
    expect(splitMatches("abc", "")).toEqual([{ text: "abc", match: false }]);
  });
});
