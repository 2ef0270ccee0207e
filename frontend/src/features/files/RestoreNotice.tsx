import { useEffect, useRef } from "react";
import type { Act } from "./ChangeRow";
import type { RestoreAction, RestoreOutcome } from "./useRestore";

const doneWord: Record<RestoreAction["kind"], string> = { undo: "Undone", revert: "Reverted", rewind: "Rewound" };

// Paths listed in a notice before "and N more".
const maxPaths = 5;

type Props = { outcome: RestoreOutcome; act: Act; onDismiss: () => void };

function conflictHeading(message: string, n: number): string {
  if (n === 0) return message;
  return `Nothing was changed: ${n === 1 ? "1 file stands" : `${n} files stand`} in the way.`;
}

// RestoreNotice says how the last undo, revert or rewind went: what it
// changed, with the offer to take that back too; or, for a conflict, every
// file in the way and why, since nothing was written.
export function RestoreNotice({ outcome, act, onDismiss }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  // The notice is at the top of the tab; the button pressed may be far below.
  // A block body: Chromium's scrollIntoView returns a promise, which React
  // would take for the effect's cleanup.
  useEffect(() => {
    void ref.current?.scrollIntoView?.({ block: "nearest" });
  }, [outcome]);

  const dismiss = (
    <button type="button" className="link notice-dismiss" aria-label="Dismiss" onClick={onDismiss}>
      ×
    </button>
  );
  switch (outcome.kind) {
    case "conflict":
      return (
        <div ref={ref} className="restore-notice restore-conflicts" role="alert" data-testid="restore-conflicts">
          <div className="notice-head">
            {/* The server's message lists the same files; with the list
                below, a heading that counts them reads better. */}
            <strong title={outcome.message}>{conflictHeading(outcome.message, outcome.conflicts.length)}</strong>
            {dismiss}
          </div>
          {outcome.conflicts.length > 0 && (
            <ul className="conflict-list">
              {outcome.conflicts.map((c) => (
                <li key={c.path} data-testid="restore-conflict" data-path={c.path}>
                  <code>{c.path}</code>: {c.reason}
                </li>
              ))}
            </ul>
          )}
        </div>
      );
    case "error":
      return (
        <div ref={ref} className="restore-notice form-error" role="alert" data-testid="restore-error">
          <div className="notice-head">
            <span>{outcome.message}</span>
            {dismiss}
          </div>
        </div>
      );
    case "done": {
      const paths = [...new Set(outcome.result.changes.map((c) => c.path))];
      const n = paths.length;
      return (
        <div ref={ref} className="restore-notice restore-done" role="status" data-testid="restore-done">
          <div className="notice-head">
            <span>
              {doneWord[outcome.action.kind]}: {n === 0 ? "no file needed changing" : `${n} file${n === 1 ? "" : "s"}`}.
            </span>
            {n > 0 && (
              <button
                type="button"
                disabled={!!act.blocked}
                title={act.blocked ?? "Take back what this restore just wrote"}
                onClick={() => act.run({ kind: "undo", op: outcome.result.op })}
              >
                Undo this
              </button>
            )}
            {dismiss}
          </div>
          {n > 0 && (
            <p className="muted notice-paths">
              {paths.slice(0, maxPaths).join(", ")}
              {n > maxPaths ? ` and ${n - maxPaths} more` : ""}
            </p>
          )}
        </div>
      );
    }
  }
}
