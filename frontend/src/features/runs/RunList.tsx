import "./runs.css";
import { useMemo, useRef, useState } from "react";
import type { Run } from "../../api/types";
import { useApp } from "../../store/context";
import { activeStatuses } from "../../store/status";
import { age } from "../../ui/format";
import { StatusBadge } from "../../ui/StatusBadge";
import { useNow } from "../../ui/useNow";
import { ImportRecording } from "../exchange/ImportRecording";
import { useMoreRuns, useSentinel } from "./useMoreRuns";

// StatusFilter is the run list's status choice.
export type StatusFilter = "all" | "active" | "attention" | "completed" | "failed";

const statusFilters: { value: StatusFilter; label: string }[] = [
  { value: "all", label: "All" },
  { value: "active", label: "Active" },
  { value: "attention", label: "Waiting on you" },
  { value: "completed", label: "Completed" },
  { value: "failed", label: "Failed/Cancelled" },
];


// matchesStatus reports whether a run belongs under a status filter.
function matchesStatus(r: Run, f: StatusFilter): boolean {
  switch (f) {
    case "all":
      return true;
    case "active":
      return activeStatuses.has(r.status);
    case "attention":
      return r.pending_approvals > 0 || r.status === "waiting";
    case "completed":
      return r.status === "completed";
    case "failed":
      return r.status === "failed" || r.status === "cancelled";
  }
}

// filterRuns keeps the runs whose instructions, agent name or id contain the
// query (case-insensitive) and that belong under the status filter.
export function filterRuns(runs: Run[], query: string, status: StatusFilter): Run[] {
  const q = query.trim().toLowerCase();
  if (!q && status === "all") return runs;
  return runs.filter(
    (r) =>
      matchesStatus(r, status) &&
      (!q || r.instructions.toLowerCase().includes(q) || r.agent_name.toLowerCase().includes(q) || r.id.toLowerCase().includes(q)),
  );
}

// RunList lists the runs, newest first, narrowed by a search and a status
// filter over the runs in the store; a click selects one. The store holds
// the pages loaded so far: the next loads when the list's end comes near
// (or by its button), so 100,000 runs cost what the person scrolls through.
export function RunList() {
  const runs = useApp((s) => s.runs);
  const selected = useApp((s) => s.selectedRunId);
  const select = useApp((s) => s.select);
  const now = useNow(5_000); // the ages tick
  const [query, setQuery] = useState("");
  const [status, setStatus] = useState<StatusFilter>("all");
  const shown = useMemo(() => filterRuns(runs, query, status), [runs, query, status]);
  const ids = useMemo(() => new Set(runs.map((r) => r.id)), [runs]);
  const { more, loading, loadMore } = useMoreRuns();
  const navRef = useRef<HTMLElement>(null);
  const endRef = useRef<HTMLDivElement>(null);
  // While a search or a status filter narrows the loaded runs, more load by
  // the button only: a filter that matches none of them would otherwise
  // load page after page, up to the whole list.
  const filtering = query.trim() !== "" || status !== "all";
  useSentinel(navRef, endRef, loadMore, `${runs.length} ${loading} ${more} ${filtering}`, !filtering);
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
            placeholder="Search runs"
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
      {runs.length === 0 ? (
        <p className="empty">No runs yet.</p>
      ) : shown.length === 0 ? (
        <div className="empty run-list-no-match">
          <p>No run matches</p>
          <button type="button" className="link" onClick={clear}>
            Clear filters
          </button>
        </div>
      ) : (
        <ul>
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
