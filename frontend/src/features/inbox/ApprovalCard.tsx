import "./inbox.css";
import { useState } from "react";
import { isApiError } from "../../api/client";
import type { Decision, GrantScope } from "../../api/types";
import { useServices } from "../../store/context";
import { errorMessage, pretty } from "../../ui/format";

export type ApprovalProps = {
  interactionId: string;
  tool: string;
  risk: string;
  arguments: unknown;
  reason?: string;
  // false on a tool card, which shows the tool and its arguments itself.
  details?: boolean;
};

// ApprovalCard asks a person to approve or deny one tool call. Deny first
// asks for a reason, which the model receives as feedback.
export function ApprovalCard({ interactionId, tool, risk, arguments: args, reason, details = true }: ApprovalProps) {
  const { api, refreshLists } = useServices();
  const [denying, setDenying] = useState(false);
  const [feedback, setFeedback] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [sent, setSent] = useState<Decision>();

  async function answer(decision: Decision, scope?: GrantScope) {
    setBusy(true);
    setError(undefined);
    const text = feedback.trim();
    try {
      await api.answer(interactionId, {
        decision,
        ...(decision === "deny" && text ? { feedback: text } : {}),
        ...(scope ? { scope } : {}),
        source: "web",
      });
      setSent(decision);
    } catch (err) {
      setError(isApiError(err, "conflict") ? "already answered" : errorMessage(err));
    } finally {
      setBusy(false);
      void refreshLists();
    }
  }

  return (
    <div className="approval" role="group" aria-label={`Approval of ${tool}`}>
      <div className="approval-head">
        <strong>Approval needed</strong>
        {details && <span className="tool-name">{tool}</span>}
        <span className={`risk risk-${risk}`}>{risk}</span>
      </div>
      {reason && <p className="approval-reason">{reason}</p>}
      {details && <pre className="json">{pretty(args)}</pre>}
      {sent ? (
        <p className="muted">{sent === "approve" ? "Approved" : "Denied"}: waiting for the run to go on…</p>
      ) : (
        <div className="approval-actions">
          <button type="button" className="approve" disabled={busy} onClick={() => void answer("approve")}>
            Approve
          </button>
          <button type="button" className="deny" disabled={busy || denying} onClick={() => setDenying(true)}>
            Deny
          </button>
          <button
            type="button"
            className="always"
            disabled={busy}
            title="Approve, and run this same call (same tool, same path) without asking again in this run"
            onClick={() => void answer("approve", "run")}
          >
            Always in this run
          </button>
          <button
            type="button"
            className="always"
            disabled={busy}
            title="Approve, and run this same call without asking in every run of this agent"
            onClick={() => void answer("approve", "agent")}
          >
            Always for this agent
          </button>
        </div>
      )}
      {denying && !sent && (
        <div className="deny-form">
          <textarea
            aria-label="Reason"
            rows={2}
            value={feedback}
            placeholder="Why? The agent receives this as feedback."
            onChange={(e) => setFeedback(e.target.value)}
            autoFocus
          />
          <div className="approval-actions">
            <button type="button" className="deny" disabled={busy} onClick={() => void answer("deny")}>
              Confirm deny
            </button>
            <button type="button" disabled={busy} onClick={() => setDenying(false)}>
              Back
            </button>
          </div>
        </div>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
