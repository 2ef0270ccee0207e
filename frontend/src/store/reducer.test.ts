import { describe, expect, it } from "vitest";
import type { Event } from "../api/types";
import { emptyStream, reduce, type LlmNode, type Streamed, type StreamState, type ToolNode } from "./reducer";
import { describeNotes, notesAfter } from "./serverFold";

const run = "run_1";

// log builds events of one run with dense seqs from 1.
function log(...events: Omit<Event, "run_id" | "seq" | "ts">[]): Event[] {
  return events.map((e, i) => ({ run_id: run, seq: i + 1, ts: 1000 + i, ...e }));
}

function replay(events: Event[], state: StreamState = emptyStream): StreamState {
  return events.reduce(reduce, state);
}

const start = log(
  {
    type: "run.created",
    data: {
      agent: { id: "ag_1", name: "demo", provider: "script", model: "", demo: true },
      instructions: "Write hello.txt",
      workspace: "/tmp/ws",
      mode: "ask",
      max_steps: 10,
    },
  },
  { type: "run.status", data: { status: "running" } },
  { type: "node.started", node_id: "n_user", data: { kind: "user", label: "Instructions", text: "Write hello.txt" } },
  { type: "node.started", node_id: "n_llm", data: { kind: "llm", label: "Model", model: "m" } },
  { type: "llm.delta", node_id: "n_llm", data: { text: "I will " } },
  { type: "llm.delta", node_id: "n_llm", data: { text: "write\n  the file." } },
);

describe("reduce", () => {
  it("records run.created and run.status", () => {
    const t = replay(start).runs[run]!;
    expect(t.instructions).toBe("Write hello.txt");
    expect(t.demo).toBe(true);
    expect(t.status).toBe("running");
    expect(t.lastSeq).toBe(6);
    expect(t.nodeOrder).toEqual(["n_user", "n_llm"]);
  });

  it("accumulates streamed deltas in order", () => {
    const n = replay(start).runs[run]!.nodes["n_llm"]!;
    expect(n.kind === "llm" && n.text).toBe("I will write\n  the file.");
    expect(n.status).toBe("running");
  });

  it("replaces the streamed text with node.finished's full text", () => {
    const s = replay(start);
    const finished: Event = {
      run_id: run,
      seq: 7,
      ts: 2000,
      type: "node.finished",
      node_id: "n_llm",
      data: { status: "succeeded", duration_ms: 12, text: "I will write the file.", stop_reason: "tool_use" },
    };
    const n = reduce(s, finished).runs[run]!.nodes["n_llm"]!;
    expect(n.kind === "llm" && n.text).toBe("I will write the file.");
    expect(n.status).toBe("succeeded");
    expect(n.durationMs).toBe(12);
  });

  it("ignores an event whose seq was already applied", () => {
    const s = replay(start);
    const dup = start[4]!; // the first delta again
    expect(reduce(s, dup)).toBe(s);
    const older = { ...start[5]!, data: { text: "something else" } };
    expect(reduce(s, older)).toBe(s);
    const n = s.runs[run]!.nodes["n_llm"]!;
    expect(n.kind === "llm" && n.text).toBe("I will write\n  the file.");
  });

  it("does not mutate the state it is given", () => {
    const s = replay(start);
    const before = JSON.stringify(s);
    reduce(s, { run_id: run, seq: 7, ts: 0, type: "llm.delta", node_id: "n_llm", data: { text: "!" } });
    expect(JSON.stringify(s)).toBe(before);
  });

  it("moves a tool card through approval to its result", () => {
    const tail = log(
      { type: "node.started", node_id: "n_tool", data: { kind: "tool", label: "write_file", tool: "write_file", call_id: "c1", arguments: { path: "hello.txt" }, risk: "write" } },
      { type: "policy.decided", node_id: "n_tool", data: { effect: "ask", reason: "write needs approval" } },
      { type: "approval.requested", node_id: "n_tool", data: { interaction_id: "ia_1", tool: "write_file", arguments: { path: "hello.txt" }, risk: "write", reason: "write needs approval" } },
      { type: "approval.decided", node_id: "n_tool", data: { interaction_id: "ia_1", decision: "approve", source: "web" } },
      { type: "node.finished", node_id: "n_tool", data: { status: "succeeded", duration_ms: 3, output: "wrote 5 bytes" } },
    ).map((e) => ({ ...e, seq: e.seq + start.length }));

    const tool = (s: StreamState) => s.runs[run]!.nodes["n_tool"] as ToolNode;
    let s = replay(start);
    const statuses: string[] = [];
    for (const e of tail) {
      s = reduce(s, e);
      statuses.push(tool(s).status);
    }
    expect(statuses).toEqual(["running", "running", "waiting", "running", "succeeded"]);
    expect(tool(s).approval).toMatchObject({ interactionId: "ia_1", decision: "approve", source: "web" });
    // The span it waited on a person: from the request to the answer.
    expect(tool(s).approval).toMatchObject({ requestedAt: 1002, decidedAt: 1003 });
    expect(tool(s).output).toBe("wrote 5 bytes");
    expect(tool(s).isError).toBe(false);
  });

  it("marks a denied tool call denied with the feedback", () => {
    const tail = log(
      { type: "node.started", node_id: "n_tool", data: { kind: "tool", label: "run", tool: "shell", arguments: { cmd: "rm -rf /" }, risk: "destructive" } },
      { type: "approval.requested", node_id: "n_tool", data: { interaction_id: "ia_2", tool: "shell", arguments: {}, risk: "destructive", reason: "" } },
      { type: "approval.decided", node_id: "n_tool", data: { interaction_id: "ia_2", decision: "deny", feedback: "no", source: "web" } },
    );
    const s = replay(tail);
    const n = s.runs[run]!.nodes["n_tool"] as ToolNode;
    expect(n.status).toBe("denied");
    expect(n.approval?.feedback).toBe("no");
    const done = reduce(s, { run_id: run, seq: 4, ts: 0, type: "node.finished", node_id: "n_tool", data: { status: "denied", duration_ms: 0, output: "denied: no", is_error: true, code: "denied" } });
    const m = done.runs[run]!.nodes["n_tool"] as ToolNode;
    expect(m.status).toBe("denied");
    expect(m.isError).toBe(true);
    expect(m.code).toBe("denied");
  });

  it("keeps runs apart and records a failed run's error", () => {
    let s = replay(start);
    s = reduce(s, { run_id: "run_2", seq: 1, ts: 0, type: "run.status", data: { status: "failed", error: "model unreachable" } });
    expect(s.runs["run_2"]).toMatchObject({ status: "failed", error: "model unreachable", lastSeq: 1 });
    expect(s.runs[run]!.lastSeq).toBe(6);
  });
});

