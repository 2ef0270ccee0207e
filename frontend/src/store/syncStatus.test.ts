import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../api/client";
import type { Run } from "../api/types";
import { liveRun } from "../features/controls/liveRun";
import { FakeSocket } from "../test/fakeSocket";
import { createAppStore, selectRun } from "./store";
import { startSync, type Sync } from "./sync";

let sync: Sync | undefined;
beforeEach(() => {
  FakeSocket.all = [];
});
afterEach(() => sync?.stop());

const running = {
  id: "run_1", agent_id: "ag_1", agent_name: "demo", status: "running", instructions: "Write", workspace: "/ws",
  mode: "ask", provider: "script", model: "", demo: true, unattended: false, created_at: 1, updated_at: 1, last_seq: 2,
  steps: 1, pending_approvals: 0, usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 },
  capabilities: ["pause", "steer", "cancel", "fork", "break", "unbreak"],
} satisfies Run;

describe("sync and run.status", () => {
  it("takes the selected run's capabilities from its run.status, without fetching the run again", async () => {
    const fetched: string[] = [];
    const fetchFake = vi.fn(async (input: RequestInfo | URL) => {
      const url = String(input);
      fetched.push(url);
      if (url === "/api/v1/runs/run_1") return Response.json(running);
      if (url === "/api/v1/runs") return Response.json({ runs: [running] });
      return Response.json({ interactions: [], agents: [] });
    });
    const store = createAppStore({ selectedRunId: "run_1" });
    sync = startSync(createApi({ fetch: fetchFake as unknown as typeof fetch }), store, {
      url: "ws://test/api/v1/ws",
      WebSocket: FakeSocket as unknown as typeof WebSocket,
    });
    const sock = FakeSocket.all[0]!;
    sock.open();
    await vi.waitFor(() => expect(store.getState().runDetail["run_1"]).toBeDefined());
    const runFetches = () => fetched.filter((u) => u === "/api/v1/runs/run_1").length;
    const listFetches = () => fetched.filter((u) => u === "/api/v1/runs").length;
    const [runsBefore, listsBefore] = [runFetches(), listFetches()];

    sock.event("run_1", 1, "node.started", { kind: "agent", label: "demo" }, "n1");
    sock.event("run_1", 2, "run.status", { status: "running" });
    sock.message({
      type: "event",
      event: {
        run_id: "run_1", seq: 3, ts: 3, type: "run.status",
        data: { status: "paused", reason: "paused by the user", next: { kind: "model" } },
        capabilities: ["continue", "step", "steer", "cancel", "fork", "break", "unbreak"],
        refusals: { pause: { code: "invalid_state", message: "the run is already paused" } },
      },
    });

    // The lists are read again after the burst; the run is not.
    await vi.waitFor(() => expect(listFetches()).toBeGreaterThan(listsBefore));
    await new Promise((r) => setTimeout(r, 150));
    expect(runFetches()).toBe(runsBefore);
    const s = store.getState();
    const live = liveRun(selectRun(s, "run_1"), s.stream.runs["run_1"]);
    expect(live).toMatchObject({
      status: "paused",
      capabilities: ["continue", "step", "steer", "cancel", "fork", "break", "unbreak"],
      refusals: { pause: { code: "invalid_state", message: "the run is already paused" } },
    });
  });
});
