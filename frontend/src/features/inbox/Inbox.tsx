import "./inbox.css";
import { useApp } from "../../store/context";
import { ApprovalCard } from "./ApprovalCard";

// Inbox lists the approvals waiting across all runs.
export function Inbox() {
  const inbox = useApp((s) => s.inbox);
  const runs = useApp((s) => s.runs);
  const select = useApp((s) => s.select);

  return (
    <section aria-label="Inbox" className={`inbox${inbox.length > 0 ? " has-items" : ""}`}>
      <h2>
        Inbox <span className="count">{inbox.length}</span>
      </h2>
      {inbox.length === 0 ? (
        <p className="empty">No approvals waiting.</p>
      ) : (
        <ul>
          {inbox.map((ia) => (
            <li key={ia.id} className="inbox-item">
              <div className="inbox-item-head">
                <span className="muted">{runs.find((r) => r.id === ia.run_id)?.agent_name ?? "run"}</span>
                <code>{ia.run_id}</code>
                <button type="button" className="link" aria-label={`Open run ${ia.run_id}`} onClick={() => select(ia.run_id)}>
                  Open run
                </button>
              </div>
              <ApprovalCard
                interactionId={ia.id}
                tool={ia.tool}
                risk={ia.risk}
                arguments={ia.arguments}
                reason={ia.reason}
              />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
