// Sync keeps the store in step with the server: it loads info, agents, the
// run list and the inbox over REST, feeds the selected run's events from the
// WebSocket into the reducer, and refetches the lists on run-level events.

import { isApiError, type Api } from "../api/client";
import type { Event } from "../api/types";
import { EventSocket, type EventSocketOptions } from "../api/ws";
import { historyFold, nextTask } from "./historyFold";
import { pageOf, refreshLimit } from "./runPages";
import { emptyTranscript, RunFold, type RunTranscript } from "./reducer";
import { selectRun, type AppStore } from "./store";

export type Sync = {
  refreshLists: () => Promise<void>;
  refreshRun: (runId: string) => Promise<void>;
  stop: () => void;
};

// Run-level events come in bursts (status, then approval): one refetch each burst.
const refreshDelayMs = 100;

type SocketOptions = Pick<EventSocketOptions, "url" | "WebSocket" | "initialMs" | "maxMs"> & {
  // Apply the events that arrive within one animation frame as one store
  // update (the composition root turns it on). A run's replay arrives as
  // thousands of messages: applied one by one, each would copy the run's
  // state and render the page. Off, each event is applied as it arrives.
  frameBatching?: boolean;
  // Read a followed run's log over REST, in pages, before subscribing to
  // what comes after it (the composition root turns it on). The socket
  // replays a run's history faster than it can write it, and the server
  // then closes it as a slow consumer after about a thousand events: a
  // long run would load in many reconnects. Off, the socket replays all.
  pageHistory?: boolean;
  // What the views read of a transcript (their selectors' memoised reads:
  // the graph's steps, the nodes' kinds...), run on each transcript the
  // history's reader is about to commit, each in a task of its own: the
  // commit then finds them read, and renders only.
  prepare?: readonly ((t: RunTranscript) => unknown)[];
};

// A run of more than this many events, not read before, shows its end
// first: its last page folded alone, while the whole is read.
const tailAfter = 5000;

// Events read in one page of a run's history: each page is parsed and
// folded in a task of its own, which at 5,000 events took 40-70 ms with
// the parse and the collection of its garbage (TestE2EPerfOpen). A smaller
// first page than this did not bring the run on screen sooner.
const historyPage = 2500;

// A frame that never comes (a hidden tab pauses animation frames) must not
// hold events for ever: they are applied after this long at the latest.
const batchMaxDelayMs = 250;

