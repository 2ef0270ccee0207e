import "./audit.css";
import { useApp } from "../../store/context";
import type { DecisionRecord } from "../../store/reducer";
import { clock } from "../../ui/format";
import { timedOutText } from "../inbox/Expiry";

// DecisionsPanel is a run's audit: every decision on a tool call in log
// order, automatic (the policy's effect and the rule that gave it) and
// human (how the approval was answered, by which surface, whether it saved
// a grant or changed the arguments), or taken by a timeout.
export function DecisionsPanel({ runId }: { runId: string }) {
  const decisions = useApp((s) => s.stream.runs[runId]?.decisions);
  const rows = decisions ?? [];
  return (
    <section className="decisions-panel" aria-label="Decisions" data-testid="decisions-panel">
      <h2>
        Decisions <span className="count">{rows.length}</span>
      </h2>
      {rows.length === 0 ? (
        <p className="empty">No tool call decisions yet.</p>
      ) : (
        <div className="decisions-scroll">
          <table className="decisions">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Tool</th>
                <th scope="col">By</th>
                <th scope="col">Decision</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <Row key={d.seq} runId={runId} d={d} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

const scopeText: Record<string, string> = { run: "always in this run", agent: "always for this agent", everywhere: "always, everywhere" };

function Row({ runId, d }: { runId: string; d: DecisionRecord }) {
  // A record folded before its node started has no tool name: look again.
  const tool = useApp((s) => {
    if (d.tool) return d.tool;
    const n = s.stream.runs[runId]?.nodes[d.nodeId];
    return n?.kind === "tool" ? n.tool : d.nodeId;
  });
  const value = d.kind === "policy" ? d.effect : d.decision;
  return (
    <tr data-testid="decision-row" data-kind={d.kind} data-decision={value} data-node-id={d.nodeId}>
      <td className="decision-time">{clock(d.ts)}</td>
      <td>
        <code>{tool}</code>
      </td>
      <td>{d.kind === "policy" ? "policy" : by(d.source)}</td>
      <td>
        <span className={`verdict verdict-${value}`}>{value}</span>
      </td>
      <td className="decision-details">{d.kind === "policy" ? d.reason : <AnswerDetails d={d} />}</td>
    </tr>
  );
}

function by(source: string): string {
  if (source === "timeout") return "timeout";
  if (source === "policy") return "policy (unattended)";
  return source ? `person (${source})` : "person";
}

function AnswerDetails({ d }: { d: Extract<DecisionRecord, { kind: "answer" }> }) {
  const parts: string[] = [];
  const question = d.interaction === "question";
  if (d.source === "timeout") parts.push(timedOutText(d.decision, question));
  else if (question) parts.push(d.decision === "deny" ? "declined the question" : "answered the question");
  if (d.scope) parts.push(scopeText[d.scope] ?? d.scope);
  return (
    <>
      {parts.join("; ")}
      {d.grantId && (
        <>
          {parts.length > 0 && " "}
          <span className="muted">(grant {d.grantId})</span>
        </>
      )}
      {d.feedback && <q className="decision-feedback">{d.feedback}</q>}
      {d.edited && (
        <span className="edited-marker" data-testid="edited-marker">
          edited arguments
        </span>
      )}
    </>
  );
}
