// The application store: what the REST API answered (info, agents, the run
// list, the inbox) plus the state built by the reducer from the event stream.
// Components read it through selectors (useApp in src/app/services.tsx).

import { createStore, type StoreApi } from "zustand/vanilla";
import type { Agent, Event, Info, Interaction, Run } from "../api/types";
import type { SocketStatus } from "../api/ws";
import { emptyStream, reduce, reduceBatch, type RunTranscript, type StreamState } from "./reducer";
import { appended, refreshed, type RunPage } from "./runPages";

export type AppState = {
  info?: Info;
  agents: Agent[];
  runs: Run[]; // newest first, as GET /runs answers: the pages loaded so far
  runsNext?: string; // the cursor of the run list's next page; unset at its end
  runDetail: Record<string, Run>; // GET /runs/{id} of runs that were selected
  inbox: Interaction[]; // pending approvals and questions of all runs, newest first
  // Set by the first answer of the lists: what the inbox held before it
  // was known is history, not news (notifications go by this).
  listsLoaded: boolean;
  selectedRunId?: string;
  // What the main area shows: the selected run, the agents, or a section
  // of the settings.
  page: Page;
  // Where the selected run's view looks; reset (but for the pane) when
  // another run is selected.
  runView: RunFocus;
  stream: StreamState;
  connection: SocketStatus;
  // Set when the live connection dropped; cleared once it is back and the
  // followed run's missed events have been replayed (caught up).
  reconnecting: boolean;
  unauthorized: boolean;
  loadError?: string;
};

// providers, prices and grants are the sections of the settings page.
export type Page = "run" | "agents" | "usage" | "providers" | "prices" | "mcp" | "grants";

// Pane is what the run view shows: its transcript, its graph, both side by
// side, its timeline, or the files it changed.
export type Pane = "transcript" | "graph" | "both" | "timeline" | "files";

// RunFocus is held in the store, not in the views, because one view points
// into another: a transcript card opens a file in the Files tab, a change
// there selects its node in the graph.
export type RunFocus = {
  pane?: Pane; // unset: the person's saved layout
  file?: string; // the file selected in the Files tab
  node?: string; // the node selected in the graph
};

export type AppActions = {
  applyEvent: (e: Event) => void;
  applyEvents: (events: Event[]) => void; // a burst, in one update
  // A run's transcript folded elsewhere (its history, read in pages) from
  // the one held: kept unless the one held has seen more (or as much, but
  // for a run's end, which its whole history replaces).
  setTranscript: (t: RunTranscript) => void;
  select: (runId: string | undefined) => void; // also shows the run page
  showPage: (page: Page) => void;
  showPane: (pane: Pane) => void;
  selectFile: (path: string) => void;
  showFile: (path: string) => void; // the Files tab, on that file
  selectNode: (nodeId: string | undefined) => void;
  showNode: (nodeId: string) => void; // the graph, on that node
  // page, when given, is the first page of the run list: it replaces the
  // runs it covers and keeps those loaded after it (see runPages.ts).
  setLists: (runs: Run[], inbox: Interaction[], page?: RunPage) => void;
  appendRuns: (cursor: string, page: RunPage) => void; // the page after cursor
  setRun: (run: Run) => void; // a fresh copy of a run, by id
  addRun: (run: Run) => void; // a run just started: first in the list
  setStatic: (info: Info, agents: Agent[]) => void;
  setConnection: (c: SocketStatus) => void;
  setCaughtUp: () => void;
  setUnauthorized: () => void;
  setLoadError: (msg: string | undefined) => void;
};

export type AppStore = StoreApi<AppState & AppActions>;

export function createAppStore(initial: Partial<AppState> = {}): AppStore {
  return createStore<AppState & AppActions>()((set) => ({
    agents: [],
    runs: [],
    runDetail: {},
    inbox: [],
    listsLoaded: false,
    page: "run",
    runView: {},
    stream: emptyStream,
    connection: "connecting",
    reconnecting: false,
    unauthorized: false,
    ...initial,

    applyEvent: (e) => set((s) => ({ stream: reduce(s.stream, e) })),
    applyEvents: (events) => set((s) => ({ stream: reduceBatch(s.stream, events) })),
    setTranscript: (t) =>
      set((s) => {
        const held = s.stream.runs[t.runId];
        // A run's end shown first gives way to its whole history as far.
        const wider = held?.tailFrom !== undefined && t.tailFrom === undefined;
        if (held && (wider ? held.lastSeq > t.lastSeq : held.lastSeq >= t.lastSeq)) return {};
        return { stream: { runs: { ...s.stream.runs, [t.runId]: t } } };
      }),
    select: (runId) =>
      set((s) => ({
        selectedRunId: runId,
        page: "run",
        runView: runId === s.selectedRunId ? s.runView : { pane: s.runView.pane },
      })),
    showPage: (page) => set({ page }),
    showPane: (pane) => set((s) => ({ runView: { ...s.runView, pane } })),
    selectFile: (file) => set((s) => ({ runView: { ...s.runView, file } })),
    showFile: (file) => set((s) => ({ runView: { ...s.runView, pane: "files", file } })),
    selectNode: (node) => set((s) => ({ runView: { ...s.runView, node } })),
    // From the Files tab, a node is shown in the graph;
    // a pane that already has the graph stays as it is.
    showNode: (node) =>
      set((s) => {
        const pane = s.runView.pane === "both" || s.runView.pane === "graph" ? s.runView.pane : "graph";
        return { runView: { ...s.runView, pane, node } };
      }),
    setLists: (runs, inbox, page) =>
      set((s) => ({
        ...(page ? refreshed(s, page) : { runs, runsNext: undefined }),
        inbox,
        listsLoaded: true,
        loadError: undefined,
      })),
    appendRuns: (cursor, page) => set((s) => appended(s, cursor, page)),
    // Answers to concurrent fetches can arrive out of order: a copy that saw
    // fewer events than the one held is dropped.
    setRun: (run) =>
      set((s) => {
        const held = s.runDetail[run.id];
        if (held && held.last_seq > run.last_seq) return {};
        return {
          runDetail: { ...s.runDetail, [run.id]: run },
          runs: s.runs.map((r) => (r.id === run.id && r.updated_at <= run.updated_at ? run : r)),
        };
      }),
    addRun: (run) =>
      set((s) => ({
        runDetail: { ...s.runDetail, [run.id]: run },
        runs: [run, ...s.runs.filter((r) => r.id !== run.id)],
      })),
    setStatic: (info, agents) => set({ info, agents }),
    setConnection: (connection) => set((s) => ({ connection, reconnecting: s.reconnecting || connection === "closed" })),
    setCaughtUp: () => set({ reconnecting: false }),
    setUnauthorized: () => set({ unauthorized: true }),
    setLoadError: (loadError) => set({ loadError }),
  }));
}

// selectRun is the freshest copy of a run the REST API gave: the list's or
// the one fetched by id.
export function selectRun(s: AppState, id: string | undefined): Run | undefined {
  if (!id) return undefined;
  const a = s.runs.find((r) => r.id === id);
  const b = s.runDetail[id];
  if (!a) return b;
  if (!b) return a;
  return b.updated_at > a.updated_at || b.last_seq > a.last_seq ? b : a;
}
