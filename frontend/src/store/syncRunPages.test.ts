import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../api/client";
import type { Run } from "../api/types";
import { FakeSocket } from "../test/fakeSocket";
import { createAppStore } from "./store";
import { startSync, type Sync } from "./sync";

let sync: Sync | undefined;
beforeEach(() => {
  FakeSocket.all = [];
});
afterEach(() => sync?.stop());

const run = (i: number): Run => ({ id: `run_${String(i).padStart(4, "0")}`, created_at: i, updated_at: i, status: "completed" }) as Run;
const newest = (from: number, n: number) => Array.from({ length: n }, (_, i) => run(from - i));

describe("sync and the run list's pages", () => {
  it("refreshes as many runs as the pages loaded hold, and keeps the cursor after them", async () => {
    const fetched: string[] = [];
    const fetchFake = vi.fn(async (input: RequestInfo | URL) => {
      const url = String(input);
      fetched.push(url);
      if (url === "/api/v1/runs") return Response.json({ runs: newest(1000, 100), next_before: "c100", more: true });
      if (url === "/api/v1/runs?limit=250") return Response.json({ runs: newest(1001, 250), next_before: "c249", more: true });
      return Response.json({ interactions: [], agents: [] });
    });
    const store = createAppStore();
    sync = startSync(createApi({ fetch: fetchFake as unknown as typeof fetch }), store, {
      url: "ws://test/api/v1/ws",
      WebSocket: FakeSocket as unknown as typeof WebSocket,
    });
    await vi.waitFor(() => expect(store.getState().runsNext).toBe("c100"));
    expect(store.getState().runs).toHaveLength(100);

    store.getState().appendRuns("c100", { runs: newest(900, 150), next: "c250" });
    await sync.refreshLists();
    expect(fetched).toContain("/api/v1/runs?limit=250");
    const s = store.getState();
    // One run newer than all: the oldest held run is still held, after the fresh page.
    expect(s.runs).toHaveLength(251);
    expect(s.runs[0]!.id).toBe("run_1001");
    expect(s.runs[250]!.id).toBe("run_0751");
    expect(s.runsNext).toBe("c250");
  });
});