export function startSync(api: Api, store: AppStore, opts: SocketOptions = {}): Sync {
  const { frameBatching = false, pageHistory = false, prepare: reads = [], ...socketOpts } = opts;
  const state = () => store.getState();

  let queue: Event[] = [];
  let frame: number | undefined;
  let late: ReturnType<typeof setTimeout> | undefined;
  function flush(): void {
    if (frame !== undefined) cancelAnimationFrame(frame);
    clearTimeout(late);
    frame = late = undefined;
    if (queue.length === 0) return;
    const events = queue;
    queue = [];
    state().applyEvents(events);
  }
  function enqueue(e: Event): void {
    if (!frameBatching) {
      state().applyEvent(e);
      return;
    }
    queue.push(e);
    if (late !== undefined) return;
    frame = requestAnimationFrame(flush);
    late = setTimeout(flush, batchMaxDelayMs);
  }

  function report(err: unknown): void {
    // A 401 has already switched the UI to the signed-out page.
    if (isApiError(err, "unauthorized")) return;
    state().setLoadError(err instanceof Error ? err.message : String(err));
  }

  async function refreshLists(): Promise<void> {
    try {
      // As many runs as the pages loaded hold (RunList loads more as it
      // scrolls), so a refresh neither drops them nor leaves them stale.
      const limit = refreshLimit(state().runs.length);
      const [body, inbox] = await Promise.all([api.runsPage(limit ? { limit } : {}), api.interactions({ status: "pending" })]);
      const page = pageOf(body);
      state().setLists(page.runs, inbox, page);
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
  function scheduleRefresh(runId: string | undefined): void {
    if (runId) dirty.add(runId);
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
    onEvent: enqueue,
    // Back to live once the followed run has caught up (or, with no run
    // followed, the run list's subscription has).
    onCaughtUp: (runId) => {
      if (followed && runId !== followed) return;
      flush();
      state().setCaughtUp();
    },
    // A run.status carries the run's capabilities, which the reducer folds
    // from the run's own stream: the run is not fetched again for it, only
    // the lists are. Its other run-level events (an approval asked or
    // answered, a fork) change what only the REST copy holds.
    onRunLevel: (e) => scheduleRefresh(e.type === "run.status" ? undefined : e.run_id),
    // The all-runs subscription does not replay: read the lists after each connect.
    onOpen: () => void refreshLists(),
    onStatus: (s) => state().setConnection(s),
  });

  // Follow the selected run: subscribe from the last seq the reducer applied,
  // so a run seen before resumes where it stopped.
  let followed: string | undefined;
  function follow(runId: string | undefined): void {
    if (runId === followed) return;
    flush(); // so that lastSeq below counts every event received
    if (followed) socket.unsubscribeRun(followed);
    followed = runId;
    if (!runId) return;
    if (!pageHistory) {
      void refreshRun(runId);
      socket.subscribeRun(runId, state().stream.runs[runId]?.lastSeq ?? 0);
      return;
    }
    // In a task after the selection's: the run's view mounts in that one,
    // and the requests started with it (5-12 ms) made it a long task.
    void nextTask().then(() => {
      if (followed !== runId) return;
      void refreshRun(runId);
      void readHistory(runId);
    });
  }

  // readHistory reads a run's events page by page, then subscribes from the
  // last one; it stops when another run is followed. The next page is asked
  // for while this one is folded, and each page is folded as it arrives
  // (one short task a page, while the next is on the wire) as historyFold
  // says; the store is updated in a task after the fold's. Nothing else feeds the run meanwhile (it is subscribed to after).
  // A failed read leaves the rest to the socket's replay.
  async function readHistory(runId: string): Promise<void> {
    if (!state().stream.runs[runId]) await readTail(runId);
    if (followed !== runId) return;
    const fold = historyFold(store, runId, { beforeCommit: flush });
    let after = fold.lastSeq();
    try {
      let next = api.events(runId, after, historyPage);
      for (;;) {
        const page = await next;
        if (followed !== runId) return;
        const more = page.more && page.events.length > 0;
        after = Math.max(after, page.next_after);
        if (more) next = api.events(runId, after, historyPage);
        fold.add(page.events);
        if (!more) break;
        if (fold.isDue()) {
          await prepare(fold.transcript());
          await nextTask();
          if (followed !== runId) return;
          fold.commit();
        }
      }
      await prepare(fold.transcript());
      await nextTask();
    } catch (err) {
      if (followed !== runId) return;
      fold.commit();
      report(err);
    }
    if (followed !== runId) return;
    fold.commit();
    socket.subscribeRun(runId, state().stream.runs[runId]?.lastSeq ?? after);
  }

  // readTail puts a long run's end in the store, as its own transcript
  // (tailFrom): the latest turns and the running node are on screen in
  // one page's time, where the whole history takes a second or more to
  // read (a 100,000-event run: 40 pages). Its nodes that started before
  // the page are not in it. Whatever goes wrong leaves it to the whole
  // read, which says what did.
  async function readTail(runId: string): Promise<void> {
    try {
      const last: unknown = selectRun(state(), runId)?.last_seq ?? (await api.run(runId)).last_seq;
      if (followed !== runId || typeof last !== "number" || !(last > tailAfter)) return;
      const from = last - historyPage;
      const page = await api.events(runId, from, historyPage);
      if (followed !== runId || state().stream.runs[runId]) return;
      const t = new RunFold({ ...emptyTranscript(runId), tailFrom: from }).add(page.events).transcript;
      await prepare(t);
      if (followed !== runId) return;
      state().setTranscript(t);
      await nextTask();
    } catch {
      return;
    }
  }

  // prepare runs the views' reads of t, each in a task of its own.
  async function prepare(t: RunTranscript): Promise<void> {
    for (const read of reads) {
      await nextTask();
      read(t);
    }
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
      flush();
      socket.stop();
    },
  };
}
