import { describe, expect, it } from "vitest";
import type { Event } from "../api/types";
import { pendingElicitation } from "./elicitationFold";
import { emptyStream, reduce, reduceBatch, type StreamState, type ToolNode } from "./reducer";

const run = "run_1";
const tool = "mcp__github__create_issue";

function log(...events: Omit<Event, "run_id" | "seq" | "ts">[]): Event[] {
  return events.map((e, i) => ({ run_id: run, seq: i + 1, ts: 1000 + i, ...e }));
}

function replay(events: Event[], state: StreamState = emptyStream): StreamState {
  return events.reduce(reduce, state);
}

function toolNode(s: StreamState): ToolNode {
  const n = s.runs[run]!.nodes["n_tool"]!;
  if (n.kind !== "tool") throw new Error(`n_tool is a ${n.kind} node`);
  return n;
}

const schema = { type: "object", properties: { title: { type: "string" } }, required: ["title"] };

// An MCP call a person approved, executing, whose server asks three times:
// answered, declined, then left unanswered until it lapsed.
const events = log(
  { type: "run.status", data: { status: "running" } },
  { type: "node.started", node_id: "n_tool", data: { kind: "tool", label: tool, tool, arguments: { repo: "a/b" }, risk: "network" } },
  { type: "approval.requested", node_id: "n_tool", data: { interaction_id: "ia_ap", tool, arguments: { repo: "a/b" }, risk: "network", reason: "network asks" } },
  { type: "approval.decided", node_id: "n_tool", data: { interaction_id: "ia_ap", decision: "approve", source: "web" } },
  { type: "tool.executing", node_id: "n_tool", data: null },
  {
    type: "approval.requested",
    node_id: "n_tool",
    data: {
      interaction_id: "ia_e1", kind: "elicitation", tool, arguments: null, risk: "network", reason: "",
      expires_at: 9000, question: { text: "Which title?", server: "github", schema },
    },
  },
  { type: "approval.decided", node_id: "n_tool", data: { interaction_id: "ia_e1", kind: "elicitation", decision: "answer", source: "web", content: { title: "Bug" } } },
  {
    type: "approval.requested",
    node_id: "n_tool",
    data: { interaction_id: "ia_e2", kind: "elicitation", tool, arguments: null, risk: "network", reason: "", question: { text: "Sign in", server: "github", url: "https://github.com/login/device" } },
  },
  { type: "approval.decided", node_id: "n_tool", data: { interaction_id: "ia_e2", kind: "elicitation", decision: "deny", feedback: "not now", source: "desktop" } },
  {
    type: "approval.requested",
    node_id: "n_tool",
    data: { interaction_id: "ia_e3", kind: "elicitation", tool, arguments: null, risk: "network", reason: "", question: { text: "Labels?", server: "github", schema } },
  },
);
const lapse: Omit<Event, "run_id" | "seq" | "ts"> = {
  type: "approval.decided",
  node_id: "n_tool",
  data: { interaction_id: "ia_e3", kind: "elicitation", decision: "deny", source: "timeout" },
};

describe("elicitations", () => {
  it("leave the running call's status and approval as they were", () => {
    const before = toolNode(replay(events.slice(0, 5)));
    expect(before.status).toBe("running");

    const s = replay(events);
    const n = toolNode(s);
    expect(n.status).toBe("running");
    expect(n.executing).toBe(true);
    expect(n.approval).toEqual(before.approval);
    expect(n.approval?.decision).toBe("approve");

    const closed = toolNode(reduce(s, { ...lapse, run_id: run, seq: 11, ts: 2000 }));
    expect(closed.status).toBe("running");
    expect(closed.approval?.decision).toBe("approve");
  });

  it("are recorded on the node with what became of each", () => {
    const n = toolNode(replay(events));
    expect(n.elicitations).toEqual([
      {
        interactionId: "ia_e1", seq: 6, ts: 1005, server: "github", tool, message: "Which title?", schema, url: undefined,
        expiresAt: 9000, state: "answered", decidedAt: 1006, source: "web", feedback: undefined, content: { title: "Bug" },
      },
      {
        interactionId: "ia_e2", seq: 8, ts: 1007, server: "github", tool, message: "Sign in", schema: undefined,
        url: "https://github.com/login/device", expiresAt: undefined, state: "declined", decidedAt: 1008, source: "desktop", feedback: "not now", content: undefined,
      },
      {
        interactionId: "ia_e3", seq: 10, ts: 1009, server: "github", tool, message: "Labels?", schema, url: undefined,
        expiresAt: undefined, state: "pending",
      },
    ]);
    expect(pendingElicitation(n)?.interactionId).toBe("ia_e3");
  });

  it("are cancelled, not declined, when they lapse or are withdrawn", () => {
    const lapsed = { ...lapse, run_id: run, seq: 11, ts: 2000 };
    const n = toolNode(reduce(replay(events), lapsed));
    expect(n.elicitations?.[2]).toMatchObject({ state: "cancelled", source: "timeout" });
    expect(pendingElicitation(n)).toBeUndefined();
    const withdrawn = { ...lapsed, data: { ...(lapse.data as object), source: "withdrawn" } };
    expect(toolNode(reduce(replay(events), withdrawn)).elicitations?.[2]?.state).toBe("cancelled");
  });

  it("do not deny a call that asked for no approval", () => {
    // Without the approval (a run in auto mode), a decline must not mark the call denied either.
    const auto = events.filter((e) => (e.data as { interaction_id?: string } | null)?.interaction_id !== "ia_ap");
    const n = toolNode(replay(auto));
    expect(n.status).toBe("running");
    expect(n.approval).toBeUndefined();
    expect(n.elicitations?.map((x) => x.state)).toEqual(["answered", "declined", "pending"]);
  });

  it("are audited as elicitations", () => {
    const t = replay(events).runs[run]!;
    expect(t.decisions.map((d) => (d.kind === "answer" ? [d.interaction, d.decision, d.source] : d.kind))).toEqual([
      ["approval", "approve", "web"],
      ["elicitation", "answer", "web"],
      ["elicitation", "deny", "desktop"],
    ]);
  });

  it("are found by interaction id when a decision leaves its kind out", () => {
    const s = replay(events);
    const n = toolNode(reduce(s, { run_id: run, seq: 11, ts: 2000, type: "approval.decided", node_id: "n_tool", data: { interaction_id: "ia_e3", decision: "deny", source: "web" } }));
    expect(n.status).toBe("running");
    expect(n.elicitations?.[2]?.state).toBe("declined");
  });

  it("replay to the same state, one at a time or in a batch, and once only", () => {
    const one = replay(events);
    expect(reduceBatch(emptyStream, events)).toEqual(one);
    expect(replay(events)).toEqual(one);
    // The same events again are ignored: the state is the one given.
    expect(reduceBatch(one, events)).toBe(one);
    // A request seen twice (a new seq, the same interaction) is one elicitation.
    const again = reduce(one, { ...events[9]!, seq: 11 });
    expect(toolNode(again).elicitations).toHaveLength(3);
  });

  it("start the call's node when the request comes first", () => {
    const [req] = log(events[5]!).map((e) => ({ ...e, node_id: "n_tool" }));
    const n = toolNode(reduce(emptyStream, req!));
    expect(n.status).toBe("running");
    expect(n.tool).toBe(tool);
    expect(pendingElicitation(n)?.message).toBe("Which title?");
  });
});
