import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { useShallow } from "zustand/react/shallow";
import { useApp } from "../../store/context";
import { terminalStatuses } from "../../store/status";
import { pendingElicitation } from "../../store/elicitationFold";
import { selectRun } from "../../store/store";
import type { NodeKind } from "../../api/types";
import { orderGrows, type RunTranscript, type ToolNode } from "../../store/reducer";
import { DivergenceRow } from "../exchange/ReplayNotice";
import { ServerNotesRow } from "./ServerNotes";
import { PaneHeader } from "../../ui/PaneHeader";
import { VirtualList, type VirtualListHandle } from "../../ui/VirtualList";
import { CardStateContext, type CardState } from "./cardState";
import { ForkHistory } from "./ForkHistory";
import { SearchQuery } from "./Highlight";
import { AgentLine, LlmMessage, UserMessage, UserNodeMessage } from "./Messages";
import { searchTranscript } from "./search";
import { ToolCard } from "./ToolCard";

// focusSearchEvent asks the transcript to focus its search box (the /
// shortcut); a window event, so that the shortcuts need no reference to it.
export const focusSearchEvent = "steward:focus-search";

// Entry is one row of the transcript: what came before the nodes (the
// instructions, or a fork's history), a node, what became of the MCP
// servers a call reached (after its node: "" before the first node), where
// a replay diverged from its recording, or how the run ended.
type Entry =
  | { key: string; kind: "head" }
  | { key: string; kind: "tail" }
  | { key: string; kind: "foot" }
  | { key: string; kind: "diverged" }
  | { key: string; kind: "servers"; after: string }
  | { key: string; kind: "node"; id: string };

// Estimated heights by kind of row, until a row is measured.
const estimates: Record<string, number> = { head: 64, tail: 48, foot: 48, diverged: 40, servers: 32, user: 76, llm: 120, tool: 150, agent: 52 };

