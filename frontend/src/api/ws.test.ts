import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeSocket } from "../test/fakeSocket";
import { EventSocket } from "./ws";

beforeEach(() => {
  FakeSocket.all = [];
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

function client() {
  const seen: string[] = [];
  const runLevel: number[] = [];
  const s = new EventSocket({
    url: "ws://test/api/v1/ws",
    WebSocket: FakeSocket as unknown as typeof WebSocket,
    onEvent: (e) => seen.push(`${e.run_id}:${e.seq}`),
    onRunLevel: (e) => runLevel.push(e.seq),
    initialMs: 100,
  });
  return { s, seen, runLevel, sock: () => FakeSocket.all[FakeSocket.all.length - 1]! };
}

describe("EventSocket", () => {
  it("subscribes on open and delivers each event once, in order", () => {
    const { s, seen, sock } = client();
    s.subscribeAll();
    s.subscribeRun("r1", 0);
    s.start();
    sock().open();
    expect(sock().sent).toEqual([
      { type: "subscribe", id: expect.any(String) },
      { type: "subscribe", id: expect.any(String), run_id: "r1", after: 0 },
    ]);
    sock().event("r1", 1);
    sock().event("r1", 2);
    sock().event("r1", 2); // duplicate
    sock().event("r1", 4); // ahead of the run's stream: the run subscription brings it in turn
    sock().event("r1", 3);
    sock().event("r1", 4);
    sock().event("r2", 9); // not subscribed
    expect(seen).toEqual(["r1:1", "r1:2", "r1:3", "r1:4"]);
  });

  it("reconnects with backoff and resumes each run from its last seq", () => {
    const { s, seen, runLevel, sock } = client();
    s.subscribeAll();
    s.subscribeRun("r1", 5);
    s.start();
    const first = sock();
    first.open();
    first.event("r1", 6, "run.status");
    first.drop();
    expect(FakeSocket.all).toHaveLength(1);
    vi.advanceTimersByTime(100);
    expect(FakeSocket.all).toHaveLength(2);
    sock().open();
    expect(sock().sent).toContainEqual({ type: "subscribe", id: expect.any(String), run_id: "r1", after: 6 });
    expect(sock().sent).toContainEqual({ type: "subscribe", id: expect.any(String) });
    sock().event("r1", 6, "run.status");
    sock().event("r1", 7);
    expect(seen).toEqual(["r1:6", "r1:7"]);
    expect(runLevel).toEqual([6, 6]);
  });

  it("stops reconnecting once stopped", () => {
    const { s, sock } = client();
    s.start();
    sock().open();
    s.stop();
    sock().drop();
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(1);
  });
});
