import { memo } from "react";
import { useApp } from "../../store/context";
import type { ApprovalState } from "../../store/reducer";
import { duration, pretty } from "../../ui/format";
import { ForkButton } from "../controls/Fork";
import { ApprovalCard } from "../inbox/ApprovalCard";
import { ToolFiles } from "../files/ToolFiles";
import { decisionText } from "../inbox/decisionText";
import { QuestionCard } from "../inbox/QuestionCard";

const statusText: Record<string, string> = {
  waiting: "waiting for approval",
  interrupted: "interrupted: outcome unknown",
};

// ToolCard is one tool call: what was asked, whether a person let it run
// (perhaps with arguments they edited), what came back. An ask_user call
// shows its question and, once answered, the answer.
export const ToolCard = memo(function ToolCard({ runId, nodeId }: { runId: string; nodeId: string }) {
  const n = useApp((s) => s.stream.runs[runId]?.nodes[nodeId]);
  if (n?.kind !== "tool") return null;
  const a = n.approval;
  const waiting = n.status === "waiting" && a && !a.decision;
  const question = a?.kind === "question" ? (a.question ?? { text: a.reason }) : undefined;
  const edited = a?.editedArguments !== undefined && a.editedArguments !== null;
  const status = n.status === "waiting" && question ? "waiting for an answer" : (statusText[n.status] ?? n.status);
  return (
    <article
      className={`tool-card tool-${n.status}${n.isError ? " is-error" : ""}`}
      data-testid="tool-card"
      data-tool={n.tool}
      data-status={n.status}
      data-node-id={nodeId}
    >
      <header className="tool-head">
        <span className="tool-name">{n.tool}</span>
        {n.risk && <span className={`risk risk-${n.risk}`}>{n.risk}</span>}
        <span className={`tool-status status-${n.status}`}>{status}</span>
        {n.retryOf && <span className="retry-of">retry of {n.retryOf}</span>}
        <span className="spacer" />
        <span className="muted">{duration(n.durationMs)}</span>
        <ForkButton runId={runId} nodeId={nodeId} />
      </header>
      {question ? (
        !waiting && <p className="question-text">{question.text}</p>
      ) : (
        <>
          {edited && <p className="args-caption muted">asked by the model:</p>}
          <pre className={`json${edited ? " args-replaced" : ""}`}>{pretty(n.arguments)}</pre>
        </>
      )}
      {edited && (
        <div className="edited-args" data-testid="edited-args">
          <p className="args-caption">arguments edited by the user:</p>
          <pre className="json">{pretty(a.editedArguments)}</pre>
        </div>
      )}
      {n.policy && n.policy.effect !== "allow" && !a && <p className="muted">Policy: {n.policy.reason}</p>}
      {waiting && question && <QuestionCard interactionId={a.interactionId} question={question} expiresAt={a.expiresAt} />}
      {waiting && !question && (
        <ApprovalCard
          interactionId={a.interactionId}
          tool={n.tool}
          risk={a.risk}
          arguments={a.arguments}
          reason={a.reason}
          details={false}
          expiresAt={a.expiresAt}
          defaultDecision={a.defaultDecision}
        />
      )}
      {a?.decision && <Decision a={a} />}
      {n.output !== undefined && n.output !== "" && (
        <pre className={`tool-output${n.isError ? " is-error" : ""}`}>
          {n.code && <span className="tool-code">{n.code}: </span>}
          {n.output}
        </pre>
      )}
      {!!n.files?.length && <ToolFiles files={n.files} />}
      {n.error && <p className="node-error">{n.error}</p>}
    </article>
  );
});

function Decision({ a }: { a: ApprovalState }) {
  return (
    <p className={`decision decision-${a.decision}`} data-testid="tool-decision">
      {decisionText(a)}
    </p>
  );
}
