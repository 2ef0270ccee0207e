import { describe, expect, it } from "vitest";
import type { Event, EventType } from "../../api/types";
import { emptyTranscript, reduceRunBatch, type RunTranscript } from "../../store/reducer";
import { bigRunEvents } from "../../test/bigRun";
import { axisTicks, percentages, spanText, tickText, timelineOf, totalsText } from "./timelineFold";

const runId = "run_t";

// at builds a run's events from [ts, type, node, data] rows, with dense seqs.
function at(...rows: [number, EventType, string | undefined, unknown][]): Event[] {
  return rows.map(([ts, type, node_id, data], i) => ({ run_id: runId, seq: i + 1, ts, type, node_id, data }));
}

function fold(events: Event[]): RunTranscript {
  return reduceRunBatch(emptyTranscript(runId), events);
}

const agent = { id: "ag", name: "a", provider: "script", model: "", demo: true };

// A run of 1.2 s: a model call (600 ms, $0.002), a write that waits 180 ms
// for a person, a last model call; then it completes.
const opening = at(
  [0, "run.created", undefined, { agent, instructions: "go", workspace: "/ws", mode: "ask", max_steps: 0 }],
  [0, "run.status", undefined, { status: "running" }],
  [0, "node.started", "root", { kind: "agent", label: "a" }],
  [0, "node.started", "u", { kind: "user", label: "instructions", parent: "root", text: "go" }],
  [0, "node.started", "m1", { kind: "llm", label: "model call 1", parent: "root", after: ["u"] }],
  [600, "node.finished", "m1", { status: "succeeded", duration_ms: 600, cost_usd: 0.002, usage: { input_tokens: 10, output_tokens: 5, cached_tokens: 0 } }],
  [600, "node.started", "t1", { kind: "tool", label: "write_file", tool: "write_file", parent: "root", after: ["m1"], arguments: { path: "notes/todo.md", content: "x" }, risk: "write" }],
  [610, "approval.requested", "t1", { interaction_id: "ia1", tool: "write_file", arguments: {}, risk: "write", reason: "writes ask" }],
  [790, "approval.decided", "t1", { interaction_id: "ia1", decision: "approve", source: "web" }],
);
const closing = at(
  [1000, "node.finished", "t1", { status: "succeeded", duration_ms: 400, output: "ok" }],
  [1000, "node.started", "m2", { kind: "llm", label: "model call 2", parent: "root", after: ["t1"] }],
  [1200, "node.finished", "m2", { status: "succeeded", duration_ms: 200, cost_usd: 0.001 }],
  [1200, "node.finished", "root", { status: "succeeded", duration_ms: 1200 }],
  [1200, "run.status", undefined, { status: "completed" }],
).map((e) => ({ ...e, seq: e.seq + opening.length }));