// Transcript shows a run's nodes in the order they started, then how the run
// ended: virtualised, following the end while it streams unless the person
// scrolled up, with a search that marks, counts and steps through matches.
export function Transcript({ runId }: { runId: string }) {
  // Deferred: rows that arrive (a page of history, a small run whole) are
  // drawn in a render React can split between them, not in the task that
  // brought them. A streamed delta changes no order, so it is not delayed.
  const order = useDeferredValue(useApp((s) => s.stream.runs[runId]?.nodeOrder));
  const { kindOf, hasUser } = useApp((s) => kindsOf(s.stream.runs[runId]));
  const instructions = useApp((s) => s.stream.runs[runId]?.instructions ?? selectRun(s, runId)?.instructions);
  const forked = useApp((s) => !!s.stream.runs[runId]?.forkedFrom);
  // Only the run's end is in yet (sync.ts readTail): its start is not.
  const tail = useApp((s) => s.stream.runs[runId]?.tailFrom !== undefined);
  // Where a replay diverged: "" before the first node, undefined while it has not.
  const divergedAfter = useApp((s) => {
    const d = s.stream.runs[runId]?.diverged;
    return d ? (d.afterNode ?? "") : undefined;
  });
  // The nodes after which a line says what became of an MCP server.
  const serversAfter = useApp(useShallow((s) => [...new Set((s.stream.runs[runId]?.servers ?? []).map((n) => n.afterNode ?? ""))]));

  const [query, setQuery] = useState("");
  const [onlyMatches, setOnlyMatches] = useState(false);
  const searching = query.trim() !== "";
  // The whole run only while searching: matches follow the stream.
  const searched = useApp((s) => (searching ? s.stream.runs[runId] : undefined));
  const hits = useMemo(() => searchTranscript(searched, query), [searched, query]);
  const hitSet = useMemo(() => new Set(hits), [hits]);
  const [current, setCurrent] = useState(0);
  const currentId = hits.length ? hits[Math.min(current, hits.length - 1)] : undefined;

  const head = forked || (!hasUser && !!instructions);
  const entries = useMemo(() => {
    const out: Entry[] = [];
    const filter = onlyMatches && searching;
    const diverged: Entry = { key: "diverged", kind: "diverged" };
    if (tail && !filter) out.push({ key: "tail", kind: "tail" });
    else if (head && !filter) out.push({ key: "head", kind: "head" });
    const servers = new Set(filter ? [] : serversAfter);
    const notes = (after: string) => {
      if (servers.has(after)) out.push({ key: `servers:${after}`, kind: "servers", after });
    };
    notes("");
    if (divergedAfter === "" && !filter) out.push(diverged);
    for (const id of order ?? []) {
      if (!filter || hitSet.has(id)) out.push({ key: id, kind: "node", id });
      notes(id);
      if (id === divergedAfter && !filter) out.push(diverged);
    }
    if (!filter) out.push({ key: "foot", kind: "foot" });
    return out;
  }, [order, head, tail, onlyMatches, searching, hitSet, divergedAfter, serversAfter]);
  const entryIndex = useMemo(() => new Map(entries.map((e, i) => [e.key, i])), [entries]);

  const list = useRef<VirtualListHandle>(null);
  const [following, setFollowing] = useState(true);
  const searchBox = useRef<HTMLInputElement>(null);

  const goTo = useCallback(
    (i: number) => {
      if (hits.length === 0) return;
      const k = ((i % hits.length) + hits.length) % hits.length;
      setCurrent(k);
      const at = entryIndex.get(hits[k]!);
      if (at !== undefined) list.current?.scrollToIndex(at);
    },
    [hits, entryIndex],
  );

  // A new query shows its first match.
  const lastQuery = useRef("");
  useEffect(() => {
    if (query === lastQuery.current) return;
    lastQuery.current = query;
    setCurrent(0);
    if (hits.length > 0) {
      const at = entryIndex.get(hits[0]!);
      if (at !== undefined) list.current?.scrollToIndex(at);
    }
  }, [query, hits, entryIndex]);

  // The / shortcut, from anywhere on the page.
  useEffect(() => {
    const focus = () => {
      searchBox.current?.focus();
      searchBox.current?.select();
    };
    window.addEventListener(focusSearchEvent, focus);
    return () => window.removeEventListener(focusSearchEvent, focus);
  }, []);

  // Which cards a person opened or closed, kept while they scroll out.
  const [cardChoices, setCardChoices] = useState<ReadonlyMap<string, boolean>>(new Map());
  const cardState = useMemo<CardState>(
    () => ({
      choice: (id) => cardChoices.get(id),
      setOpen: (id, open) => setCardChoices((m) => new Map(m).set(id, open)),
      current: currentId,
    }),
    [cardChoices, currentId],
  );

  const renderItem = useCallback(
    (i: number) => {
      const e = entries[i]!;
      if (e.kind === "head") return forked ? <ForkHistory runId={runId} /> : <UserMessage text={instructions ?? ""} />;
      if (e.kind === "tail") return <TailNotice runId={runId} />;
      if (e.kind === "foot") return <Outcome runId={runId} />;
      if (e.kind === "diverged") return <DivergenceRow runId={runId} />;
      if (e.kind === "servers") return <ServerNotesRow runId={runId} after={e.after} />;
      const cls = e.id === currentId ? "t-row search-hit search-current" : hitSet.has(e.id) ? "t-row search-hit" : "t-row";
      return <div className={cls}>{card(kindOf.get(e.id), runId, e.id)}</div>;
    },
    [entries, forked, runId, instructions, currentId, hitSet, kindOf],
  );
  const itemKey = useCallback((i: number) => entries[i]!.key, [entries]);
  const estimate = useCallback(
    (i: number) => {
      const e = entries[i]!;
      return estimates[e.kind === "node" ? (kindOf.get(e.id) ?? "agent") : e.kind] ?? 100;
    },
    [entries, kindOf],
  );

  // Ctrl+F (Cmd+F) while the transcript has the focus searches it.
  function onKeyDown(e: KeyboardEvent<HTMLElement>) {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "f") {
      e.preventDefault();
      searchBox.current?.focus();
      searchBox.current?.select();
    }
  }

  function onSearchKey(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key === "Enter") {
      e.preventDefault();
      goTo(current + (e.shiftKey ? -1 : 1));
    } else if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      if (query) setQuery("");
      else searchBox.current?.blur();
    }
  }

  return (
    // data-history says, out of the rows drawn, whether the whole run is in.
    <section aria-label="Transcript" className="transcript-pane pane" onKeyDown={onKeyDown} data-history={tail ? "tail" : "whole"}>
      <PaneHeader pane="transcript">
        <div className="t-search" role="search">
          <input
            ref={searchBox}
            type="search"
            data-testid="transcript-search"
            aria-label="Search the transcript"
            placeholder="Search (/ or Ctrl+F)"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={onSearchKey}
          />
          {searching && (
            <>
              <span className="search-count" data-testid="search-count" aria-live="polite">
                {hits.length === 0 ? "no matches" : `${Math.min(current, hits.length - 1) + 1} of ${hits.length}`}
              </span>
              <button type="button" className="search-step" aria-label="Previous match" title="Previous match (Shift+Enter)" disabled={hits.length === 0} onClick={() => goTo(current - 1)}>
                ↑
              </button>
              <button type="button" className="search-step" aria-label="Next match" title="Next match (Enter)" disabled={hits.length === 0} onClick={() => goTo(current + 1)}>
                ↓
              </button>
              <label className="search-only" title="Show only the cards that match">
                <input type="checkbox" checked={onlyMatches} onChange={(e) => setOnlyMatches(e.target.checked)} />
                Only matches
              </label>
            </>
          )}
        </div>
        <span className="spacer" />
        {!following && (
          <button
            type="button"
            className="jump-latest"
            data-testid="jump-latest"
            title="Scroll to the end and follow the run again"
            onClick={() => list.current?.scrollToEnd()}
          >
            Jump to latest ↓
          </button>
        )}
      </PaneHeader>
      <SearchQuery.Provider value={query}>
        <CardStateContext.Provider value={cardState}>
          <VirtualList
            apiRef={list}
            className="transcript"
            rowClassName="t-entry"
            aria-label="Transcript messages"
            tabIndex={0}
            count={entries.length}
            itemKey={itemKey}
            renderItem={renderItem}
            estimateSize={estimate}
            onFollowChange={setFollowing}
          />
        </CardStateContext.Provider>
      </SearchQuery.Provider>
    </section>
  );
}

