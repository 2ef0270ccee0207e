import { surface } from "../../api/surface";
import "./inbox.css";
import { useState } from "react";
import type { Interaction } from "../../api/types";
import { useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";
import { ApprovalCard, type GroupOutcome } from "./ApprovalCard";
import { answerError } from "./useAnswer";

// compact shows the box's head alone: its cards are in the run's
// transcript, shown beside it (the inbox's line for the run on view).
type Props = { size: number; group: string; items: Interaction[]; compact?: boolean };

// ApprovalGroup is the box of the parallel calls one model turn asked for:
// approve or deny them all in one request (each is still answered on its
// own, so one refused call does not hold back the others), or decide each
// call on its card.
export function ApprovalGroup({ size, group, items, compact = false }: Props) {
  const { api, refreshLists } = useServices();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [outcomes, setOutcomes] = useState<Record<string, GroupOutcome>>({});

  const open = items.filter((ia) => !outcomes[ia.id]?.decision);

  async function decideAll(decision: "approve" | "deny") {
    if (open.length === 0) return;
    setBusy(true);
    setError(undefined);
    try {
      const results = await api.answerMany(open.map((ia) => ({ id: ia.id, decision, source: surface })));
      const next: Record<string, GroupOutcome> = { ...outcomes };
      for (const r of results) {
        next[r.id] = r.error ? { error: answerError(r.error.code, r.error.message) } : { decision };
      }
      setOutcomes(next);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
      void refreshLists();
    }
  }

  const waiting = items.length < size ? `, ${items.length} waiting` : "";
  return (
    <div className={`approval-group${compact ? " compact" : ""}`} role="group" aria-label={`${size} parallel calls`} data-testid="approval-group" data-group={group}>
      <div className="approval-group-head">
        <strong>
          {size} parallel calls from this turn{waiting}
        </strong>
        <span className="spacer" />
        <button type="button" className="approve" data-testid="approve-all" disabled={busy || open.length === 0} onClick={() => void decideAll("approve")}>
          Approve all
        </button>
        <button type="button" className="deny" data-testid="deny-all" disabled={busy || open.length === 0} onClick={() => void decideAll("deny")}>
          Deny all
        </button>
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {compact &&
        items.map((ia) =>
          outcomes[ia.id]?.error ? (
            <p key={ia.id} className="form-error" role="alert">
              {ia.tool}: {outcomes[ia.id]!.error}
            </p>
          ) : null,
        )}
      {!compact && items.map((ia) => (
        <ApprovalCard
          key={ia.id}
          interactionId={ia.id}
          runId={ia.run_id}
          preview={ia.preview}
          schema={ia.schema}
          tool={ia.tool}
          risk={ia.risk}
          arguments={ia.arguments}
          reason={ia.reason}
          expiresAt={ia.expires_at || undefined}
          defaultDecision={ia.default_decision}
          groupOutcome={outcomes[ia.id]}
        />
      ))}
    </div>
  );
}