describe("timelineOf", () => {
  it("draws every node as a bar, cut into what it spent its time on", () => {
    const tl = timelineOf(fold([...opening, ...closing]), 99_999);
    expect(tl.start).toBe(0);
    expect(tl.end).toBe(1200); // ended: the clock does not matter
    expect(tl.live).toBe(false);
    expect(tl.bars.map((b) => b.id)).toEqual(["root", "u", "m1", "t1", "m2"]);
    const t1 = tl.bars.find((b) => b.id === "t1")!;
    expect(t1).toMatchObject({ label: "write_file", detail: "notes/todo.md", from: 600, to: 1000, waitingMs: 180, depth: 1, open: false });
    expect(t1.segments.map((s) => [s.kind, s.from, s.to])).toEqual([
      ["tool", 600, 610],
      ["waiting", 610, 790],
      ["tool", 790, 1000],
    ]);
    expect(tl.bars.find((b) => b.id === "m1")).toMatchObject({ depth: 0, costUsd: 0.002, segments: [{ kind: "model", from: 0, to: 600 }] });
    // A person's message takes no time; the agent stands for the run.
    expect(tl.bars.find((b) => b.id === "u")!.segments).toEqual([]);
    expect(tl.bars.find((b) => b.id === "root")!.segments).toEqual([]);
    expect(tl.costUsd).toBeCloseTo(0.003, 10);
  });

  it("totals where the run's time went, each instant once", () => {
    const tl = timelineOf(fold([...opening, ...closing]));
    expect(tl.totals).toEqual({ spanMs: 1200, ms: { model: 800, tool: 220, waiting: 180, paused: 0, other: 0 } });
    expect(percentages(tl.totals)).toEqual([
      { share: "model", ms: 800, percent: 67 },
      { share: "tool", ms: 220, percent: 18 },
      { share: "waiting", ms: 180, percent: 15 },
    ]);
    expect(totalsText(tl.totals)).toBe("model 67%, tools 18%, waiting for you 15%");
  });

  it("grows the open bars and the run with the clock while it runs", () => {
    const t = fold(opening.slice(0, 8)); // the write is waiting for its answer
    const a = timelineOf(t, 700);
    const b = timelineOf(t, 900);
    expect(a.live).toBe(true);
    expect(a.end).toBe(700);
    expect(b.end).toBe(900);
    const wa = a.bars.find((x) => x.id === "t1")!;
    const wb = b.bars.find((x) => x.id === "t1")!;
    expect(wa).toMatchObject({ open: true, to: 700, waitingMs: 90 });
    expect(wb).toMatchObject({ open: true, to: 900, waitingMs: 290 });
    expect(wb.segments.at(-1)).toMatchObject({ kind: "waiting", open: true, to: 900 });
    expect(b.totals.ms).toMatchObject({ model: 600, tool: 10, waiting: 290 });
    // The finished model call's bar is the same object: its row need not render again.
    expect(b.bars.find((x) => x.id === "m1")).toBe(a.bars.find((x) => x.id === "m1"));
  });

  it("never draws a recorded bar shorter than the log, whatever the clock says", () => {
    const t = fold(opening);
    expect(timelineOf(t, 100).end).toBe(790);
    // No clock (a replay): to the last thing the run knows.
    const replay = timelineOf(t);
    expect(replay.end).toBe(790);
    expect(replay.live).toBe(false);
  });

  it("draws the spans the run was paused, and counts a pending call's time in them as paused", () => {
    const t = fold(at(
      [0, "run.status", undefined, { status: "running" }],
      [0, "node.started", "m1", { kind: "llm", label: "model call 1" }],
      [100, "node.finished", "m1", { status: "succeeded", duration_ms: 100 }],
      [100, "node.started", "t1", { kind: "tool", label: "run_command", tool: "run_command", after: ["m1"], arguments: { command: "make   test\n" } }],
      [150, "run.status", undefined, { status: "pausing" }],
      [200, "run.status", undefined, { status: "paused", reason: "breakpoint" }],
      [200, "run.status", undefined, { status: "paused", reason: "breakpoint" }],
      [500, "run.status", undefined, { status: "running" }],
      [600, "node.finished", "t1", { status: "succeeded", duration_ms: 500 }],
      [700, "run.status", undefined, { status: "paused" }],
    ));
    const tl = timelineOf(t, 1000);
    expect(tl.paused.map((s) => [s.from, s.to, s.open])).toEqual([
      [200, 500, false],
      [700, 1000, true],
    ]);
    expect(tl.bars.find((b) => b.id === "t1")!.detail).toBe("make test");
    expect(tl.totals.ms).toEqual({ model: 100, tool: 200, waiting: 0, paused: 600, other: 100 });
    expect(totalsText(tl.totals)).toBe("model 10%, tools 20%, paused 60%, other 10%");
  });

  it("counts parallel calls waiting together once, and an elicitation as waiting", () => {
    const t = fold(at(
      [0, "run.status", undefined, { status: "running" }],
      [0, "node.started", "a", { kind: "tool", label: "x", tool: "x", arguments: {} }],
      [0, "node.started", "b", { kind: "tool", label: "y", tool: "y", arguments: {} }],
      [0, "approval.requested", "a", { interaction_id: "i1", tool: "x", arguments: {}, risk: "write", reason: "" }],
      [0, "approval.requested", "b", { interaction_id: "i2", tool: "y", arguments: {}, risk: "write", reason: "" }],
      [300, "approval.decided", "a", { interaction_id: "i1", decision: "approve", source: "web" }],
      [400, "approval.decided", "b", { interaction_id: "i2", decision: "deny", source: "web" }],
      [400, "node.finished", "b", { status: "denied", duration_ms: 400 }],
      [500, "approval.requested", "a", { interaction_id: "e1", kind: "elicitation", tool: "x", arguments: {}, risk: "write", reason: "", question: { text: "Sign in" } }],
      [650, "approval.decided", "a", { interaction_id: "e1", kind: "elicitation", decision: "answer", source: "web" }],
      [1000, "node.finished", "a", { status: "succeeded", duration_ms: 1000 }],
      [1000, "run.status", undefined, { status: "completed" }],
    ));
    const tl = timelineOf(t);
    expect(tl.bars.find((b) => b.id === "a")!.segments.map((s) => [s.kind, s.from, s.to])).toEqual([
      ["waiting", 0, 300],
      ["tool", 300, 500],
      ["waiting", 500, 650],
      ["tool", 650, 1000],
    ]);
    expect(tl.bars.find((b) => b.id === "b")!.waitingMs).toBe(400);
    expect(tl.totals.ms).toEqual({ model: 0, tool: 450, waiting: 550, paused: 0, other: 0 });
  });

  it("is empty for a run it knows nothing of", () => {
    expect(timelineOf(undefined, 5).bars).toEqual([]);
    expect(timelineOf(emptyTranscript(runId), 5)).toMatchObject({ bars: [], live: false, totals: { spanMs: 0 } });
    expect(percentages(timelineOf(undefined).totals)).toEqual([]);
  });

  it("rounds the shares to whole percent that add up to 100, a sliver as <1%", () => {
    const totals = { spanMs: 1000, ms: { model: 500, tool: 250, waiting: 247, paused: 0, other: 3 } };
    expect(percentages(totals).reduce((s, p) => s + p.percent, 0)).toBe(100);
    // 24.7% is rounded up, where 0.3% is not.
    expect(totalsText(totals)).toBe("model 50%, tools 25%, waiting for you 25%, other <1%");
  });
});