// more continues the log after `start`, with seqs from start.length + 1.
function more(...events: Omit<Event, "run_id" | "seq" | "ts">[]): Event[] {
  return log(...events).map((e) => ({ ...e, seq: e.seq + start.length }));
}

describe("reduce, runtime control", () => {
  it("stores what a paused run does next, and clears it when the run goes on", () => {
    const next = { kind: "tool", tool: "list_dir", arguments: { path: "." } };
    const paused = replay(more(
      { type: "run.status", data: { status: "pausing", reason: "pause asked" } },
      { type: "run.status", data: { status: "paused", reason: "paused by the user", next } },
    ), replay(start));
    const t = paused.runs[run]!;
    expect(t).toMatchObject({ status: "paused", reason: "paused by the user", next });

    const going = reduce(paused, { run_id: run, seq: 9, ts: 5000, type: "run.status", data: { status: "running", reason: "continue" } });
    expect(going.runs[run]!.status).toBe("running");
    expect(going.runs[run]!.next).toBeUndefined();
    // Each change is kept with its time, for the timeline's paused spans.
    expect(going.runs[run]!.statusLog).toEqual([
      { status: "running", ts: 1001 },
      { status: "pausing", ts: 1000 },
      { status: "paused", ts: 1001 },
      { status: "running", ts: 5000 },
    ]);
  });

  it("keeps the cost node.finished gives a model call, and none for a model without a price", () => {
    const s = replay(more(
      { type: "node.finished", node_id: "n_llm", data: { status: "succeeded", duration_ms: 9, cost_usd: 0.0042, usage: { input_tokens: 10, output_tokens: 2, cached_tokens: 0 } } },
      { type: "node.started", node_id: "n_llm2", data: { kind: "llm", label: "Model", model: "m" } },
      { type: "node.finished", node_id: "n_llm2", data: { status: "succeeded", duration_ms: 9 } },
    ), replay(start));
    expect((s.runs[run]!.nodes["n_llm"] as LlmNode).costUsd).toBe(0.0042);
    expect((s.runs[run]!.nodes["n_llm2"] as LlmNode).costUsd).toBeUndefined();
  });

  it("folds the capabilities and refusals a run.status carries, and forgets them with one that carries none", () => {
    const refusals = { pause: { code: "invalid_state", message: "the run is already paused" } };
    const paused = replay(more(
      {
        type: "run.status",
        data: { status: "paused", reason: "paused by the user", next: { kind: "model" } },
        capabilities: ["continue", "step", "steer", "cancel", "fork", "break", "unbreak"],
        refusals,
      },
    ), replay(start));
    expect(paused.runs[run]).toMatchObject({ status: "paused", capabilities: ["continue", "step", "steer", "cancel", "fork", "break", "unbreak"], refusals });
    // A recording's run.status says nothing of what the run can do here.
    const recorded = reduce(paused, { run_id: run, seq: 8, ts: 0, type: "run.status", data: { status: "running", reason: "continue" } });
    expect(recorded.runs[run]!.capabilities).toBeUndefined();
    expect(recorded.runs[run]!.refusals).toBeUndefined();
  });

  it("records a failed model attempt and drops the text it streamed", () => {
    const s = replay(more(
      { type: "llm.attempt", node_id: "n_llm", data: { attempt: 1, kind: "rate_limited", error: "429 slow down", retry_in_ms: 1000 } },
      { type: "llm.delta", node_id: "n_llm", data: { text: "Second try." } },
    ), replay(start));
    const n = s.runs[run]!.nodes["n_llm"]!;
    if (n.kind !== "llm") throw new Error("not an llm node");
    expect(n.attempts).toEqual([{ attempt: 1, kind: "rate_limited", error: "429 slow down", retry_in_ms: 1000 }]);
    expect(n.text).toBe("Second try.");
    expect(n.status).toBe("running");
  });

  it("marks a tool call executing, still running", () => {
    const s = replay(more(
      { type: "node.started", node_id: "n_tool", data: { kind: "tool", label: "list_dir", tool: "list_dir", arguments: { path: "." }, risk: "read" } },
      { type: "tool.executing", node_id: "n_tool", data: {} },
    ), replay(start));
    const n = s.runs[run]!.nodes["n_tool"] as ToolNode;
    expect(n.status).toBe("running");
    expect(n.executing).toBe(true);
  });

  it("says which interrupted node a retried call replaces", () => {
    const s = replay(more(
      { type: "node.started", node_id: "n9", data: { kind: "tool", label: "write_file", tool: "write_file", arguments: {}, risk: "write", retry_of: "n5" } },
    ), replay(start));
    expect((s.runs[run]!.nodes["n9"] as ToolNode).retryOf).toBe("n5");
  });

  it("lists the forks of a run once each", () => {
    const s = replay(more(
      { type: "run.forked", data: { node_id: "n_llm", fork: "run_f1" } },
      { type: "run.forked", data: { node_id: "n_user", fork: "run_f2" } },
      { type: "run.forked", data: { node_id: "n_llm", fork: "run_f1" } },
    ), replay(start));
    expect(s.runs[run]!.forks).toEqual([
      { node_id: "n_llm", fork: "run_f1" },
      { node_id: "n_user", fork: "run_f2" },
    ]);
  });

  it("records where a fork came from and the history it carries", () => {
    const history = [
      { role: "user", text: "Write hello.txt" },
      { role: "assistant", text: "Looking.", tool_calls: [{ id: "c1", name: "list_dir", arguments: { path: "." } }] },
      { role: "tool", tool_call_id: "c1", text: "not run", is_error: true },
    ];
    const s = reduce(emptyStream, {
      run_id: "run_f1", seq: 1, ts: 0, type: "run.created",
      data: {
        agent: { id: "ag_1", name: "demo", provider: "script", model: "", demo: true }, instructions: "Write hello.txt",
        workspace: "/tmp/ws", mode: "ask", max_steps: 10, forked_from: { run_id: run, node_id: "n_llm" }, history,
      },
    });
    expect(s.runs["run_f1"]).toMatchObject({ forkedFrom: { run_id: run, node_id: "n_llm" }, history, forks: [] });
  });

  it("keeps a steer message as a user node labelled steer, in place", () => {
    const s = replay(more(
      { type: "node.started", node_id: "n_steer", data: { kind: "user", label: "steer", text: "Use British spelling." } },
      { type: "node.finished", node_id: "n_steer", data: { status: "succeeded", duration_ms: 0 } },
    ), replay(start));
    const t = s.runs[run]!;
    expect(t.nodeOrder).toEqual(["n_user", "n_llm", "n_steer"]);
    expect(t.nodes["n_steer"]).toMatchObject({ kind: "user", label: "steer", text: "Use British spelling.", status: "succeeded" });
  });

  it("builds the same state live and in replay", () => {
    const events = [...start, ...more(
      { type: "llm.attempt", node_id: "n_llm", data: { attempt: 1, kind: "overloaded", error: "529", retry_in_ms: 500 } },
      { type: "run.forked", data: { node_id: "n_user", fork: "run_f" } },
      { type: "run.status", data: { status: "paused", reason: "step", next: { kind: "model" } } },
    )];
    const live = events.reduce((s, e) => reduce(s, e), emptyStream);
    // Replay delivers the log again, partly twice: the state is the same.
    const replayed = replay([...events.slice(0, 5), ...events]);
    expect(replayed).toEqual(live);
  });
});

