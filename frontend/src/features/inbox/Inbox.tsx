import "./inbox.css";
import { useMemo, useState } from "react";
import type { Interaction } from "../../api/types";
import { useApp } from "../../store/context";
import { ApprovalCard } from "./ApprovalCard";
import { ApprovalGroup } from "./ApprovalGroup";
import { ElicitationCard } from "./ElicitationCard";
import { groupInbox } from "./groups";
import { notificationPermission, requestNotificationPermission } from "./notifications";
import { QuestionCard } from "./QuestionCard";

// Inbox lists the approvals, questions and MCP servers' requests waiting
// across all runs. Nothing
// in it takes the focus by itself: it changes while a person types elsewhere.
export function Inbox() {
  const inbox = useApp((s) => s.inbox);
  const entries = useMemo(() => groupInbox(inbox), [inbox]);

  return (
    <section aria-label="Inbox" className={`inbox${inbox.length > 0 ? " has-items" : " is-empty"}`}>
      <div className="inbox-head">
        <h2>
          Inbox <span className="count">{inbox.length}</span>
        </h2>
        {/* Empty, the inbox is this one line. */}
        {inbox.length === 0 && <p className="empty">Nothing waits for you: no approval, question or server request.</p>}
        <span className="spacer" />
        <EnableNotifications />
      </div>
      {inbox.length > 0 && (
        <ul>
          {entries.map((e) => (
            <li key={e.key} className="inbox-item">
              {e.kind === "group" ? (
                <>
                  <RunLine runId={e.runId} />
                  <ApprovalGroup size={e.size} group={e.group} items={e.items} />
                </>
              ) : (
                <>
                  <RunLine runId={e.interaction.run_id} />
                  <InteractionCard ia={e.interaction} />
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function InteractionCard({ ia }: { ia: Interaction }) {
  if (ia.kind === "question") {
    const question = ia.question ?? { text: ia.reason || "The agent asks a question." };
    return <QuestionCard interactionId={ia.id} question={question} expiresAt={ia.expires_at || undefined} />;
  }
  if (ia.kind === "elicitation") {
    const q = ia.question;
    return (
      <ElicitationCard
        interactionId={ia.id}
        server={q?.server ?? ""}
        tool={ia.tool}
        message={q?.text || ia.reason}
        schema={q?.schema ?? undefined}
        url={q?.url || undefined}
        expiresAt={ia.expires_at || undefined}
      />
    );
  }
  return (
    <ApprovalCard
      interactionId={ia.id}
      runId={ia.run_id}
      preview={ia.preview}
      tool={ia.tool}
      risk={ia.risk}
      arguments={ia.arguments}
      reason={ia.reason}
      expiresAt={ia.expires_at || undefined}
      defaultDecision={ia.default_decision}
    />
  );
}

// RunLine names the run an inbox item belongs to and opens it.
function RunLine({ runId }: { runId: string }) {
  const agent = useApp((s) => s.runs.find((r) => r.id === runId)?.agent_name);
  const select = useApp((s) => s.select);
  return (
    <div className="inbox-item-head">
      <span className="muted">{agent ?? "run"}</span>
      <code>{runId}</code>
      <button type="button" className="link" aria-label={`Open run ${runId}`} onClick={() => select(runId)}>
        Open run
      </button>
    </div>
  );
}

// EnableNotifications asks for the browser's permission to notify; it shows
// only while the person has not decided (the browser asks once).
function EnableNotifications() {
  const [permission, setPermission] = useState(() => notificationPermission());
  if (permission !== "default") return null;
  return (
    <button
      type="button"
      className="link"
      data-testid="enable-notifications"
      title="Be told when a run needs you while this page is in the background"
      onClick={() => void requestNotificationPermission().then(setPermission)}
    >
      Enable notifications
    </button>
  );
}
