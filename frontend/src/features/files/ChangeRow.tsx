import { useState } from "react";
import type { ChangeView } from "../../api/types";
import { useApp } from "../../store/context";
import { touchKind } from "../../store/fileFold";
import { clock } from "../../ui/format";
import { DiffView } from "./DiffView";
import type { RestoreAction } from "./useRestore";

// Act is what a change row may do: run a restore, unless blocked says why
// not (the run is acting, or another restore is on its way).
export type Act = { run: (a: RestoreAction) => void; blocked?: string };

const sourceText: Record<string, string> = {
  tool: "by a file tool",
  command: "by a command",
  external: "outside the run",
};

// undoText names what a restore took back, from its undoes field.
function undoText(undoes: string | undefined): string {
  if (!undoes) return "by an undo";
  if (undoes === "run") return "by a revert of the run";
  if (undoes.startsWith("from:")) return `by a rewind to before ${undoes.slice(5)}`;
  if (undoes.startsWith("after:")) return `by a fork's restore to as they were at ${undoes.slice(6)}`;
  return `by an undo of ${undoes}`;
}

type Props = {
  runId: string;
  path: string;
  change: ChangeView;
  // The files the change's op touched: an undo takes all of them back.
  opPaths: readonly string[];
  act: Act;
};

// ChangeRow is one change of a file: who made it and when, its own diff
// (folded), and how to take it back.
export function ChangeRow({ runId, path, change: c, opPaths, act }: Props) {
  const nodeLabel = useApp((s) => {
    const n = c.node_id ? s.stream.runs[runId]?.nodes[c.node_id] : undefined;
    return n?.kind === "tool" ? n.tool : n?.label;
  });
  const showNode = useApp((s) => s.showNode);
  const others = opPaths.filter((p) => p !== path);
  const undoTitle = c.before_unknown
    ? "What the file held before this change is not known: it cannot be undone"
    : `Take back ${c.source === "undo" ? "this restore" : "this change"}${others.length ? `, with its changes to ${others.join(", ")}` : ""}`;
  const kind = touchKind(c);

  return (
    <li className={`change-row change-${c.source}`} data-testid="change-row" data-op={c.op} data-source={c.source}>
      <div className="change-head">
        <span className={`change-kind change-kind-${kind}`}>{kind}</span>
        <span className="change-source">{c.source === "undo" ? undoText(c.undoes) : (sourceText[c.source] ?? c.source)}</span>
        {c.node_id && (
          <button
            type="button"
            className="link change-node"
            title="Show this node in the graph"
            aria-label={`Show node ${c.node_id} in the graph`}
            onClick={() => showNode(c.node_id!)}
          >
            {nodeLabel ? `${nodeLabel} · ` : ""}
            <code>{c.node_id}</code>
          </button>
        )}
        <time className="muted" dateTime={new Date(c.created_at).toISOString()}>
          {clock(c.created_at)}
        </time>
        {others.length > 0 && <span className="muted">with {others.length} other file{others.length === 1 ? "" : "s"}</span>}
        <span className="spacer" />
        <button
          type="button"
          data-testid="undo-op"
          disabled={!!act.blocked || !!c.before_unknown}
          title={act.blocked ?? undoTitle}
          onClick={() => act.run({ kind: "undo", op: c.op })}
        >
          Undo
        </button>
        {c.node_id && c.source !== "undo" && (
          <button
            type="button"
            data-testid="rewind-node"
            disabled={!!act.blocked}
            title={act.blocked ?? "Take back the file changes of this step and of everything after it"}
            onClick={() => act.run({ kind: "rewind", nodeId: c.node_id! })}
          >
            Rewind to before this
          </button>
        )}
      </div>
      {c.diff ? (
        <ChangeDiff diff={c.diff} note={c.diff_note} label={`Diff of ${path} at change ${c.seq}`} />
      ) : (
        <p className="diff-note muted">{c.diff_note || "No diff to show."}</p>
      )}
    </li>
  );
}

// ChangeDiff is a change's own diff, folded; it is parsed only once opened,
// as a long run has many changes.
function ChangeDiff({ diff, note, label }: { diff: string; note?: string; label: string }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="change-diff" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Diff of this change</summary>
      {open && <DiffView diff={diff} note={note} label={label} />}
    </details>
  );
}
