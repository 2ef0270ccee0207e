import "./runs.css";
import type { Run } from "../../api/types";
import { useApp } from "../../store/context";
import { age } from "../../ui/format";
import { StatusBadge } from "../../ui/StatusBadge";
import { useNow } from "../../ui/useNow";

// RunList lists the runs, newest first; a click selects one.
export function RunList() {
  const runs = useApp((s) => s.runs);
  const selected = useApp((s) => s.selectedRunId);
  const select = useApp((s) => s.select);
  const now = useNow(15_000);

  return (
    <nav aria-label="Runs" className="run-list">
      <h2>Runs</h2>
      {runs.length === 0 ? (
        <p className="empty">No runs yet.</p>
      ) : (
        <ul>
          {runs.map((r) => (
            <li key={r.id}>
              <RunItem run={r} selected={r.id === selected} now={now} onSelect={select} />
            </li>
          ))}
        </ul>
      )}
    </nav>
  );
}

type ItemProps = { run: Run; selected: boolean; now: number; onSelect: (id: string) => void };

// A paused run waits for a person as much as an approval does: its item is
// marked and says why it paused.
function RunItem({ run, selected, now, onSelect }: ItemProps) {
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
      {paused && <span className="run-paused-reason">Paused: {run.reason || "waiting to continue"}</span>}
      {run.forked_from && <span className="run-fork-of">fork of {run.forked_from}</span>}
    </button>
  );
}
