import "./controls.css";
import { useEffect, useRef, useState } from "react";
import type { CommandType } from "../../api/types";
import { can, interrupted, title, type LiveRun } from "./liveRun";
import type { SendCommand } from "./useCommand";

type Props = { live: LiveRun; send: SendCommand; busy: boolean };

// RunControls are the header's buttons: Pause, Continue, Step and Cancel run,
// each enabled only when the run's capabilities hold its command, plus the
// keyboard shortcuts (p, s, ?) that work while no text field has the focus.
export function RunControls({ live, send, busy }: Props) {
  const [help, setHelp] = useState(false);

  // The listener is added once and reads the newest props through a ref:
  // the header re-renders on every streamed event.
  const latest = useRef({ live, send, busy });
  useEffect(() => {
    latest.current = { live, send, busy };
  });
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      if (e.ctrlKey || e.metaKey || e.altKey || e.repeat || typing(e.target)) return;
      const { live, send, busy } = latest.current;
      const act = (cmd: CommandType) => {
        e.preventDefault();
        if (!busy && can(live, cmd)) void send(cmd);
      };
      switch (e.key) {
        case "p":
          act(can(live, "continue") ? "continue" : "pause");
          return;
        case "s":
          act("step");
          return;
        case "?":
          e.preventDefault();
          setHelp((h) => !h);
          return;
        case "Escape":
          setHelp(false);
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
  // with the reason: the banner offers Retry call and Skip call instead.
  return (
    <div className="run-controls" role="group" aria-label="Run controls">
      {button("pause", "Pause")}
      {button("continue", "Continue", interrupted(live) ? "" : "primary-soft")}
      {button("step", "Step")}
      {button("cancel", "Cancel run", "danger")}
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
      {help && <ShortcutsHelp onClose={() => setHelp(false)} />}
    </div>
  );
}

function ShortcutsHelp({ onClose }: { onClose: () => void }) {
  return (
    <div className="shortcuts" role="dialog" aria-label="Keyboard shortcuts">
      <dl>
        <dt>
          <kbd>p</kbd>
        </dt>
        <dd>Pause, or continue a paused run</dd>
        <dt>
          <kbd>s</kbd>
        </dt>
        <dd>Step: one model or tool call, then pause</dd>
        <dt>
          <kbd>?</kbd>
        </dt>
        <dd>Show or hide this help</dd>
      </dl>
      <p className="muted">Keys work while no text field has the focus. Cancel has no key on purpose.</p>
      <button type="button" onClick={onClose}>
        Close
      </button>
    </div>
  );
}

// typing reports whether a key went to a place where it types text.
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag !== "INPUT") return false;
  const type = (target as HTMLInputElement).type;
  return !["button", "checkbox", "radio", "submit", "reset", "range", "color", "file"].includes(type);
}