describe("reduce, approvals, questions and plans", () => {
  const toolStarted = (id: string, tool: string, args: unknown = {}) =>
    ({ type: "node.started", node_id: id, data: { kind: "tool", label: tool, tool, arguments: args, risk: "write" } }) as const;

  it("keeps the latest run.plan as the run's plan", () => {
    const s = replay(more(
      toolStarted("n_plan1", "update_plan"),
      { type: "run.plan", node_id: "n_plan1", data: { steps: [{ title: "Read", status: "in_progress" }, { title: "Write", status: "pending" }] } },
      toolStarted("n_plan2", "update_plan"),
      { type: "run.plan", node_id: "n_plan2", data: { steps: [{ title: "Read", status: "done" }, { title: "Write", status: "in_progress" }] } },
    ), replay(start));
    expect(s.runs[run]!.plan).toEqual({
      nodeId: "n_plan2",
      seq: 10,
      ts: 1003,
      steps: [{ title: "Read", status: "done" }, { title: "Write", status: "in_progress" }],
    });
    expect(replay(start).runs[run]!.plan).toBeUndefined();
  });

  it("records the mode and unattended flag of run.created", () => {
    const s = reduce(emptyStream, {
      run_id: "run_u", seq: 1, ts: 0, type: "run.created",
      data: { agent: { id: "a", name: "a", provider: "script", model: "" }, instructions: "x", workspace: "/w", mode: "edits", max_steps: 3, unattended: true },
    });
    expect(s.runs["run_u"]).toMatchObject({ mode: "edits", unattended: true });
  });

  it("audits automatic and human decisions in log order, with the tool name", () => {
    const s = replay(more(
      toolStarted("n_read", "read_file"),
      { type: "policy.decided", node_id: "n_read", data: { effect: "allow", reason: "read tools run" } },
      toolStarted("n_write", "write_file", { path: "a.txt", content: "x" }),
      { type: "policy.decided", node_id: "n_write", data: { effect: "ask", reason: "write needs approval" } },
      { type: "approval.requested", node_id: "n_write", data: { interaction_id: "ia_1", tool: "write_file", arguments: { path: "a.txt", content: "x" }, risk: "write", reason: "ask", group: "n_llm", group_size: 2, expires_at: 5000, default_decision: "deny" } },
      { type: "approval.decided", node_id: "n_write", data: { interaction_id: "ia_1", decision: "approve", source: "web", scope: "run", grant_id: "gr_ia_1", arguments: { path: "b.txt", content: "x" } } },
      toolStarted("n_rm", "delete_file"),
      { type: "approval.requested", node_id: "n_rm", data: { interaction_id: "ia_2", tool: "delete_file", arguments: {}, risk: "destructive", reason: "ask", expires_at: 6000 } },
      { type: "approval.decided", node_id: "n_rm", data: { interaction_id: "ia_2", decision: "deny", source: "timeout", feedback: "no answer in 5m" } },
    ), replay(start));
    const t = s.runs[run]!;
    expect(t.decisions).toEqual([
      { kind: "policy", seq: 8, ts: 1001, nodeId: "n_read", tool: "read_file", effect: "allow", reason: "read tools run" },
      { kind: "policy", seq: 10, ts: 1003, nodeId: "n_write", tool: "write_file", effect: "ask", reason: "write needs approval" },
      {
        kind: "answer", seq: 12, ts: 1005, nodeId: "n_write", tool: "write_file", interaction: "approval", decision: "approve",
        source: "web", scope: "run", grantId: "gr_ia_1", feedback: undefined, edited: true,
      },
      {
        kind: "answer", seq: 15, ts: 1008, nodeId: "n_rm", tool: "delete_file", interaction: "approval", decision: "deny",
        source: "timeout", scope: undefined, grantId: undefined, feedback: "no answer in 5m", edited: false,
      },
    ]);
    const write = t.nodes["n_write"] as ToolNode;
    expect(write.status).toBe("running");
    expect(write.approval).toMatchObject({
      kind: "approval", group: "n_llm", groupSize: 2, expiresAt: 5000, defaultDecision: "deny",
      decision: "approve", editedArguments: { path: "b.txt", content: "x" }, grantId: "gr_ia_1",
    });
    // The model's arguments stay what it asked for; the edit is kept beside them.
    expect(write.arguments).toEqual({ path: "a.txt", content: "x" });
    expect((t.nodes["n_rm"] as ToolNode).status).toBe("denied");
  });

  it("opens a question on the ask_user node and keeps its answer; the answer's user node points back", () => {
    const question = { text: "Which colour?", options: [{ label: "red" }, { label: "blue" }], multiple: true, allow_other: true };
    const s = replay(more(
      toolStarted("n_ask", "ask_user", question),
      { type: "approval.requested", node_id: "n_ask", data: { interaction_id: "ia_q", kind: "question", tool: "ask_user", arguments: question, risk: "read", reason: "", question } },
      { type: "approval.decided", node_id: "n_ask", data: { interaction_id: "ia_q", decision: "answer", source: "web", choices: ["red"], text: "green too" } },
      { type: "node.started", node_id: "n_ans", data: { kind: "user", label: "answer", text: "red; green too", answer_to: "n_ask" } },
    ), replay(start));
    const t = s.runs[run]!;
    const ask = t.nodes["n_ask"] as ToolNode;
    expect(ask.status).toBe("running");
    expect(ask.approval).toMatchObject({ kind: "question", question, decision: "answer", choices: ["red"], text: "green too" });
    expect(t.nodes["n_ans"]).toMatchObject({ kind: "user", text: "red; green too", answerTo: "n_ask" });
    expect(t.nodeOrder.slice(-2)).toEqual(["n_ask", "n_ans"]);
    expect(t.decisions.at(-1)).toMatchObject({ kind: "answer", interaction: "question", decision: "answer", tool: "ask_user" });
  });

  it("treats an expires_at of 0 as never", () => {
    const s = replay(log(
      toolStarted("n_w", "write_file"),
      { type: "approval.requested", node_id: "n_w", data: { interaction_id: "ia_3", tool: "write_file", arguments: {}, risk: "write", reason: "", expires_at: 0 } },
    ));
    expect((s.runs[run]!.nodes["n_w"] as ToolNode).approval?.expiresAt).toBeUndefined();
  });
});

