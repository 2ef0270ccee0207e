import { useApp } from "../../store/context";
import { pretty } from "../../ui/format";

// ForkHistory is the conversation a fork carried over from the run it
// branched from: what its first model call continues.
export function ForkHistory({ runId }: { runId: string }) {
  const from = useApp((s) => s.stream.runs[runId]?.forkedFrom);
  const history = useApp((s) => s.stream.runs[runId]?.history);
  if (!from) return null;
  const msgs = history ?? [];
  return (
    <details className="fork-history" data-testid="fork-history">
      <summary>
        Carried over from <code>{from.run_id}</code> up to <code>{from.node_id}</code>: {msgs.length}{" "}
        {msgs.length === 1 ? "message" : "messages"}
      </summary>
      <ol>
        {msgs.map((m, i) => (
          <li key={i} className={`history-msg history-${m.role}${m.is_error ? " is-error" : ""}`}>
            <span className="history-role">{m.role}</span>
            <div className="history-body">
              {m.text && <div className="msg-text">{m.text}</div>}
              {m.tool_calls?.map((c) => (
                <div key={c.id} className="history-call">
                  <code>{c.name}</code> <code className="muted">{oneLine(c.arguments)}</code>
                </div>
              ))}
            </div>
          </li>
        ))}
      </ol>
    </details>
  );
}

function oneLine(v: unknown): string {
  const s = pretty(v).replace(/\s+/g, " ");
  return s.length > 160 ? s.slice(0, 157) + "…" : s;
}