describe("the axis", () => {
  it("is marked in round steps, no more than five past 0", () => {
    expect(axisTicks(2000)).toEqual([0, 500, 1000, 1500, 2000]);
    expect(axisTicks(3700)).toEqual([0, 1000, 2000, 3000]);
    expect(axisTicks(45 * 60_000)).toEqual([0, 600_000, 1_200_000, 1_800_000, 2_400_000]);
    expect(axisTicks(7)).toEqual([0, 2, 4, 6]);
    expect(axisTicks(0)).toEqual([0]);
    expect(axisTicks(100 * 86_400_000)).toHaveLength(6); // every 20 days
  });

  it("says its marks in milliseconds, seconds, minutes or hours", () => {
    expect([0, 500, 1000, 1500, 15_000, 150_000, 3_900_000].map(tickText)).toEqual(["0 ms", "500 ms", "1 s", "1.5 s", "15 s", "2:30", "1:05:00"]);
  });
});

describe("timeline of a long run", () => {
  it("folds 10,000 events of 2,000 nodes well under a second", () => {
    const events = bigRunEvents({ turns: 527 });
    expect(events.length).toBeGreaterThanOrEqual(10_000);
    const t = reduceRunBatch(emptyTranscript("run_big"), events);
    const start = performance.now();
    const tl = timelineOf(t, Date.now());
    const first = performance.now() - start;
    const again = performance.now();
    timelineOf(t, Date.now() + 1000); // a tick of the clock: finished bars are kept
    const tick = performance.now() - again;
    console.log(`timeline fold of ${events.length} events, ${tl.bars.length} bars: ${first.toFixed(1)} ms, a tick after: ${tick.toFixed(1)} ms`);
    expect(tl.bars).toHaveLength(t.nodeOrder.length);
    expect(tl.bars.filter((b) => b.depth === 1)).toHaveLength(3 * 527);
    expect(first).toBeLessThan(1000);
    expect(tick).toBeLessThan(1000);
  });
});

describe("spanText", () => {
  it("says a length in ms and s under a minute, in min and s or h and min past it", () => {
    expect([3, 1200, 59_000, 252_000, 7_500_000].map(spanText)).toEqual(["3 ms", "1.2 s", "59 s", "4 min 12 s", "2 h 5 min"]);
  });
});