describe("reduce, artifacts", () => {
  const shot = { name: "shots/n_b.png", kind: "screenshot", mime: "image/png", size: 2048 };
  const video = { name: "browser.mp4", kind: "video", mime: "video/mp4", size: 90_000, description: "12 s of 40 s" };

  it("lists a run's artifacts in order and gives each node its own", () => {
    const s = replay(more(
      { type: "node.started", node_id: "n_b", data: { kind: "tool", label: "browser_screenshot", tool: "browser_screenshot", arguments: {}, risk: "read" } },
      { type: "artifact.created", node_id: "n_b", data: shot },
      { type: "node.finished", node_id: "n_b", data: { status: "succeeded", duration_ms: 40, output: "saved shots/n_b.png" } },
      { type: "artifact.created", data: video },
    ), replay(start));
    const t = s.runs[run]!;
    expect(t.artifacts).toEqual([
      { ...shot, description: undefined, seq: 8, ts: 1001, nodeId: "n_b" },
      { ...video, seq: 10, ts: 1003, nodeId: undefined },
    ]);
    const n = t.nodes["n_b"] as ToolNode;
    expect(n.artifacts).toEqual([t.artifacts[0]]);
    // node.finished keeps what the node produced before it finished.
    expect(n.status).toBe("succeeded");
    expect(t.nodes["n_llm"]!.artifacts).toBeUndefined();
  });

  it("ignores an artifact without a name, and one seen before", () => {
    const s = replay(more({ type: "artifact.created", data: { kind: "screenshot" } }), replay(start));
    expect(s.runs[run]!.artifacts).toEqual([]);
    const once = replay(more({ type: "artifact.created", data: video }), replay(start));
    expect(reduce(once, more({ type: "artifact.created", data: video })[0]!)).toBe(once);
  });

  it("builds the same artifacts in one batch as one event at a time, and leaves its input alone", async () => {
    const { reduceBatch } = await import("./reducer");
    const events = [
      ...start,
      ...more(
        { type: "node.started", node_id: "n_b", data: { kind: "tool", label: "browser_open", tool: "browser_open", arguments: {}, risk: "network" } },
        { type: "artifact.created", node_id: "n_b", data: shot },
        { type: "artifact.created", node_id: "n_b", data: { ...shot, name: "shots/n_b-2.png" } },
        { type: "artifact.created", data: video },
      ),
    ];
    const first = reduceBatch(emptyStream, events.slice(0, 8));
    const frozen = JSON.stringify(first);
    const all = reduceBatch(first, events.slice(8));
    expect(all).toEqual(events.reduce(reduce, emptyStream));
    expect(JSON.stringify(first)).toBe(frozen);
    expect((all.runs[run]!.nodes["n_b"] as ToolNode).artifacts?.map((a) => a.name)).toEqual(["shots/n_b.png", "shots/n_b-2.png"]);
  });
});

