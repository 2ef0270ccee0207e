import { memo, useMemo } from "react";
import { useApp } from "../../store/context";
import { pendingElicitation } from "../../store/elicitationFold";
import type { ApprovalState, ToolNode } from "../../store/reducer";
import { duration, pretty } from "../../ui/format";
import { StatusBadge } from "../../ui/StatusBadge";
import { ToolScreenshot } from "../browser/Shot";
import { ForkButton } from "../controls/Fork";
import { ToolFiles } from "../files/ToolFiles";
import { ApprovalCard } from "../inbox/ApprovalCard";
import { CommandLine, commandOf } from "../inbox/CallView";
import { decisionText } from "../inbox/decisionText";
import { QuestionCard } from "../inbox/QuestionCard";
import { useCardOpen } from "./cardState";
import { Highlight } from "./Highlight";
import { ToolElicitations } from "./ToolElicitations";
import { toolDiff, type ToolDiff } from "./toolDiff";
import { ToolProgressRow } from "./ToolProgress";
import { Diffs } from "./ToolDiffView";

const statusText: Record<string, string> = {
  waiting: "waiting for approval",
  interrupted: "interrupted: outcome unknown",
};

// A card whose arguments and output together are longer than this starts
// collapsed: a person reads the head, the decision and the first lines of
// the output, and opens it to read the rest.
const longChars = 1200;
const longLines = 24;
const previewLines = 3;

// ToolCard is one tool call: what was asked, whether a person let it run
// (perhaps with arguments they edited), what came back. An ask_user call
// shows its question and, once answered, the answer; an MCP call, what its
// server asked the person while it ran (ToolElicitations). A diff in the call
// (edit_file's replacement, apply_patch's patch, git_diff's output) shows
// as a diff. A long card starts collapsed; one waiting for a person never is.
export const ToolCard = memo(function ToolCard({ runId, nodeId }: { runId: string; nodeId: string }) {
  const n = useApp((s) => s.stream.runs[runId]?.nodes[nodeId]);
  if (n?.kind !== "tool") return null;
  return <ToolCardBody runId={runId} n={n} />;
});

function ToolCardBody({ runId, n }: { runId: string; n: ToolNode }) {
  const a = n.approval;
  const waiting = n.status === "waiting" && !!a && !a.decision;
  const question = a?.kind === "question" ? (a.question ?? { text: a.reason }) : undefined;
  const edited = a?.editedArguments !== undefined && a.editedArguments !== null;
  // A server's request waits on a running call: the call stays running.
  const asking = n.status === "running" && !!pendingElicitation(n);
  // A question the person declined is no failure of the call.
  const declined = a?.kind === "question" && n.status === "failed" && n.code === "declined";
  const label =
    n.status === "waiting" && question
      ? "waiting for an answer"
      : asking
        ? "running: asks for input"
        : declined
          ? "declined"
          : statusText[n.status];

  const args = useMemo(() => pretty(n.arguments), [n.arguments]);
  const preview = a?.preview;
  const diff = useMemo(() => toolDiff(n.tool, n.arguments, n.output, preview), [n.tool, n.arguments, n.output, preview]);
  const output = n.output ?? "";
  const long = args.length + output.length > longChars || lineCount(args) + lineCount(output) > longLines;
  const [chosenOpen, setOpen] = useCardOpen(n.id, long);
  const open = waiting || asking || chosenOpen;
  const collapsible = long && !waiting && !asking;

  return (
    <article
      className={`tool-card tool-${n.status}${n.isError ? " is-error" : ""}${open ? "" : " collapsed"}`}
      data-testid="tool-card"
      data-tool={n.tool}
      data-status={n.status}
      data-node-id={n.id}
    >
      <header className="tool-head">
        <span className="tool-name">
          <Highlight text={n.tool} />
        </span>
        {n.risk && <span className={`risk risk-${n.risk}`}>{n.risk}</span>}
        <StatusBadge status={declined ? "denied" : n.status} label={label} className="tool-status" />
        {n.retryOf && <span className="retry-of">retry of {n.retryOf}</span>}
        <span className="spacer" />
        <span className="muted">{duration(n.durationMs)}</span>
        {collapsible && (
          <button
            type="button"
            className="link card-toggle"
            data-testid="tool-card-toggle"
            aria-expanded={open}
            onClick={() => setOpen(!open)}
          >
            {open ? "Collapse" : "Show all"}
          </button>
        )}
        <ForkButton runId={runId} nodeId={n.id} />
      </header>
      {question ? (
        !waiting && (
          <p className="question-text">
            <Highlight text={question.text} />
          </p>
        )
      ) : (
        <Arguments runId={runId} n={n} args={args} diff={diff?.from === "arguments" ? diff : undefined} edited={edited} open={open} />
      )}
      {a?.preview?.note && !edited && (
        <p className="muted call-note" data-testid="call-note">
          {a.preview.note}
        </p>
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
          runId={runId}
          tool={n.tool}
          risk={a.risk}
          arguments={a.arguments}
          schema={a.schema}
          reason={a.reason}
          details={false}
          expiresAt={a.expiresAt}
          defaultDecision={a.defaultDecision}
        />
      )}
      {a?.decision && <Decision a={a} />}
      <ToolElicitations n={n} />
      <ToolProgressRow n={n} />
      {output !== "" && <Output n={n} diff={diff?.from === "output" ? diff : undefined} open={open} />}
      <ToolScreenshot runId={runId} n={n} />
      {!!n.files?.length && <ToolFiles files={n.files} />}
      {n.error && <p className="node-error">{n.error}</p>}
    </article>
  );
}

