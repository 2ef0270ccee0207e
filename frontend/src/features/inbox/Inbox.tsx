import "./inbox.css";
import { useMemo, useState } from "react";
import type { Interaction } from "../../api/types";
import { useApp } from "../../store/context";
import { ApprovalCard } from "./ApprovalCard";
import { ApprovalGroup } from "./ApprovalGroup";
import { ElicitationCard } from "./ElicitationCard";
import { moveApprovalFocus } from "../controls/shortcuts";
import { savedLayout } from "../transcript/layoutPref";
import { groupInbox, type InboxEntry } from "./groups";
import { notificationPermission, requestNotificationPermission } from "./notifications";
import { QuestionCard } from "./QuestionCard";

// Inbox lists the approvals, questions and MCP servers' requests waiting
// across all runs. With a run on view it is one line: what waits in that
// run is answered on its transcript's cards (the line says how many, goes
// to the first, and decides a turn's parallel calls together), and what
// waits in other runs unfolds on demand, so the run keeps the room. Nothing
// in it takes the focus by itself: it changes while a person types elsewhere.
export function Inbox() {
  const inbox = useApp((s) => s.inbox);
  const onRun = useApp((s) => (s.page === "run" ? s.selectedRunId : undefined));
  const entries = useMemo(() => groupInbox(inbox), [inbox]);
  const here = entries.filter((e) => onRun && entryRun(e) === onRun);
  const others = entries.filter((e) => !onRun || entryRun(e) !== onRun);
  const hereCount = here.reduce((n, e) => n + (e.kind === "group" ? e.items.length : 1), 0);
  const othersCount = inbox.length - hereCount;
  // Unfolded by the person's choice; by default only without a run on view.
  const [chosen, setChosen] = useState<boolean>();
  const open = chosen ?? !onRun;
  const pane = useApp((s) => s.runView.pane);
  const showPane = useApp((s) => s.showPane);
  // The cards are the transcript's: shown first when another pane is.
  function goToFirst() {
    const shown = pane ?? savedLayout();
    if (shown !== "transcript" && shown !== "both") {
      showPane("both");
      requestAnimationFrame(() => moveApprovalFocus(document, 1));
      return;
    }
    moveApprovalFocus(document, 1);
  }

  return (
    <section aria-label="Inbox" className={`inbox${inbox.length > 0 ? " has-items" : " is-empty"}${open && othersCount > 0 ? " is-open" : ""}`}>
      <div className="inbox-head">
        <h2>
          Inbox <span className="count">{inbox.length}</span>
        </h2>
        {/* Empty, the inbox is this one line. */}
        {inbox.length === 0 && <p className="empty">Nothing waits for you: no approval, question or server request.</p>}
        {hereCount > 0 && (
          <span className="inbox-here" data-testid="inbox-here">
            {hereCount} waiting in this run, on its cards
            <button type="button" className="link" title="Focus the first one (j; then a, d, e)" onClick={goToFirst}>
              Go to {hereCount === 1 ? "it" : "the first"}
            </button>
          </span>
        )}
        {othersCount > 0 && (
          <button type="button" className="link inbox-toggle" aria-expanded={open} data-testid="inbox-toggle" onClick={() => setChosen(!open)}>
            {open ? "Hide" : "Show"} {othersCount} {onRun ? `in other run${othersCount === 1 ? "" : "s"}` : "waiting"}
          </button>
        )}
        {here.map((e) => (e.kind === "group" ? <ApprovalGroup key={e.key} size={e.size} group={e.group} items={e.items} compact /> : null))}
        <span className="spacer" />
        <EnableNotifications />
      </div>
      {open && others.length > 0 && (
        <ul>
          {others.map((e) => (
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

function entryRun(e: InboxEntry): string {
  return e.kind === "group" ? e.runId : e.interaction.run_id;
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
      schema={ia.schema}
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
  // Refused once asked here: the browser will not ask again, so say where
  // it is changed. (Refused before this page, it is the person's standing
  // choice: nothing to say.)
  const [refused, setRefused] = useState(false);
  if (refused) {
    return (
      <span className="muted inbox-note" role="status" data-testid="notifications-refused">
        The browser refused notifications: allow them in its site settings for this page.
      </span>
    );
  }
  if (permission !== "default") return null;
  return (
    <button
      type="button"
      className="link"
      data-testid="enable-notifications"
      title="Be told when a run needs you while this page is in the background"
      onClick={() =>
        void requestNotificationPermission().then((p) => {
          setPermission(p);
          setRefused(p === "denied");
        })
      }
    >
      Enable notifications
    </button>
  );
}