describe("reduce, replays", () => {
  const created: Omit<Event, "run_id" | "seq" | "ts"> = {
    type: "run.created",
    data: { agent: { id: "ag_1", name: "demo", provider: "script", model: "" }, instructions: "go", workspace: "/r", mode: "ask", max_steps: 9, replay_of: "run_src" },
  };
  const diverged = (step: number, got: string): Omit<Event, "run_id" | "seq" | "ts"> => ({
    type: "replay.diverged",
    node_id: "",
    data: { step, field: "messages[4].content (tool result of call_2)", recorded: "hello", got },
  });
  const events = log(
    created,
    { type: "node.started", node_id: "n_user", data: { kind: "user", label: "Instructions", text: "go" } },
    { type: "node.started", node_id: "n_llm1", data: { kind: "llm", label: "Model", step: 1 } },
    { type: "node.started", node_id: "n_tool", data: { kind: "tool", label: "read_file", tool: "read_file", arguments: {}, risk: "read" } },
    diverged(2, "hullo"),
    { type: "node.started", node_id: "n_llm2", data: { kind: "llm", label: "Model", step: 2 } },
    diverged(3, "something else"),
  );

  it("keeps the run a replay replays, and the first replay.diverged with the node before it", () => {
    const t = replay(events).runs[run]!;
    expect(t.replayOf).toBe("run_src");
    expect(t.diverged).toEqual({
      step: 2,
      field: "messages[4].content (tool result of call_2)",
      recorded: "hello",
      got: "hullo",
      seq: 5,
      ts: 1004,
      afterNode: "n_tool",
    });
    // The run goes on: the event is information, not a status.
    expect(t.nodeOrder).toEqual(["n_user", "n_llm1", "n_tool", "n_llm2"]);
    expect(t.status).toBeUndefined();
  });

  it("builds the same divergence in one batch, as the replay page does", async () => {
    const { reduceBatch } = await import("./reducer");
    expect(reduceBatch(emptyStream, events)).toEqual(replay(events));
  });

  it("has no divergence before one, and takes a value that is not a string as its JSON", () => {
    expect(replay(events.slice(0, 4)).runs[run]!.diverged).toBeUndefined();
    const odd = log({ type: "replay.diverged", data: { step: 1, field: "tools", recorded: ["a"], got: null } });
    expect(replay(odd).runs[run]!.diverged).toMatchObject({ step: 1, recorded: '["a"]', got: "", afterNode: undefined });
  });
});

