import { memo } from "react";
import { useApp } from "../../store/context";
import { duration } from "../../ui/format";
import { Markdown } from "../../ui/markdown";
import { StatusBadge } from "../../ui/StatusBadge";
import { ForkButton } from "../controls/Fork";
import { Highlight } from "./Highlight";
import { StreamedText } from "./StreamedText";
import { followUpLabel } from "../../store/turnFold";

// userLabels names where a user message came from, by its node's label.
const userLabels: Record<string, string> = { instructions: "Instructions", steer: "Steer", [followUpLabel]: "Follow-up" };

type NodeProps = { runId: string; nodeId: string };

// UserMessage is the run's instructions before any event arrived.
export function UserMessage({ text }: { text: string }) {
  return (
    <div className="msg msg-user">
      <div className="msg-meta">Instructions</div>
      <div className="msg-text">{text}</div>
    </div>
  );
}

// UserNodeMessage is a user node: the instructions, a steer message sent
// while the run went on, or a follow-up that continued it after it ended,
// shown where it entered the conversation.
export const UserNodeMessage = memo(function UserNodeMessage({ runId, nodeId }: NodeProps) {
  const n = useApp((s) => s.stream.runs[runId]?.nodes[nodeId]);
  if (n?.kind !== "user") return null;
  if (n.answerTo) return <AnswerMessage runId={runId} nodeId={nodeId} answerTo={n.answerTo} text={n.text} />;
  const steer = n.label === "steer";
  const followUp = n.label === followUpLabel;
  return (
    <div
      className={`msg msg-user${steer ? " msg-steer" : ""}`}
      data-testid={steer ? "steer-message" : followUp ? "follow-up-message" : "user-message"}
    >
      <div className="msg-meta">
        <span>{userLabels[n.label] ?? (n.label || "User")}</span>
        <span className="spacer" />
        <ForkButton runId={runId} nodeId={nodeId} />
      </div>
      <div className="msg-text">
        <Highlight text={n.text} />
      </div>
    </div>
  );
});

// AnswerMessage is a person's answer to the agent's question (an ask_user
// call), shown where the run received it, under the question it answers.
function AnswerMessage({ runId, nodeId, answerTo, text }: NodeProps & { answerTo: string; text: string }) {
  const question = useApp((s) => {
    const q = s.stream.runs[runId]?.nodes[answerTo];
    return q?.kind === "tool" ? q.approval?.question?.text : undefined;
  });
  return (
    <div className="msg msg-user msg-answer" data-testid="answer-message" data-answer-to={answerTo}>
      <div className="msg-meta">
        <span>{question ? `Answer to “${question}”` : "Answer"}</span>
        <span className="spacer" />
        <ForkButton runId={runId} nodeId={nodeId} />
      </div>
      <div className="msg-text">
        Answer: <Highlight text={text} />
      </div>
    </div>
  );
}

// highlighted marks search matches in a run of model text; it is stable so
// the Markdown parse is memoised across renders.
const highlighted = (text: string) => <Highlight text={text} />;

// LlmMessage is one model response, streamed in and rendered as Markdown.
export const LlmMessage = memo(function LlmMessage({ runId, nodeId }: NodeProps) {
  const n = useApp((s) => s.stream.runs[runId]?.nodes[nodeId]);
  if (n?.kind !== "llm") return null;
  const streaming = n.status === "running";
  return (
    <div className={`msg msg-llm${streaming ? " streaming" : ""}`} data-testid="llm-message" data-node-id={nodeId} data-status={n.status}>
      <div className="msg-meta">
        <span>{n.label || "Model"}</span>
        {n.model && <span className="muted">{n.model}</span>}
        {n.status !== "succeeded" && <StatusBadge status={n.status} />}
        {n.usage && (
          <span className="muted">
            {n.usage.input_tokens} in / {n.usage.output_tokens} out
          </span>
        )}
        <span className="muted">{duration(n.durationMs)}</span>
        <span className="spacer" />
        <ForkButton runId={runId} nodeId={nodeId} />
      </div>
      {!!n.attempts?.length && (
        <ul className="attempts" aria-label="Failed attempts">
          {n.attempts.map((a) => (
            <li key={a.attempt} title={a.error}>
              attempt {a.attempt} failed: <code>{a.kind}</code> <span className="attempt-error">{a.error}</span> … retrying in{" "}
              {duration(a.retry_in_ms)}
            </li>
          ))}
        </ul>
      )}
      <div data-testid="llm-text" className="msg-text markdown">
        {streaming && n.streamed ? (
          <StreamedText streamed={n.streamed} renderText={highlighted} />
        ) : (
          <Markdown text={n.text} renderText={highlighted} />
        )}
      </div>
      {n.error && <p className="node-error">{n.error}</p>}
    </div>
  );
});

// AgentLine is a node of a kind without a view of its own yet (sub-agents).
export const AgentLine = memo(function AgentLine({ runId, nodeId }: NodeProps) {
  const n = useApp((s) => s.stream.runs[runId]?.nodes[nodeId]);
  if (!n) return null;
  return (
    <div className="msg msg-agent">
      <div className="msg-meta">
        <span>{n.label || n.kind}</span>
        <StatusBadge status={n.status} />
      </div>
      {n.error && <p className="node-error">{n.error}</p>}
    </div>
  );
});
