// Sync keeps the store in step with the server: it loads info, agents, the
// run list and the inbox over REST, feeds the selected run's events from the
// WebSocket into the reducer, and refetches the lists on run-level events.

import { isApiError, type Api } from "../api/client";
import { EventSocket, type EventSocketOptions } from "../api/ws";
import type { AppStore } from "./store";

export type Sync = {
  refreshLists: () => Promise<void>;
  refreshRun: (runId: string) => Promise<void>;
  stop: () => void;
};

// Run-level events come in bursts (status, then approval): one refetch each burst.
const refreshDelayMs = 100;

type SocketOptions = Pick<EventSocketOptions, "url" | "WebSocket" | "initialMs" | "maxMs">;

export function startSync(api: Api, store: AppStore, socketOpts: SocketOptions = {}): Sync {
  const state = () => store.getState();

  function report(err: unknown): void {
    // A 401 has already switched the UI to the signed-out page.
    if (isApiError(err, "unauthorized")) return;
    state().setLoadError(err instanceof Error ? err.message : String(err));
  }

  async function refreshLists(): Promise<void> {
    try {
      const [runs, inbox] = await Promise.all([api.runs(), api.interactions({ status: "pending" })]);
      state().setLists(runs, inbox);
    } catch (err) {
      report(err);
    }
  }

  async function refreshRun(runId: string): Promise<void> {
    try {
      state().setRun(await api.run(runId));
    } catch (err) {
      report(err);
    }
  }

  let timer: ReturnType<typeof setTimeout> | undefined;
  const dirty = new Set<string>();
  function scheduleRefresh(runId: string): void {
    dirty.add(runId);
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      const selected = state().selectedRunId;
      if (selected && dirty.has(selected)) void refreshRun(selected);
      dirty.clear();
      void refreshLists();
    }, refreshDelayMs);
  }

  const socket = new EventSocket({
    ...socketOpts,
    onEvent: (e) => state().applyEvent(e),
    onRunLevel: (e) => {
      // The selected run's controls go by its capabilities, which change
      // with its status: fetch it at once rather than with the burst.
      if (e.type === "run.status" && e.run_id === state().selectedRunId) void refreshRun(e.run_id);
      scheduleRefresh(e.run_id);
    },
    // The all-runs subscription does not replay: read the lists after each connect.
    onOpen: () => void refreshLists(),
    onStatus: (s) => state().setConnection(s),
  });

  // Follow the selected run: subscribe from the last seq the reducer applied,
  // so a run seen before resumes where it stopped.
  let followed: string | undefined;
  function follow(runId: string | undefined): void {
    if (runId === followed) return;
    if (followed) socket.unsubscribeRun(followed);
    followed = runId;
    if (!runId) return;
    socket.subscribeRun(runId, state().stream.runs[runId]?.lastSeq ?? 0);
    void refreshRun(runId);
  }

  const unsubscribe = store.subscribe((s) => {
    if (s.unauthorized) {
      socket.stop();
      return;
    }
    follow(s.selectedRunId);
  });

  void (async () => {
    try {
      const [info, agents] = await Promise.all([api.info(), api.agents()]);
      state().setStatic(info, agents);
    } catch (err) {
      report(err);
    }
  })();
  void refreshLists();
  socket.subscribeAll();
  socket.start();
  follow(state().selectedRunId);

  return {
    refreshLists,
    refreshRun,
    stop: () => {
      unsubscribe();
      clearTimeout(timer);
      socket.stop();
    },
  };
}