describe("reduceBatch", () => {
  it("builds the same state as one event at a time, without changing its input", async () => {
    const { bigRunEvents } = await import("../test/bigRun");
    const { reduceBatch } = await import("./reducer");
    const events = [...bigRunEvents({ turns: 20, runId: "a" }), ...bigRunEvents({ turns: 5, runId: "b" })];
    const oneByOne = events.reduce(reduce, emptyStream);
    // In three bursts, as a replay arrives: the middle one cut anywhere.
    const first = reduceBatch(emptyStream, events.slice(0, 100));
    const frozen = JSON.stringify(first);
    const all = reduceBatch(reduceBatch(first, events.slice(100, 137)), events.slice(137));
    expect(all).toEqual(oneByOne);
    expect(JSON.stringify(first)).toBe(frozen);
    // An applied burst again changes nothing.
    expect(reduceBatch(all, events.slice(50, 80))).toBe(all);
  });

  it("replays 10,000 events of 2,000 nodes in one batch quickly", async () => {
    const { bigRunEvents } = await import("../test/bigRun");
    const { reduceBatch } = await import("./reducer");
    const events = bigRunEvents();
    expect(events.length).toBeGreaterThan(9_000);
    const start = performance.now();
    const s = reduceBatch(emptyStream, events);
    const ms = performance.now() - start;
    expect(s.runs["run_big"]!.nodeOrder).toHaveLength(2002);
    // About 50 ms here; one event at a time took 2 s (each copied every node).
    expect(ms).toBeLessThan(1000);
  });
});

