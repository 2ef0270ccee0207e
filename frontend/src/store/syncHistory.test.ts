import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../api/client";
import type { Event } from "../api/types";
import { FakeSocket } from "../test/fakeSocket";
import { createAppStore } from "./store";
import { startSync, type Sync } from "./sync";

let sync: Sync | undefined;
beforeEach(() => {
  FakeSocket.all = [];
});
afterEach(() => sync?.stop());

const ev = (seq: number): Event => ({ run_id: "run_1", seq, ts: seq, type: "llm.delta", node_id: "n", data: { text: "x" } });

describe("sync with pageHistory", () => {
  it("reads a run's log in pages, each in one update, then subscribes from its end", async () => {
    const log = Array.from({ length: 7500 }, (_, i) => ev(i + 1));
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
      return Response.json({ runs: [], interactions: [], agents: [] });
    });
    const store = createAppStore({ selectedRunId: "run_1" });
    const updates = vi.fn();
    store.subscribe((s, prev) => s.stream !== prev.stream && updates());
    sync = startSync(createApi({ fetch: fetchFake as unknown as typeof fetch }), store, {
      url: "ws://test/api/v1/ws",
      WebSocket: FakeSocket as unknown as typeof WebSocket,
      pageHistory: true,
    });
    FakeSocket.all[0]!.open();
    await vi.waitFor(() => expect(FakeSocket.all[0]!.sent).toContainEqual({ type: "subscribe", id: expect.any(String), run_id: "run_1", after: 7500 }));
    // Subscribed once, from the history's end: nothing fed the run while its
    // history was folded outside the store (setTranscript trusts that).
    const subscribes = (FakeSocket.all[0]!.sent as { type: string; run_id?: string }[]).filter((m) => m.type === "subscribe" && m.run_id === "run_1");
    expect(subscribes).toEqual([{ type: "subscribe", id: expect.any(String), run_id: "run_1", after: 7500 }]);
    expect(asked).toEqual(["0+2500", "2500+2500", "5000+2500"]);
    expect(updates).toHaveBeenCalledTimes(2);
    expect(store.getState().stream.runs["run_1"]!.lastSeq).toBe(7500);
  });
});
