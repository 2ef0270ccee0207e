import "./controls.css";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type { CommandType } from "../../api/types";
import { useApp } from "../../store/context";
import { Dialog } from "../../ui/Dialog";
import { saveLayout } from "../transcript/layoutPref";
import { focusSearchEvent } from "../transcript/Transcript";
import { canForkFrom, useFork } from "./Fork";
import { terminalStatuses } from "../../store/status";
import { can, interrupted, title, type LiveRun } from "./liveRun";
import { moveApprovalFocus, pendingCardSelector, shortcutFor, shortcuts } from "./shortcuts";
import type { SendCommand } from "./useCommand";

type Props = { runId: string; live: LiveRun; send: SendCommand; busy: boolean };

// RunControls are the header's buttons: Pause, Continue, Step and Cancel run,
// each enabled only when the run's capabilities hold its command (a
// disabled one says why in its tooltip), plus the keyboard shortcuts of
// the run view (see shortcuts.ts), which act while no text field has the
// focus. The c key asks before it cancels; the button does not, it is
// already a deliberate click.
export function RunControls({ runId, live, send, busy }: Props) {
  const [help, setHelp] = useState(false);
  const [confirmCancel, setConfirmCancel] = useState(false);
  const [note, setNote] = useState<string>();
  const { fork, chooser } = useFork(runId);
  const showPane = useApp((s) => s.showPane);
  const pane = useApp((s) => s.runView.pane);
  const selected = useApp((s) => s.runView.node);
  const selectedStatus = useApp((s) => (selected ? s.stream.runs[runId]?.nodes[selected]?.status : undefined));

  // The listener is added once and reads the newest values through a ref:
  // the header re-renders on every streamed event. The ref is set as the
  // DOM is (a layout effect), not after the paint: a key pressed when a
  // button shows enabled again acts on what the button shows.
  const latest = useRef({ live, send, busy, fork, showPane, pane, selected, selectedStatus, dialog: false });
  useLayoutEffect(() => {
    latest.current = { live, send, busy, fork, showPane, pane, selected, selectedStatus, dialog: help || confirmCancel || !!chooser };
  });

  useEffect(() => {
    if (!note) return;
    const t = setTimeout(() => setNote(undefined), 4000);
    return () => clearTimeout(t);
  }, [note]);

  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      const cur = latest.current;
      if (e.key === "Escape") {
        setHelp(false);
        return;
      }
      const action = shortcutFor(e);
      if (!action) return;
      e.preventDefault();
      if (cur.dialog && action !== "help") return;
      const { live, send, busy } = cur;
      const act = (cmd: CommandType) => {
        if (!busy && can(live, cmd)) void send(cmd);
      };
      switch (action) {
        case "pauseOrContinue":
          act(can(live, "continue") ? "continue" : "pause");
          return;
        case "step":
          act("step");
          return;
        case "cancel":
          if (can(live, "cancel")) setConfirmCancel(true);
          return;
        case "fork":
          if (!cur.selected) setNote("Select a finished node in the graph first, then press f.");
          else if (!canForkFrom(cur.selectedStatus) || !can(live, "fork")) setNote("That node cannot be forked from: only a finished one can.");
          else void cur.fork(cur.selected);
          return;
        case "search":
          // The search box is the transcript's: show it first if hidden.
          if (cur.pane === "graph" || cur.pane === "timeline" || cur.pane === "files") {
            cur.showPane("both");
            saveLayout("both");
            requestAnimationFrame(() => window.dispatchEvent(new Event(focusSearchEvent)));
          } else {
            window.dispatchEvent(new Event(focusSearchEvent));
          }
          return;
        case "transcript":
        case "graph":
        case "both":
        case "timeline":
          cur.showPane(action);
          saveLayout(action);
          return;
        case "nextApproval":
        case "prevApproval":
          if (!moveApprovalFocus(document, action === "nextApproval" ? 1 : -1)) setNote("Nothing waits for your approval.");
          return;
        case "approve":
        case "deny":
        case "edit":
          // The focused approval card takes these itself (ApprovalCard).
          if (!(document.activeElement as HTMLElement | null)?.closest(pendingCardSelector)) {
            setNote("Focus an approval first: press j.");
          }
          return;
        case "help":
          setHelp((h) => !h);
          return;
      }
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const button = (cmd: CommandType, label: string, className = "") => (
    <button
      type="button"
      className={className}
      disabled={busy || !can(live, cmd)}
      title={title(cmd, live)}
      onClick={() => void send(cmd)}
    >
      {label}
    </button>
  );

  // Continue and Step stay visible while an interrupted call waits, disabled
  // with the reason: the banner offers Retry call and Skip call instead. A
  // finished run can never take them again, so they go: what it still
  // offers (export, fork, a follow-up) is elsewhere in the view.
  const ended = terminalStatuses.has(live.status);
  return (
    <div className="run-controls" role="group" aria-label="Run controls">
      {!ended && (
        <>
          {button("pause", "Pause")}
          {button("continue", "Continue", interrupted(live) ? "" : "primary-soft")}
          {button("step", "Step")}
          {button("cancel", "Cancel run", "danger")}
        </>
      )}
      <button
        type="button"
        className="shortcut-toggle"
        aria-label="Keyboard shortcuts"
        aria-expanded={help}
        title="Keyboard shortcuts (?)"
        onClick={() => setHelp((h) => !h)}
      >
        ?
      </button>
      {note && (
        <span className="controls-note" role="status">
          {note}
        </span>
      )}
      {help && <ShortcutsHelp onClose={() => setHelp(false)} />}
      {chooser}
      {confirmCancel && (
        <Dialog title="Cancel this run?" onClose={() => setConfirmCancel(false)} data-testid="cancel-dialog">
          <p>The run stops: its current call is cancelled. You can still continue it later with a follow-up message, or fork it.</p>
          <div className="dialog-actions">
            <button type="button" data-autofocus onClick={() => setConfirmCancel(false)}>
              Keep it running
            </button>
            <button
              type="button"
              className="danger"
              data-testid="confirm-cancel"
              disabled={busy || !can(live, "cancel")}
              onClick={() => {
                setConfirmCancel(false);
                void send("cancel");
              }}
            >
              Cancel the run
            </button>
          </div>
        </Dialog>
      )}
    </div>
  );
}

function ShortcutsHelp({ onClose }: { onClose: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose} data-testid="shortcuts-dialog">
      <dl className="shortcuts">
        {shortcuts.map((s) => (
          <div key={s.key} className="shortcut-row">
            <dt>
              <kbd>{s.key}</kbd>
            </dt>
            <dd>{s.text}</dd>
          </div>
        ))}
        <div className="shortcut-row">
          <dt>
            <kbd>Esc</kbd>
          </dt>
          <dd>Close a dialog, restore a maximised pane, clear the search</dd>
        </div>
      </dl>
      <p className="muted">The keys act while no text field has the focus.</p>
      <div className="dialog-actions">
        <button type="button" data-autofocus onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
