import { pretty } from "../../ui/format";
import { can, interrupted, title, type LiveRun } from "./liveRun";
import { RaiseBudget } from "./RaiseBudget";
import type { SendCommand } from "./useCommand";

type Props = { live: LiveRun; send: SendCommand; busy: boolean };

// PausedBanner says that a run is paused (or pausing), why, and what it does
// next; for a tool call interrupted by a crash it offers Retry call and Skip
// call, since only a person can tell whether running it again is safe.
export function PausedBanner({ live, send, busy }: Props) {
  if (live.status === "pausing") {
    return (
      <section className="run-banner banner-pausing" aria-label="Pausing">
        <strong>Pausing:</strong> the run stops before its next model or tool call.
      </section>
    );
  }
  if (live.status !== "paused") return null;
  const next = live.next;
  const stuck = interrupted(live);
  return (
    <section className={`run-banner banner-paused${stuck ? " is-interrupted" : ""}`} aria-label="Paused">
      <div className="banner-title">
        <span className="pause-icon" aria-hidden="true" />
        <strong>Paused: {live.reason || "no reason given"}</strong>
      </div>
      {next?.kind === "model" && <div className="banner-next">Next: model call</div>}
      {next?.kind === "tool" && (
        <>
          <div className="banner-next">
            Next: <code className="next-tool">{next.tool}</code>
            {next.node_id && <span className="muted"> ({next.node_id})</span>}
          </div>
          {next.arguments !== undefined && <pre className="json next-args">{pretty(next.arguments)}</pre>}
        </>
      )}
      {next?.limits && (
        <div className="banner-actions">
          <RaiseBudget
            limits={next.limits}
            disabled={busy || !can(live, "continue")}
            title="Say the new limits of this run's budgets, then continue"
            onRaise={(limits) => send("continue", { limits })}
          />
        </div>
      )}
      {stuck && (
        <div className="banner-interrupted">
          <p>
            This call started before Steward stopped, and whether it ran is unknown. Check its effect, then retry
            it or skip it.
          </p>
          <div className="banner-actions">
            <button
              type="button"
              className="primary"
              disabled={busy || !can(live, "retry")}
              title={title("retry", live)}
              onClick={() => void send("retry", { node_id: next?.node_id })}
            >
              Retry call
            </button>
            <button
              type="button"
              disabled={busy || !can(live, "skip")}
              title={title("skip", live)}
              onClick={() => void send("skip", { node_id: next?.node_id })}
            >
              Skip call
            </button>
          </div>
        </div>
      )}
    </section>
  );
}
