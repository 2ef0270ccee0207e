import { useApp } from "../../store/context";
import { useShallow } from "zustand/react/shallow";
import { terminalStatuses } from "../../store/reducer";
import { selectRun } from "../../store/store";
import { ForkHistory } from "./ForkHistory";
import { AgentLine, LlmMessage, UserMessage, UserNodeMessage } from "./Messages";
import { ToolCard } from "./ToolCard";

// Transcript shows a run's nodes in the order they started, then how the run ended.
export function Transcript({ runId }: { runId: string }) {
  const order = useApp((s) => s.stream.runs[runId]?.nodeOrder);
  const kinds = useApp(useShallow((s) => (order ?? []).map((id) => s.stream.runs[runId]?.nodes[id]?.kind)));
  const instructions = useApp((s) => s.stream.runs[runId]?.instructions ?? selectRun(s, runId)?.instructions);
  const loaded = useApp((s) => (s.stream.runs[runId]?.lastSeq ?? 0) > 0);
  const hasUser = kinds.includes("user");
  const forked = useApp((s) => !!s.stream.runs[runId]?.forkedFrom);

  return (
    <section aria-label="Transcript" className="transcript">
      {forked ? <ForkHistory runId={runId} /> : !hasUser && instructions && <UserMessage text={instructions} />}
      {(order ?? []).map((id, i) => {
        switch (kinds[i]) {
          case "user":
            return <UserNodeMessage key={id} runId={runId} nodeId={id} />;
          case "llm":
            return <LlmMessage key={id} runId={runId} nodeId={id} />;
          case "tool":
            return <ToolCard key={id} runId={runId} nodeId={id} />;
          default:
            return <AgentLine key={id} runId={runId} nodeId={id} />;
        }
      })}
      {!loaded && <p className="muted">Loading events…</p>}
      <Outcome runId={runId} />
    </section>
  );
}

// Outcome says how the run ended, or that it waits for a person.
function Outcome({ runId }: { runId: string }) {
  const t = useApp((s) => s.stream.runs[runId]);
  if (!t?.status) return null;
  if (t.status === "waiting") {
    const asks = Object.values(t.nodes).some(
      (n) => n.kind === "tool" && n.status === "waiting" && n.approval?.kind === "question" && !n.approval.decision,
    );
    return <p className="outcome outcome-waiting">{asks ? "Waiting for an answer." : "Waiting for approval."}</p>;
  }
  if (!terminalStatuses.has(t.status)) return null;
  return (
    <div className={`outcome outcome-${t.status}`} role="status">
      <strong>Run {t.status}</strong>
      {t.reason && <span>: {t.reason}</span>}
      {t.error && <pre className="outcome-error">{t.error}</pre>}
    </div>
  );
}
