import "./plan.css";
import type { PlanStepStatus } from "../../api/types";
import { useApp } from "../../store/context";

const marks: Record<PlanStepStatus, { mark: string; label: string }> = {
  pending: { mark: "○", label: "pending" },
  in_progress: { mark: "◐", label: "in progress" },
  done: { mark: "✓", label: "done" },
};

// PlanPanel shows the plan the agent keeps with update_plan: the steps of
// the run's latest run.plan, each marked pending, in progress or done.
// A run without a plan (or with an empty one) shows nothing.
export function PlanPanel({ runId }: { runId: string }) {
  const plan = useApp((s) => s.stream.runs[runId]?.plan);
  if (!plan || plan.steps.length === 0) return null;
  const done = plan.steps.filter((st) => st.status === "done").length;
  return (
    <section className="plan-panel" aria-label="Plan" data-testid="plan-panel" data-node-id={plan.nodeId}>
      <h2>
        Plan{" "}
        <span className="plan-progress">
          {done} of {plan.steps.length} done
        </span>
      </h2>
      <ol>
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
      </ol>
    </section>
  );
}