type ArgumentsProps = { runId: string; n: ToolNode; args: string; diff?: ToolDiff; edited: boolean; open: boolean };

function Arguments({ runId, n, args, diff, edited, open }: ArgumentsProps) {
  const command = edited ? undefined : commandOf(n.tool, n.arguments);
  if (!open) {
    if (command) {
      return (
        <pre className="json args-line command-line" title={command.command}>
          <Highlight text={`$ ${oneLine(command.command)}`} />
        </pre>
      );
    }
    return (
      <pre className="json args-line" title={args}>
        <Highlight text={oneLine(args)} />
      </pre>
    );
  }
  if (diff && !edited) return <Diffs diff={diff} label="Change asked" />;
  if (command) return <CommandLine runId={runId} {...command} />;
  return (
    <>
      {edited && <p className="args-caption muted">asked by the model:</p>}
      <pre className={`json${edited ? " args-replaced" : ""}`}>
        <Highlight text={args} />
      </pre>
    </>
  );
}

function Output({ n, diff, open }: { n: ToolNode; diff?: ToolDiff; open: boolean }) {
  const output = n.output ?? "";
  const code = n.code && <span className="tool-code">{n.code}: </span>;
  if (!open) {
    const lines = output.split("\n");
    const more = lines.length - previewLines;
    return (
      <pre className={`tool-output${n.isError ? " is-error" : ""}`}>
        {code}
        <Highlight text={lines.slice(0, previewLines).join("\n")} />
        {more > 0 && <span className="more-lines">{`\n… ${more} more line${more === 1 ? "" : "s"}`}</span>}
      </pre>
    );
  }
  if (diff) {
    return (
      <>
        {diff.preamble && (
          <pre className="tool-output">
            <Highlight text={diff.preamble} />
          </pre>
        )}
        <Diffs diff={diff} label="Output" />
      </>
    );
  }
  return (
    <pre className={`tool-output${n.isError ? " is-error" : ""}`}>
      {code}
      <Highlight text={output} />
    </pre>
  );
}

function Decision({ a }: { a: ApprovalState }) {
  return (
    <p className={`decision decision-${a.decision}`} data-testid="tool-decision">
      <Highlight text={decisionText(a)} />
    </p>
  );
}

function lineCount(s: string): number {
  let n = 0;
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, " ");
  return flat.length > 160 ? flat.slice(0, 157) + "…" : flat;
}