function card(kind: string | undefined, runId: string, id: string) {
  switch (kind) {
    case "user":
      return <UserNodeMessage runId={runId} nodeId={id} />;
    case "llm":
      return <LlmMessage runId={runId} nodeId={id} />;
    case "tool":
      return <ToolCard runId={runId} nodeId={id} />;
    default:
      return <AgentLine runId={runId} nodeId={id} />;
  }
}

// Outcome says how the run ended, or that it waits for a person, or that
// its events are still loading.
function Outcome({ runId }: { runId: string }) {
  const status = useApp((s) => s.stream.runs[runId]?.status);
  const reason = useApp((s) => s.stream.runs[runId]?.reason);
  const error = useApp((s) => s.stream.runs[runId]?.error);
  const loaded = useApp((s) => (s.stream.runs[runId]?.lastSeq ?? 0) > 0);
  const asks = useApp((s) => {
    const t = s.stream.runs[runId];
    if (t?.status !== "waiting") return false;
    return Object.values(t.nodes).some(
      (n) => n.kind === "tool" && n.status === "waiting" && n.approval?.kind === "question" && !n.approval.decision,
    );
  });
  // A server that asks while its call runs (an MCP elicitation).
  const server = useApp((s) => {
    const t = s.stream.runs[runId];
    if (t?.status !== "waiting") return undefined;
    for (const n of Object.values(t.nodes)) {
      const x = pendingElicitation(n);
      if (x) return x.server;
    }
    return undefined;
  });
  const lastTurn = useApp(useShallow((s) => lastTurnCalls(s.stream.runs[runId])));
  if (!loaded) return <p className="muted">Loading events…</p>;
  if (!status) return null;
  if (status === "waiting") {
    const what =
      server !== undefined ? `Waiting for your input to the MCP server ${server}.` : asks ? "Waiting for an answer." : "Waiting for approval.";
    return <p className="outcome outcome-waiting">{what}</p>;
  }
  if (!terminalStatuses.has(status)) return null;
  const missed = status === "completed" && lastTurn && lastTurn.failed > 0;
  return (
    <div className={`outcome outcome-${missed ? "completed-missed" : status}`} role="status">
      <strong>Run {status}</strong>
      {reason && <span>: {reason}</span>}
      {missed && (
        <span data-testid="outcome-missed">
          {" — "}
          {lastTurn.failed === lastTurn.total
            ? lastTurn.total === 1
              ? "its last tool call"
              : `all ${lastTurn.total} of its last tool calls`
            : `${lastTurn.failed} of its last ${lastTurn.total} tool calls`}
          {" did not succeed; read what the model made of it."}
        </span>
      )}
      {error && <pre className="outcome-error">{error}</pre>}
    </div>
  );
}