describe("orderGrows", () => {
  it("knows an order the reducer grew from another, and no other", async () => {
    const { bigRunEvents } = await import("../test/bigRun");
    const { emptyTranscript, orderGrows, reduceRunBatch } = await import("./reducer");
    const events = bigRunEvents({ turns: 5, runId: "a" });
    const start = emptyTranscript("a");
    const one = reduceRunBatch(start, events.slice(0, 10));
    const two = reduceRunBatch(one, events.slice(10, 20));
    const three = reduceRunBatch(two, events.slice(20));
    expect(orderGrows(one.nodeOrder, three.nodeOrder)).toBe(true);
    expect(orderGrows(three.nodeOrder, three.nodeOrder)).toBe(true);
    expect(orderGrows(start.nodeOrder, one.nodeOrder)).toBe(true);
    // Shorter, or the same run folded apart (the same ids, other nodes maybe).
    expect(orderGrows(three.nodeOrder, one.nodeOrder)).toBe(false);
    const apart = reduceRunBatch(emptyTranscript("a"), events.slice(0, 20));
    expect(apart.nodeOrder).toEqual(two.nodeOrder);
    expect(orderGrows(one.nodeOrder, apart.nodeOrder)).toBe(false);
  });
});

describe("reduce, streamed text", () => {
  it("holds a model call's streamed text as its deltas, each sharing the ones before", () => {
    const s = replay(start);
    const n = s.runs[run]!.nodes["n_llm"] as LlmNode;
    const chunks = (x: Streamed | undefined): string[] => (x ? [...chunks(x.prev), x.text] : []);
    expect(chunks(n.streamed)).toEqual(["I will ", "write\n  the file."]);
    expect(n.streamed!.end).toBe(n.text.length);

    const next = reduce(s, { run_id: run, seq: 7, ts: 0, type: "llm.delta", node_id: "n_llm", data: { text: "!" } });
    const m = next.runs[run]!.nodes["n_llm"] as LlmNode;
    // Appended, not copied: the earlier deltas are the same objects, and
    // the state before is as it was.
    expect(m.streamed!.prev).toBe(n.streamed);
    expect(chunks(n.streamed)).toEqual(["I will ", "write\n  the file."]);
    expect(m.text).toBe("I will write\n  the file.!");

    // A retried attempt and the finished response leave no streamed text.
    const retried = reduce(next, { run_id: run, seq: 8, ts: 0, type: "llm.attempt", node_id: "n_llm", data: { attempt: 1, kind: "server_error", error: "503", retry_in_ms: 10 } });
    expect((retried.runs[run]!.nodes["n_llm"] as LlmNode).streamed).toBeUndefined();
    const done = reduce(next, { run_id: run, seq: 8, ts: 0, type: "node.finished", node_id: "n_llm", data: { status: "succeeded", duration_ms: 1 } });
    expect((done.runs[run]!.nodes["n_llm"] as LlmNode).streamed).toBeUndefined();
    expect((done.runs[run]!.nodes["n_llm"] as LlmNode).text).toBe("I will write\n  the file.!");
  });
});

