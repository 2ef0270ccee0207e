import { describe, expect, it } from "vitest";
import type { Event } from "../api/types";
import { emptyStream, reduce, reduceBatch, type StreamState } from "./reducer";

const run = "run_1";

// log builds events of one run with dense seqs from 1.
function log(...events: Omit<Event, "run_id" | "seq" | "ts">[]): Event[] {
  return events.map((e, i) => ({ run_id: run, seq: i + 1, ts: 1000 + i, ...e }));
}

function replay(events: Event[], state: StreamState = emptyStream): StreamState {
  return events.reduce(reduce, state);
}

// A run that failed, then was followed up and completed: the log as
// backend/run/followup.go writes it.
const twoTurns = log(
  { type: "run.created", data: { agent: { id: "ag_1", name: "tester", provider: "script", model: "m" }, instructions: "go", workspace: "/ws", mode: "ask", max_steps: 10 } },
  { type: "run.status", data: { status: "running" } },
  { type: "node.started", node_id: "n1", data: { kind: "agent", label: "tester" } },
  { type: "node.started", node_id: "n2", data: { kind: "user", parent: "n1", label: "instructions", text: "go" } },
  { type: "node.finished", node_id: "n2", data: { status: "succeeded" } },
  { type: "node.started", node_id: "n3", data: { kind: "llm", parent: "n1", after: ["n2"], label: "model call 1", step: 1 } },
  { type: "node.finished", node_id: "n3", data: { status: "failed", error: "model call failed: auth: bad key" } },
  { type: "node.finished", node_id: "n1", data: { status: "failed", error: "model call failed: auth: bad key" } },
  { type: "run.status", data: { status: "failed", error: "model call failed: auth: bad key" }, capabilities: ["fork", "follow_up", "replay"] },
  // The follow-up: status, the turn's root, its message.
  { type: "run.status", data: { status: "running", reason: "follow-up" }, capabilities: ["pause", "steer", "cancel", "fork", "break", "unbreak"] },
  { type: "node.started", node_id: "n4", data: { kind: "agent", label: "tester · turn 2" } },
  { type: "node.started", node_id: "n5", data: { kind: "user", parent: "n4", label: "follow-up", text: "try again" } },
  { type: "node.finished", node_id: "n5", data: { status: "succeeded" } },
  { type: "node.started", node_id: "n6", data: { kind: "llm", parent: "n4", after: ["n2", "n5"], label: "model call 2", step: 2 } },
  { type: "node.finished", node_id: "n6", data: { status: "succeeded", text: "Done." } },
  { type: "node.finished", node_id: "n4", data: { status: "succeeded" } },
  { type: "run.status", data: { status: "completed" }, capabilities: ["fork", "follow_up", "replay"] },
);

describe("follow-up", () => {
  it("opens a new turn after the end of the last", () => {
    const t = replay(twoTurns.slice(0, 13)).runs[run]!;
    expect(t.status).toBe("running");
    expect(t.reason).toBe("follow-up");
    // The failed turn's error is not the running run's.
    expect(t.error).toBeUndefined();
    expect(t.capabilities).toContain("steer");
    expect(t.turns).toEqual([
      { root: "n1", seq: 3, startedAt: 1002, endedAs: "failed" },
      { root: "n4", seq: 11, startedAt: 1010, message: "try again", messageNode: "n5" },
    ]);
    // The message is a user node of the transcript, in log order, and the
    // first turn's nodes keep how they ended.
    expect(t.nodeOrder).toEqual(["n1", "n2", "n3", "n4", "n5"]);
    expect(t.nodes["n5"]).toMatchObject({ kind: "user", label: "follow-up", text: "try again", parent: "n4", status: "succeeded" });
    expect(t.nodes["n1"]!.status).toBe("failed");
    expect(t.nodes["n4"]!.status).toBe("running");
  });

  it("closes the turn with the run's end", () => {
    const t = replay(twoTurns).runs[run]!;
    expect(t.status).toBe("completed");
    expect(t.turns.map((x) => [x.root, x.endedAs, x.message])).toEqual([
      ["n1", "failed", undefined],
      ["n4", "completed", "try again"],
    ]);
    expect(t.nodes["n4"]!.status).toBe("succeeded");
  });

  it("builds the same turns in one batch as one event at a time, and ignores what it saw", () => {
    const one = replay(twoTurns);
    const batch = reduceBatch(emptyStream, twoTurns);
    expect(batch).toEqual(one);
    expect(reduceBatch(batch, twoTurns.slice(9))).toBe(batch);
  });

  it("takes as a message only a follow-up under the last turn's root, once", () => {
    const extra = log(
      ...twoTurns.slice(0, 13).map(({ type, node_id, data, capabilities }) => ({ type, node_id, data, capabilities })),
      // A steer in the new turn, a second follow-up node, and one under the old root.
      { type: "node.started", node_id: "n7", data: { kind: "user", parent: "n4", label: "steer", text: "hurry" } },
      { type: "node.started", node_id: "n8", data: { kind: "user", parent: "n4", label: "follow-up", text: "again?" } },
      { type: "node.started", node_id: "n9", data: { kind: "user", parent: "n1", label: "follow-up", text: "old" } },
    );
    const t = replay(extra).runs[run]!;
    expect(t.turns).toHaveLength(2);
    expect(t.turns[1]).toMatchObject({ message: "try again", messageNode: "n5" });
  });

  it("leaves a run without follow-ups with its one turn, and a sub-agent opens none", () => {
    const first = twoTurns.slice(0, 9);
    const sub = log(
      ...first.map(({ type, node_id, data }) => ({ type, node_id, data })),
      { type: "node.started", node_id: "n10", data: { kind: "agent", parent: "n3", label: "helper" } },
    );
    const t = replay(sub).runs[run]!;
    expect(t.turns).toEqual([{ root: "n1", seq: 3, startedAt: 1002, endedAs: "failed" }]);
    expect(t.error).toBe("model call failed: auth: bad key");
  });
});
