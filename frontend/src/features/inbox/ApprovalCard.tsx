import "./inbox.css";
import { useRef, useState } from "react";
import { flushSync } from "react-dom";
import type { CallPreview, Decision } from "../../api/types";
import { ArgsEdit } from "./ArgsForm";
import { approvalKeys, shortcutFor } from "../controls/shortcuts";
import { Always, type AlwaysChoice } from "./Always";
import { CallView } from "./CallView";
import { Expiry } from "./Expiry";
import { useAnswer } from "./useAnswer";

export type ApprovalProps = {
  interactionId: string;
  runId: string;
  tool: string;
  risk: string;
  arguments: unknown;
  reason?: string;
  // false on a tool card, which shows the tool and its arguments itself.
  details?: boolean;
  // What the call would change, when its tool could tell.
  preview?: CallPreview;
  // The JSON schema of the tool's arguments, when known: Edit is a form
  // read from it.
  schema?: unknown;
  // When the default decision is taken if nobody answers.
  expiresAt?: number;
  defaultDecision?: "deny" | "approve";
  // Set by a group box that decided this call with the others of its turn:
  // the decision, or the error its batch answer got for this call. A new
  // object for each batch.
  groupOutcome?: GroupOutcome;
};

export type GroupOutcome = { decision?: Decision; error?: string };

// ApprovalCard asks a person to approve or deny one tool call. Deny first
// asks for a reason, which the model receives as feedback; Edit lets the
// person change the arguments and approve the edited call instead. Focus
// moves only when the person clicks here, never on its own: the card may
// appear while someone types in the steer box.
export function ApprovalCard(props: ApprovalProps) {
  const { interactionId, tool, risk, arguments: args, reason, details = true } = props;
  const { busy, error, setError, sent, send } = useAnswer(interactionId);
  const [denying, setDenying] = useState(false);
  const [feedback, setFeedback] = useState("");
  const [editing, setEditing] = useState(false);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const editRef = useRef<HTMLFormElement>(null);

  const { groupOutcome } = props;
  const decision = sent?.decision ?? groupOutcome?.decision;
  // A group's refusal of this call becomes the card's error, until the next
  // try. Adjusted while rendering (React's pattern for state that follows a
  // prop), so the error shows in the same paint as the group's result.
  const [seenOutcome, setSeenOutcome] = useState<GroupOutcome>();
  if (groupOutcome !== seenOutcome) {
    setSeenOutcome(groupOutcome);
    if (groupOutcome?.error) setError(groupOutcome.error);
  }
  // Once decided, an earlier attempt's error is stale.
  const shownError = decision ? undefined : error;

  function approve() {
    void send({ decision: "approve" });
  }

  function approveAlways({ scope, extent }: AlwaysChoice) {
    void send({ decision: "approve", scope, ...(extent === "any" ? { any_argument: true } : extent === "folder" ? { folder: true } : {}) });
  }

  function deny() {
    const text = feedback.trim();
    void send({ decision: "deny", ...(text ? { feedback: text } : {}) });
  }

  // A refused edit (invalid here, or 400 from the server) keeps the form
  // as it is so that the person can fix it.
  function approveEdited(edited: Record<string, unknown>) {
    // Unchanged arguments are a plain approval: the audit must not say "edited".
    if (sameJSON(edited, args)) {
      approve();
      return;
    }
    void send({ decision: "approve", arguments: edited });
  }

  function toggleEdit() {
    if (editing) {
      setEditing(false);
      setError(undefined);
      return;
    }
    flushSync(() => {
      setEditing(true);
      setDenying(false);
    });
    editRef.current?.querySelector<HTMLElement>("input, textarea, select")?.focus();
  }

  function openDeny() {
    flushSync(() => setDenying(true));
    reasonRef.current?.focus();
  }

  // Keys on the focused card (j and k move between cards): a approves, d
  // asks for the reason of a denial, e edits.
  function onKey(e: React.KeyboardEvent) {
    const action = decision || busy ? undefined : shortcutFor(e.nativeEvent);
    if (!action || !approvalKeys.has(action)) return;
    e.preventDefault();
    e.stopPropagation();
    if (action === "approve") approve();
    else if (action === "deny") openDeny();
    else if (!editing) toggleEdit();
  }

  return (
    <div
      className="approval"
      role="group"
      aria-label={`Approval of ${tool}`}
      aria-keyshortcuts="a d e"
      data-testid="approval-card"
      data-interaction-id={interactionId}
      data-pending={decision ? undefined : ""}
      tabIndex={-1}
      onKeyDown={onKey}
    >
      <div className="approval-head">
        <strong>Approval needed</strong>
        {details && <span className="tool-name">{tool}</span>}
        <span className={`risk risk-${risk}`}>{risk}</span>
        {props.expiresAt && !decision ? <Expiry expiresAt={props.expiresAt} defaultDecision={props.defaultDecision} /> : null}
      </div>
      {reason && <p className="approval-reason">{reason}</p>}
      {details && (!editing || decision) && <CallView runId={props.runId} tool={tool} arguments={args} preview={props.preview} schema={props.schema} />}
      {decision ? (
        <p className="muted" data-testid="approval-sent">
          {decision === "deny" ? "Denied" : sent?.arguments ? "Approved with edited arguments" : "Approved"}: waiting for the run to go on…
        </p>
      ) : editing ? (
        <ArgsEdit
          ref={editRef}
          args={isRecord(args) ? args : {}}
          schema={props.schema}
          busy={busy}
          error={error}
          setError={setError}
          onApprove={approveEdited}
          onCancel={toggleEdit}
        />
      ) : (
        <div className="approval-actions">
          <button type="button" className="approve" disabled={busy} onClick={() => approve()}>
            Approve
          </button>
          <button type="button" className="deny" disabled={busy || denying} onClick={openDeny}>
            Deny
          </button>
          <button
            type="button"
            className="always"
            data-testid="edit-args"
            aria-pressed="false"
            disabled={busy}
            title="Change the arguments, then approve the edited call"
            onClick={toggleEdit}
          >
            Edit
          </button>
          <Always tool={tool} arguments={args} busy={busy} onAlways={approveAlways} />
        </div>
      )}
      {denying && !decision && !editing && (
        <div className="deny-form">
          <textarea
            ref={reasonRef}
            aria-label="Reason"
            rows={2}
            value={feedback}
            placeholder="Why? The agent receives this as feedback."
            onChange={(e) => setFeedback(e.target.value)}
          />
          <div className="approval-actions">
            <button type="button" className="deny" disabled={busy} onClick={deny}>
              Confirm deny
            </button>
            <button type="button" disabled={busy} onClick={() => setDenying(false)}>
              Back
            </button>
          </div>
        </div>
      )}
      {shownError && (
        <p className="form-error" role="alert">
          {shownError}
        </p>
      )}
    </div>
  );
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// sameJSON compares two arguments as JSON values: the order of an object's
// keys does not matter (a form rebuilds the object in its schema's order).
function sameJSON(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (isRecord(v)) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])]));
  return v;
}