describe("reduce, mcp.server", () => {
  // A call whose server crashed, and the next call, which restarted it.
  const servers = log(
    ...start.map(({ type, node_id, data }) => ({ type, node_id, data })),
    { type: "node.started", node_id: "n_exit", data: { kind: "tool", label: "mcp__fx__exit", tool: "mcp__fx__exit" } },
    { type: "mcp.server", node_id: "n_exit", data: { server: "fx", state: "connected", era: "2026-07-28", transport: "stdio", attempt: 1 } },
    { type: "mcp.server", node_id: "n_exit", data: { server: "fx", state: "crashed", reason: "exit status 1", stderr: "panic: boom", retry_in_ms: 500 } },
    { type: "node.finished", node_id: "n_exit", data: { status: "failed", duration_ms: 3, is_error: true, code: "mcp_server_unavailable" } },
    { type: "node.started", node_id: "n_echo", data: { kind: "tool", label: "mcp__fx__echo", tool: "mcp__fx__echo" } },
    { type: "mcp.server", node_id: "n_echo", data: { server: "fx", state: "restarted", attempt: 2 } },
    { type: "mcp.server", node_id: "n_echo", data: { server: "fx", state: "connected", era: "2026-07-28", transport: "stdio", attempt: 2 } },
    // Not what this UI can read: left out, the rest kept.
    { type: "mcp.server", node_id: "n_echo", data: { state: "connected" } },
  );

  it("keeps each event as a note placed after the call that met the server", () => {
    const t = replay(servers).runs[run]!;
    expect(t.servers.map((n) => [n.afterNode, n.state, n.attempt ?? 0])).toEqual([
      ["n_exit", "connected", 1],
      ["n_exit", "crashed", 0],
      ["n_echo", "restarted", 2],
      ["n_echo", "connected", 2],
    ]);
    expect(t.servers[1]).toMatchObject({ server: "fx", reason: "exit status 1", stderr: "panic: boom", retryInMs: 500, nodeId: "n_exit", seq: 9 });
    expect(describeNotes(notesAfter(t, "n_exit"))).toBe(
      "MCP server fx connected (2026-07-28, stdio); crashed (exit status 1), started again in 0.5 s at the soonest",
    );
    expect(describeNotes(notesAfter(t, "n_echo"))).toBe("MCP server fx restarted, attempt 2; connected (2026-07-28, stdio)");
    // Nodes are untouched by it.
    expect(t.nodeOrder).toEqual(["n_user", "n_llm", "n_exit", "n_echo"]);
  });

  it("places a note that names no call after the node started last, and does not mutate its input", () => {
    const s = replay(start);
    const before = JSON.stringify(s);
    const next = reduce(s, { run_id: run, seq: 7, ts: 9, type: "mcp.server", data: { server: "gh", state: "failed", reason: "no such file", retry_in_ms: 2000 } });
    expect(JSON.stringify(s)).toBe(before);
    const t = next.runs[run]!;
    expect(t.servers).toHaveLength(1);
    expect(t.servers[0]!.afterNode).toBe("n_llm");
    expect(describeNotes(t.servers)).toBe("MCP server gh could not be started, started again in 2 s at the soonest");
    // Applied once: the same seq again changes nothing.
    expect(reduce(next, { run_id: run, seq: 7, ts: 9, type: "mcp.server", data: { server: "gh", state: "failed" } })).toBe(next);
  });
});
