import { useEffect, useMemo, useState } from "react";
import type { Message, NodeDetail } from "../../api/types";
import { useApp, useServices } from "../../store/context";
import { emptyTranscript, reduceRun, type TranscriptNode } from "../../store/reducer";
import { duration, errorMessage, pretty } from "../../ui/format";
import { StatusBadge } from "../../ui/StatusBadge";
import { NodeArtifacts } from "../browser/NodeArtifacts";
import { BreakToggle } from "../controls/BreakToggle";
import { decisionText } from "../inbox/decisionText";
import { Diffs } from "../transcript/ToolDiffView";
import { toolDiff } from "../transcript/toolDiff";
import { NodeActions } from "./NodeActions";
import { tokens } from "../usage/money";

// NodeDetailPanel shows one node of the graph: what it is, how it went, and
// what went in and came out, as GET /runs/{id}/nodes/{node} records it (the
// live node from the stream until that answer arrives). It is fetched again
// when the node's status changes, so a finished call shows its output.
export function NodeDetailPanel({ runId, nodeId, onClose }: { runId: string; nodeId: string; onClose: () => void }) {
  const { api } = useServices();
  const live = useApp((s) => s.stream.runs[runId]?.nodes[nodeId]);
  const [detail, setDetail] = useState<NodeDetail>();
  const [error, setError] = useState<string>();

  const status = live?.status;
  useEffect(() => {
    let cancelled = false;
    api.node(runId, nodeId).then(
      (d) => {
        if (cancelled) return;
        setDetail(d);
        setError(undefined);
      },
      (err: unknown) => !cancelled && setError(errorMessage(err)),
    );
    return () => {
      cancelled = true;
    };
  }, [api, runId, nodeId, status]);

  // The recorded node: the node's own events through the same reducer.
  const recorded = useMemo(
    () => detail?.events.reduce(reduceRun, emptyTranscript(runId)).nodes[nodeId],
    [detail, runId, nodeId],
  );
  const n = recorded && (!live || recorded.status === live.status) ? recorded : live;
  const g = detail?.node;
  const own = n?.kind === "llm" ? n.usage : undefined;
  const usage = own ?? g?.usage;
  // A cost is the graph's (GET /nodes): node.finished's usage carries none.
  const cost = own ? undefined : g?.usage?.cost_usd;
  const attempts = g?.attempts ?? (n?.kind === "llm" ? (n.attempts?.length ?? 0) + 1 : undefined);
  const durationMs = n?.durationMs ?? (g?.finished_at ? g.duration_ms : undefined);

  return (
    <aside className="node-detail" aria-label="Node details" data-testid="node-detail">
      <header className="node-detail-head">
        <span className={`step-kind step-kind-${n?.kind ?? g?.kind ?? "agent"}`}>{n?.kind ?? g?.kind}</span>
        <h2>{n?.label || g?.label || nodeId}</h2>
        {(n?.status ?? g?.status) && <StatusBadge status={n?.status ?? g?.status ?? ""} />}
        <span className="spacer" />
        <button type="button" className="link" aria-label="Close node details" onClick={onClose}>
          ×
        </button>
      </header>
      <dl className="node-facts">
        <dt>Node</dt>
        <dd>
          <code>{nodeId}</code>
        </dd>
        {n?.kind === "tool" && (
          <>
            <dt>Tool</dt>
            <dd>
              <code>{n.tool}</code>
              {n.risk && <span className="muted"> · {n.risk}</span>}
            </dd>
          </>
        )}
        {n?.kind === "llm" && n.model && (
          <>
            <dt>Model</dt>
            <dd>{n.model}</dd>
          </>
        )}
        <dt>Duration</dt>
        <dd>{durationMs !== undefined ? duration(durationMs) : n?.status === "running" ? "running…" : "—"}</dd>
        {usage && (
          <>
            <dt>Tokens</dt>
            <dd>
              {tokens(usage.input_tokens)} in / {tokens(usage.output_tokens)} out
              {usage.cached_tokens ? ` (${tokens(usage.cached_tokens)} cached)` : ""}
              {cost ? ` · $${cost.toFixed(4)}` : ""}
            </dd>
          </>
        )}
        {attempts !== undefined && attempts > 1 && (
          <>
            <dt>Attempts</dt>
            <dd>{attempts}</dd>
          </>
        )}
      </dl>
      <NodeActions runId={runId} nodeId={nodeId} />
      {n?.kind === "tool" && <BreakToggle runId={runId} tool={n.tool} />}
      {(n?.error ?? g?.error) && <pre className="node-error">{n?.error ?? g?.error}</pre>}
      {n && <NodeArtifacts runId={runId} n={n} />}
      {n && <NodeBody n={n} input={detail?.input} />}
      {error && (
        <p className="form-error" role="alert">
          Could not load the node: {error}
        </p>
      )}
    </aside>
  );
}

function NodeBody({ n, input }: { n: TranscriptNode; input?: Message[] }) {
  switch (n.kind) {
    case "user":
      return <Block title="Message">{n.text}</Block>;
    case "tool": {
      const diff = toolDiff(n.tool, n.arguments, n.output);
      return (
        <>
          {diff?.from === "arguments" ? (
            <div className="node-block">
              <h3>Change asked</h3>
              <Diffs diff={diff} label="Change asked" />
            </div>
          ) : (
            <Block title="Arguments">{pretty(n.arguments)}</Block>
          )}
          {n.approval?.editedArguments !== undefined && n.approval.editedArguments !== null && (
            <Block title="Arguments edited by the user">{pretty(n.approval.editedArguments)}</Block>
          )}
          {n.approval?.decision && <p className="muted">{decisionText(n.approval)}</p>}
          {diff?.from === "output" ? (
            <div className="node-block">
              <h3>Output</h3>
              {diff.preamble && <pre>{diff.preamble}</pre>}
              <Diffs diff={diff} label="Output" />
            </div>
          ) : (
            n.output !== undefined && (
              <Block title={n.isError ? "Output (error)" : "Output"} error={n.isError}>
                {n.output}
              </Block>
            )
          )}
        </>
      );
    }
    case "llm":
      return (
        <>
          {input && input.length > 0 && (
            <details className="node-input">
              <summary>
                Input ({input.length} {input.length === 1 ? "message" : "messages"})
              </summary>
              <ol>
                {input.map((m, i) => (
                  <li key={i} className={`input-msg input-${m.role}`}>
                    <span className="input-role">{m.role}</span>
                    {m.text && <pre>{m.text}</pre>}
                    {m.tool_calls?.map((c) => (
                      <pre key={c.id}>
                        → {c.name}({pretty(c.arguments)})
                      </pre>
                    ))}
                  </li>
                ))}
              </ol>
            </details>
          )}
          {n.text && <Block title="Response">{n.text}</Block>}
          {!!n.toolCalls?.length && (
            <Block title="Tool calls">{n.toolCalls.map((c) => `${c.name}(${pretty(c.arguments)})`).join("\n")}</Block>
          )}
        </>
      );
    default:
      return null;
  }
}

function Block({ title, error, children }: { title: string; error?: boolean; children: string }) {
  return (
    <div className="node-block">
      <h3>{title}</h3>
      <pre className={error ? "is-error" : undefined}>{children}</pre>
    </div>
  );
}
