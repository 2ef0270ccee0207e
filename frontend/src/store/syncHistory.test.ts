import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../api/client";
import type { Event } from "../api/types";
import { FakeSocket } from "../test/fakeSocket";
import { emptyTranscript, reduceRunBatch, type RunTranscript } from "./reducer";
import { createAppStore } from "./store";
import { startSync, type Sync } from "./sync";

let sync: Sync | undefined;
beforeEach(() => {
  FakeSocket.all = [];
});
afterEach(() => sync?.stop());

const ev = (seq: number): Event => ({ run_id: "run_1", seq, ts: seq, type: "llm.delta", node_id: "n", data: { text: "x" } });

// serve answers the API as a server holding run_1's log would: its events
// in pages, the run (its last seq), and empty lists. asked records each
// page asked for, as after+limit.
function serve(log: readonly Event[]) {
  const asked: string[] = [];
  const fetchFake = vi.fn(async (input: RequestInfo | URL) => {
    const url = String(input);
    const m = /\/runs\/run_1\/events\?after=(\d+)&limit=(\d+)/.exec(url);
    if (m) {
      asked.push(`${m[1]}+${m[2]}`);
      const after = Number(m[1]);
      const page = log.filter((e) => e.seq > after).slice(0, Number(m[2]));
      return Response.json({ events: page, next_after: page.at(-1)?.seq ?? after, more: after + page.length < log.length });
    }
    if (/\/runs\/run_1$/.test(url)) return Response.json({ id: "run_1", status: "completed", last_seq: log.length });
    return Response.json({ runs: [], interactions: [], agents: [] });
  });
  return { fetchFake, asked };
}

describe("sync with pageHistory", () => {
  it("reads a run's log in pages, each in one update, then subscribes from its end", async () => {
    // As long as a run can be and still be read from its start (sync's tailAfter).
    const log = Array.from({ length: 5000 }, (_, i) => ev(i + 1));
    const { fetchFake, asked } = serve(log);
    const store = createAppStore({ selectedRunId: "run_1" });
    const updates = vi.fn();
    store.subscribe((s, prev) => s.stream !== prev.stream && updates());
    sync = startSync(createApi({ fetch: fetchFake as unknown as typeof fetch }), store, {
      url: "ws://test/api/v1/ws",
      WebSocket: FakeSocket as unknown as typeof WebSocket,
      pageHistory: true,
    });
    FakeSocket.all[0]!.open();
    await vi.waitFor(() => expect(FakeSocket.all[0]!.sent).toContainEqual({ type: "subscribe", id: expect.any(String), run_id: "run_1", after: 5000 }));
    // Subscribed once, from the history's end: nothing fed the run while its
    // history was folded outside the store (setTranscript trusts that).
    const subscribes = (FakeSocket.all[0]!.sent as { type: string; run_id?: string }[]).filter((m) => m.type === "subscribe" && m.run_id === "run_1");
    expect(subscribes).toEqual([{ type: "subscribe", id: expect.any(String), run_id: "run_1", after: 5000 }]);
    expect(asked).toEqual(["0+2500", "2500+2500"]);
    expect(updates).toHaveBeenCalledTimes(2);
    expect(store.getState().stream.runs["run_1"]!.lastSeq).toBe(5000);
  });
});

describe("sync with pageHistory, a long run", () => {
  it("shows the run's end first, then its whole history in its place, reading each before it commits", async () => {
    const { bigRunEvents } = await import("../test/bigRun");
    const log = bigRunEvents({ turns: 700, runId: "run_1" });
    const last = log.length;
    expect(last).toBeGreaterThan(10_000);
    const { fetchFake, asked } = serve(log);
    const store = createAppStore({ selectedRunId: "run_1" });
    const shown: RunTranscript[] = [];
    store.subscribe((s, prev) => {
      const t = s.stream.runs["run_1"];
      if (t && t !== prev.stream.runs["run_1"]) shown.push(t);
    });
    // Each transcript committed was read first, while the store had another.
    const read: RunTranscript[] = [];
    const prepare = (t: RunTranscript) => {
      expect(store.getState().stream.runs["run_1"]).not.toBe(t);
      read.push(t);
    };
    sync = startSync(createApi({ fetch: fetchFake as unknown as typeof fetch }), store, {
      url: "ws://test/api/v1/ws",
      WebSocket: FakeSocket as unknown as typeof WebSocket,
      pageHistory: true,
      prepare: [prepare],
    });
    FakeSocket.all[0]!.open();
    await vi.waitFor(() => expect(FakeSocket.all[0]!.sent).toContainEqual({ type: "subscribe", id: expect.any(String), run_id: "run_1", after: last }));
    const from = last - 2500;
    expect(asked[0]).toBe(`${from}+2500`);
    expect(asked[1]).toBe("0+2500");
    // The end first: only what its last page started.
    const end = shown[0]!;
    expect(end.tailFrom).toBe(from);
    expect(end.lastSeq).toBe(last);
    const whole = reduceRunBatch(emptyTranscript("run_1"), log);
    expect(end.nodeOrder.length).toBeLessThan(whole.nodeOrder.length);
    expect(whole.nodeOrder.slice(-end.nodeOrder.length)).toEqual(end.nodeOrder);
    // Then the whole run, at the same seq, in one update.
    expect(shown).toHaveLength(2);
    expect(shown[1]).toEqual(whole);
    expect(read).toEqual(shown);
    const subscribes = (FakeSocket.all[0]!.sent as { type: string; run_id?: string }[]).filter((m) => m.type === "subscribe" && m.run_id === "run_1");
    expect(subscribes).toHaveLength(1);
  });
});
