import "./audit.css";
import { memo, useCallback } from "react";
import { useApp } from "../../store/context";
import type { DecisionRecord } from "../../store/reducer";
import { clock } from "../../ui/format";
import { VirtualList } from "../../ui/VirtualList";
import { timedOutText } from "../inbox/Expiry";

// rowHeight is a one-line row's height before it is measured (audit.css).
const rowHeight = 27;
const estimate = () => rowHeight;

// DecisionsPanel is a run's audit: every decision on a tool call in log
// order, automatic (the policy's effect and the rule that gave it) and
// human (how the approval was answered, by which surface, whether it saved
// a grant or changed the arguments), or taken by a timeout. A run can hold
// thousands: the rows are a table in ARIA terms, drawn by a virtual list
// (only those in view are in the page), and the newest stays in view while
// the person has not scrolled up.
export function DecisionsPanel({ runId }: { runId: string }) {
  const decisions = useApp((s) => s.stream.runs[runId]?.decisions);
  const rows = decisions ?? noDecisions;
  const itemKey = useCallback((i: number) => String(rows[i]!.seq), [rows]);
  const renderItem = useCallback((i: number) => <Row runId={runId} d={rows[i]!} index={i} />, [runId, rows]);
  return (
    <section className="decisions-panel" aria-label="Decisions" data-testid="decisions-panel">
      <h2>
        Decisions <span className="count">{rows.length}</span>
      </h2>
      {rows.length === 0 ? (
        <p className="empty">No tool call decisions yet.</p>
      ) : (
        <div className="decisions" role="table" aria-label="Decisions on tool calls" aria-rowcount={rows.length + 1}>
          <div role="rowgroup" className="decisions-head">
            <div role="row" aria-rowindex={1} className="decision-cols">
              <span role="columnheader">Time</span>
              <span role="columnheader">Tool</span>
              <span role="columnheader">By</span>
              <span role="columnheader">Decision</span>
              <span role="columnheader">Details</span>
            </div>
          </div>
          <VirtualList
            role="rowgroup"
            className="decisions-scroll"
            count={rows.length}
            itemKey={itemKey}
            renderItem={renderItem}
            estimateSize={estimate}
          />
        </div>
      )}
    </section>
  );
}

const noDecisions: DecisionRecord[] = [];

const scopeText: Record<string, string> = { run: "always in this run", agent: "always for this agent", everywhere: "always, everywhere" };

// Row is one decision; memoised, as the list renders again as it scrolls.
const Row = memo(function Row({ runId, d, index }: { runId: string; d: DecisionRecord; index: number }) {
  // A record folded before its node started has no tool name: look again.
  const tool = useApp((s) => {
    if (d.tool) return d.tool;
    const n = s.stream.runs[runId]?.nodes[d.nodeId];
    return n?.kind === "tool" ? n.tool : d.nodeId;
  });
  const value = d.kind === "policy" ? d.effect : d.decision;
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      className="decision-cols decision-row"
      data-testid="decision-row"
      data-kind={d.kind}
      data-decision={value}
      data-node-id={d.nodeId}
    >
      <span role="cell" className="decision-time">
        {clock(d.ts)}
      </span>
      <span role="cell" className="decision-tool">
        <code>{tool}</code>
      </span>
      <span role="cell">{d.kind === "policy" ? "policy" : by(d.source)}</span>
      <span role="cell">
        <span className={`verdict verdict-${value}`}>{value}</span>
      </span>
      <span role="cell" className="decision-details">
        {d.kind === "policy" ? d.reason : <AnswerDetails d={d} />}
      </span>
    </div>
  );
});

function by(source: string): string {
  if (source === "timeout") return "timeout";
  // An MCP server's request dropped as its run was interrupted: nobody answered it.
  if (source === "withdrawn") return "withdrawn";
  if (source === "policy") return "policy (unattended)";
  return source ? `person (${source})` : "person";
}

function AnswerDetails({ d }: { d: Extract<DecisionRecord, { kind: "answer" }> }) {
  const parts: string[] = [];
  const question = d.interaction === "question";
  // An MCP server's request, answered or not, leaves the call's own approval as it was.
  const elicitation = d.interaction === "elicitation";
  if (d.source === "timeout") parts.push(timedOutText(d.decision, question || elicitation));
  else if (question) parts.push(d.decision === "deny" ? "declined the question" : "answered the question");
  else if (elicitation) parts.push(d.decision === "deny" ? "declined the MCP server's request" : "answered the MCP server's request");
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
