import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from "react";

// PaneName is a pane of the run view that can be maximised.
export type PaneName = "transcript" | "graph";

export type PaneControls = {
  maximised?: PaneName;
  toggleMaximise: (pane: PaneName) => void;
};

// PaneContext is provided by the run view: which pane, if any, fills it.
export const PaneContext = createContext<PaneControls>({ toggleMaximise: () => {} });

// useMaximisedPane holds which pane of a run view fills it, for its
// PaneContext. Escape restores a maximised pane (a dialog or a search box
// that takes Escape keeps it to itself).
export function useMaximisedPane(): PaneControls {
  const [maximised, setMaximised] = useState<PaneName>();
  useEffect(() => {
    if (!maximised) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && !e.defaultPrevented) setMaximised(undefined);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [maximised]);
  return useMemo(() => ({ maximised, toggleMaximise: (p: PaneName) => setMaximised((m) => (m === p ? undefined : p)) }), [maximised]);
}

const titles: Record<PaneName, string> = { transcript: "Transcript", graph: "Graph" };

// PaneHeader is the bar on top of a pane: its name, its own tools, and the
// button that maximises it (or restores it; Escape restores too).
export function PaneHeader({ pane, children }: { pane: PaneName; children?: ReactNode }) {
  const { maximised, toggleMaximise } = useContext(PaneContext);
  const on = maximised === pane;
  const name = titles[pane];
  return (
    <div className="pane-head">
      <h2 className="pane-title">{name}</h2>
      {children}
      <button
        type="button"
        className="pane-max"
        data-testid={`maximise-${pane}`}
        aria-pressed={on}
        aria-label={on ? `Restore ${pane}` : `Maximise ${pane}`}
        title={on ? `Restore the ${pane} (Esc)` : `Maximise the ${pane}: the inbox and the run's controls stay (Esc restores)`}
        onClick={() => toggleMaximise(pane)}
      >
        <span aria-hidden="true">{on ? "⤡" : "⤢"}</span>
      </button>
    </div>
  );
}
