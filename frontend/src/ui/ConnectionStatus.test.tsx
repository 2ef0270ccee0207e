import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../api/client";
import { ServicesProvider } from "../store/context";
import { createAppStore } from "../store/store";
import { startSync, type Sync } from "../store/sync";
import { FakeSocket } from "../test/fakeSocket";
import { ConnectionStatus, connectionPhase } from "./ConnectionStatus";

let sync: Sync | undefined;
beforeEach(() => {
  FakeSocket.all = [];
  vi.useFakeTimers();
});
afterEach(() => {
  sync?.stop();
  cleanup();
  vi.useRealTimers();
});

const sock = () => FakeSocket.all[FakeSocket.all.length - 1]!;

function start(frameBatching = false) {
  const store = createAppStore({ selectedRunId: "run_1" });
  const fetchFake = vi.fn(async () => Response.json({ runs: [], interactions: [], agents: [] }));
  const api = createApi({ fetch: fetchFake as unknown as typeof fetch });
  sync = startSync(api, store, { url: "ws://test/api/v1/ws", WebSocket: FakeSocket as unknown as typeof WebSocket, initialMs: 100, frameBatching });
  render(
    <ServicesProvider value={{ api, store, refreshLists: sync.refreshLists, refreshRun: sync.refreshRun }}>
      <ConnectionStatus />
    </ServicesProvider>,
  );
  return store;
}

describe("connectionPhase", () => {
  it("names what the connection does", () => {
    expect(connectionPhase("connecting", false)).toBe("connecting");
    expect(connectionPhase("open", false)).toBe("live");
    expect(connectionPhase("closed", true)).toBe("reconnecting");
    expect(connectionPhase("connecting", true)).toBe("reconnecting");
    expect(connectionPhase("open", true)).toBe("catching-up");
  });
});

describe("ConnectionStatus", () => {
  it("says reconnecting when the socket drops, catching up once back, and live when the run caught up", () => {
    start();
    act(() => sock().open());
    expect(screen.getByRole("status").textContent).toBe("live");
    expect(screen.queryByTestId("reconnecting")).toBeNull();

    act(() => sock().drop());
    expect(screen.getByTestId("reconnecting").textContent).toBe("reconnecting…");
    act(() => vi.advanceTimersByTime(200));
    expect(screen.getByTestId("reconnecting").textContent).toBe("reconnecting…"); // connecting again
    act(() => sock().open());
    expect(screen.getByTestId("reconnecting").textContent).toBe("catching up…");
    // The run list's subscription catching up is not enough: the run's must.
    act(() => sock().message({ type: "caught_up", seq: 0 }));
    expect(screen.getByTestId("reconnecting").textContent).toBe("catching up…");
    act(() => sock().message({ type: "caught_up", run_id: "run_1", seq: 4 }));
    expect(screen.getByRole("status").textContent).toBe("live");
    expect(screen.queryByTestId("reconnecting")).toBeNull();
  });
});

describe("frame batching", () => {
  it("applies the events of one frame in one update, and all of them before saying caught up", () => {
    const store = start(true);
    act(() => sock().open());
    const updates = vi.fn();
    store.subscribe((s, prev) => s.stream !== prev.stream && updates());
    act(() => {
      for (let seq = 1; seq <= 50; seq++) sock().event("run_1", seq, "llm.delta", { text: "x" });
    });
    expect(store.getState().stream.runs["run_1"]).toBeUndefined();
    act(() => vi.advanceTimersByTime(300));
    expect(updates).toHaveBeenCalledTimes(1);
    expect(store.getState().stream.runs["run_1"]!.lastSeq).toBe(50);
    act(() => sock().event("run_1", 51, "llm.delta", { text: "x" }));
    act(() => sock().message({ type: "caught_up", run_id: "run_1", seq: 51 }));
    expect(store.getState().stream.runs["run_1"]!.lastSeq).toBe(51);
  });
});
