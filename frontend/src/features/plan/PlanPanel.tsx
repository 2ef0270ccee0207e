import "./plan.css";
import type { PlanStepStatus } from "../../api/types";
import { useState } from "react";
import { useApp } from "../../store/context";

const openKey = "steward.plan.open";

// savedOpen is the person's last choice; the plan starts folded, one line
// that says the step in progress.
function savedOpen(): boolean {
  try {
    return localStorage.getItem(openKey) === "1";
  } catch {
    return false;
  }
}

const marks: Record<PlanStepStatus, { mark: string; label: string }> = {
  pending: { mark: "○", label: "pending" },
  in_progress: { mark: "◐", label: "in progress" },
  done: { mark: "✓", label: "done" },
};

// PlanPanel shows the plan the agent keeps with update_plan: the steps of
// the run's latest run.plan, each marked pending, in progress or done.
// A run without a plan (or with an empty one) shows nothing.
// Folded, it is one line: the progress and the step in progress; the
// person's choice holds for every run.
export function PlanPanel({ runId }: { runId: string }) {
  const plan = useApp((s) => s.stream.runs[runId]?.plan);
  const [open, setOpen] = useState(savedOpen);
  if (!plan || plan.steps.length === 0) return null;
  const done = plan.steps.filter((st) => st.status === "done").length;
  const now = plan.steps.find((st) => st.status === "in_progress");
  function toggle() {
    setOpen(!open);
    try {
      localStorage.setItem(openKey, open ? "0" : "1");
    } catch {
      // storage refused: the choice holds for this page only
    }
  }
  return (
    <section className={`plan-panel${open ? "" : " folded"}`} aria-label="Plan" data-testid="plan-panel" data-node-id={plan.nodeId}>
      <h2>
        <button type="button" className="plan-toggle" aria-expanded={open} data-testid="plan-toggle" onClick={toggle} title={open ? "Fold the plan" : "Show every step"}>
          <span aria-hidden="true">{open ? "▾" : "▸"}</span> Plan
        </button>{" "}
        <span className="plan-progress">
          {done} of {plan.steps.length} done
        </span>
        {!open && now && (
          <span className="plan-now" title={now.title}>
            {" "}
            · now: {now.title}
          </span>
        )}
      </h2>
      {open && <ol>
        {plan.steps.map((st, i) => {
          const m = marks[st.status] ?? { mark: "?", label: st.status };
          return (
            <li key={i} className={`plan-step plan-step-${st.status}`} data-testid="plan-step" data-status={st.status}>
              <span className="plan-mark" role="img" aria-label={m.label} title={m.label}>
                {m.mark}
              </span>
              <span className="plan-title">{st.title}</span>
            </li>
          );
        })}
      </ol>}
    </section>
  );
}