type Kinds = { kindOf: ReadonlyMap<string, NodeKind>; hasUser: boolean };
const noKinds: Kinds = { kindOf: new Map(), hasUser: false };
const kindsByOrder = new WeakMap<readonly string[], Kinds>();
// TailNotice stands above a long run's end while its earlier history is
// read: what is shown is the end only.
function TailNotice({ runId }: { runId: string }) {
  const range = useApp(
    useShallow((s) => {
      const t = s.stream.runs[runId];
      return [t?.tailFrom ?? 0, t?.lastSeq ?? 0] as const;
    }),
  );
  const [from, last] = range;
  return (
    <p className="t-tail" role="status" data-testid="history-tail">
      The run's last {count(last - from)} events; reading the {count(from)} before them…
    </p>
  );
}

const count = (n: number) => n.toLocaleString("en");

// The last run's kinds, which a longer order of the same run extends.
let lastKinds: { runId: string; nodeOrder: readonly string[]; kinds: Map<string, NodeKind>; hasUser: boolean } | undefined;

// kindsOf is the kind of each of a run's nodes, and whether one is a
// person's message: a selector runs it on every change of the store, so it
// is the same object while the run's order is, and a longer order adds its
// new nodes to the map it had (a node's kind never changes, and nodeOrder
// only grows: a new array each time a node starts).
export function kindsOf(t: RunTranscript | undefined): Kinds {
  if (!t) return noKinds;
  const known = kindsByOrder.get(t.nodeOrder);
  if (known) return known;
  const order = t.nodeOrder;
  const last = lastKinds;
  const grown = last && last.runId === t.runId && orderGrows(last.nodeOrder, order) ? last : undefined;
  const kinds = grown ? grown.kinds : new Map<string, NodeKind>();
  let hasUser = grown ? grown.hasUser : false;
  let whole = true;
  for (let i = grown ? grown.nodeOrder.length : 0; i < order.length; i++) {
    const k = t.nodes[order[i]!]?.kind;
    if (k === undefined) whole = false;
    else kinds.set(order[i]!, k);
    if (k === "user") hasUser = true;
  }
  const out = { kindOf: kinds, hasUser };
  kindsByOrder.set(order, out);
  // A longer order does not extend one with a node not yet known.
  lastKinds = whole ? { runId: t.runId, nodeOrder: order, kinds, hasUser } : undefined;
  return out;
}

/**
 * lastTurnCalls counts the tool calls of a run's last turn that made any
 * (the calls of the last model call that asked for some) and those of them
 * that did not succeed: a run that ends right after failed calls is not a
 * plain success, whatever the model says.
 */
export function lastTurnCalls(t: RunTranscript | undefined): { total: number; failed: number } | undefined {
  if (!t) return undefined;
  // From the end back to the turn's model node: a turn's calls, and the
  // retries of them after a restart, all start after it. A selector runs
  // this on every change of the store, so it reads the last turn, not the
  // whole run (a 100,000-event run has 10,000 turns).
  let parent: string | undefined;
  const calls: ToolNode[] = [];
  for (let i = t.nodeOrder.length - 1; i >= 0; i--) {
    const id = t.nodeOrder[i]!;
    if (parent !== undefined && id === parent) break;
    const n = t.nodes[id];
    if (n?.kind !== "tool") continue;
    if (parent === undefined) parent = n.parent;
    if (n.parent === parent) calls.push(n);
  }
  if (parent === undefined) return undefined;
  // A call retried after a restart counts as its retry.
  const replaced = new Set(calls.flatMap((n) => (n.retryOf ? [n.retryOf] : [])));
  let total = 0;
  let failed = 0;
  for (const n of calls) {
    if (replaced.has(n.id)) continue;
    total++;
    if (n.status !== "succeeded") failed++;
  }
  return { total, failed };
}
