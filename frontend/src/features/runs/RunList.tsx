import "./runs.css";
import { useMemo, useRef, useState } from "react";
import type { Run } from "../../api/types";
import { useApp } from "../../store/context";
import { age } from "../../ui/format";
import { StatusBadge } from "../../ui/StatusBadge";
import { useNow } from "../../ui/useNow";
import { ImportRecording } from "../exchange/ImportRecording";
import { statusFilters, type StatusFilter } from "./runSearch";
import { useMoreRuns, useSentinel } from "./useMoreRuns";
import { useRunSearch } from "./useRunSearch";

// RunList lists the runs, newest first; a click selects one. Unfiltered,
// it shows the pages the store holds: the next loads when the list's end
// comes near (or by its button), so 100,000 runs cost what the person
// scrolls through. A search or a status filter is answered by the server
// (useRunSearch), in pages the same way; the store's pages stay, so that
// clearing the box shows them at once.
export function RunList() {
  const runs = useApp((s) => s.runs);
  const selected = useApp((s) => s.selectedRunId);
  const select = useApp((s) => s.select);
  const now = useNow(5_000); // the ages tick
  const [query, setQuery] = useState("");
  const [status, setStatus] = useState<StatusFilter>("all");
  const search = useRunSearch(query, status);
  const all = useMoreRuns();
  const shown = search.active ? search.runs : runs;
  const ids = useMemo(() => new Set([...runs, ...search.runs].map((r) => r.id)), [runs, search.runs]);
  const more = search.active ? search.more : all.more;
  const loading = search.active ? search.loadingMore : all.loading;
  const loadMore = search.active ? search.loadMore : all.loadMore;
  const navRef = useRef<HTMLElement>(null);
  const endRef = useRef<HTMLDivElement>(null);
  useSentinel(navRef, endRef, loadMore, `${shown.length} ${loading} ${more} ${search.active}`);
  const clear = () => {
    setQuery("");
    setStatus("all");
  };

  return (
    <nav aria-label="Runs" className="run-list" ref={navRef}>
      <h2>Runs</h2>
      <ImportRecording />
      {runs.length > 0 && (
        <div className="run-filters">
          <input
            type="search"
            aria-label="Search runs"
            // The server searches the runs' instructions; the box is too
            // narrow to say so in its placeholder, so its tooltip does.
            placeholder="Search runs"
            title="Search the runs' instructions"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
          <select aria-label="Filter runs by status" value={status} onChange={(e) => setStatus(e.target.value as StatusFilter)}>
            {statusFilters.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </div>
      )}
      {search.active && search.error && (
        <div className="empty run-list-error" role="alert">
          <p>Search failed: {search.error}</p>
          <button type="button" className="link" onClick={search.retry}>
            Try again
          </button>
        </div>
      )}
      {search.active && search.loading && !search.error && (
        <p className="empty run-list-searching" role="status">
          Searching…
        </p>
      )}
      {runs.length === 0 && !search.active ? (
        <p className="empty">No runs yet.</p>
      ) : search.active && search.noMatch && !search.loading ? (
        <div className="empty run-list-no-match">
          <p>No runs match{query.trim() ? ` “${query.trim()}”` : ""}</p>
          <button type="button" className="link" onClick={clear}>
            Clear filters
          </button>
        </div>
      ) : (
        <ul className={search.active && search.stale ? "stale" : undefined} aria-busy={search.active && search.loading ? "true" : undefined}>
          {shown.map((r) => (
            <li key={r.id}>
              <RunItem run={r} selected={r.id === selected} now={now} onSelect={select} replayHere={!!r.replay_of && ids.has(r.replay_of)} />
            </li>
          ))}
        </ul>
      )}
      {more && (
        <div ref={endRef} className="run-list-more">
          <button type="button" className="link" onClick={loadMore} disabled={loading}>
            {loading ? "Loading runs…" : "More runs"}
          </button>
        </div>
      )}
    </nav>
  );
}

// replayHere: the run a replay replays is in the list (else it was recorded elsewhere).
type ItemProps = { run: Run; selected: boolean; now: number; onSelect: (id: string) => void; replayHere?: boolean };

// A paused run waits for a person as much as an approval does: its item is
// marked and says why it paused.
function RunItem({ run, selected, now, onSelect, replayHere }: ItemProps) {
  const paused = run.status === "paused";
  return (
    <button
      type="button"
      className={`run-item run-item-${run.status}${selected ? " selected" : ""}`}
      aria-label={`Run ${run.id}`}
      aria-current={selected ? "true" : undefined}
      data-run-id={run.id}
      onClick={() => onSelect(run.id)}
    >
      <span className="run-item-top">
        <StatusBadge status={run.status} />
        <span className="run-agent">{run.agent_name}</span>
        {run.pending_approvals > 0 && (
          <span className="pending-count" title="Pending approvals">
            {run.pending_approvals} pending
          </span>
        )}
        <span className="run-age" title={new Date(run.created_at).toLocaleString()}>
          {age(run.created_at, now)}
        </span>
      </span>
      <span className="run-instructions">{run.instructions}</span>
      {paused && !run.imported_from && <span className="run-paused-reason">Paused: {run.reason || "waiting to continue"}</span>}
      {run.imported_from && <span className="run-fork-of">someone else's recording (imported, of {run.imported_from})</span>}
      {run.forked_from && <span className="run-fork-of">fork of {run.forked_from}</span>}
      {run.replay_of && (
        <span className="run-fork-of" data-testid="replay-marker" title={replayHere ? `Replays run ${run.replay_of}` : "recorded elsewhere"}>
          replay of {run.replay_of}
        </span>
      )}
    </button>
  );
}
