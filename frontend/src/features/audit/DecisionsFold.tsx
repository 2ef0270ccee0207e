import { useState } from "react";
import { useApp } from "../../store/context";
import { DecisionsPanel } from "./DecisionsPanel";

// DecisionsFold is the run's decisions as a line until opened, so the panes
// get the room. Hidden, not unmounted (nor a closed <details>, whose text
// the browser leaves out of innerText): the rows stay in the page.
export function DecisionsFold({ runId, hidden }: { runId: string; hidden: boolean }) {
  const count = useApp((s) => s.stream.runs[runId]?.decisions.length ?? 0);
  const [open, setOpen] = useState(false);
  return (
    <div className="decisions-fold" hidden={hidden}>
      <button type="button" className="decisions-toggle" aria-expanded={open} aria-controls="run-decisions" onClick={() => setOpen((o) => !o)}>
        <span aria-hidden="true">{open ? "▾" : "▸"}</span> Decisions <span className="count">{count}</span>
        <span className="muted"> · every automatic and human decision on this run's tool calls</span>
      </button>
      <div id="run-decisions" hidden={!open}>
        <DecisionsPanel runId={runId} />
      </div>
    </div>
  );
}
