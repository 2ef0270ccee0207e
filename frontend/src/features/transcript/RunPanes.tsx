import { useState, type ReactNode } from "react";

type Mode = "transcript" | "graph" | "both";
const modes: { mode: Mode; label: string }[] = [
  { mode: "transcript", label: "Transcript" },
  { mode: "graph", label: "Graph" },
  { mode: "both", label: "Both" },
];

// The choice outlives the page: it is how this person likes to look at runs.
const storageKey = "steward.runPanes";

function initialMode(): Mode {
  try {
    const v = localStorage.getItem(storageKey);
    if (v === "transcript" || v === "graph" || v === "both") return v;
  } catch {
    // Storage off (private mode, tests): the default.
  }
  return "both";
}

// RunPanes shows a run's transcript, its graph, or both side by side.
export function RunPanes({ transcript, graph }: { transcript: ReactNode; graph: ReactNode }) {
  const [mode, setMode] = useState<Mode>(initialMode);
  function choose(m: Mode) {
    setMode(m);
    try {
      localStorage.setItem(storageKey, m);
    } catch {
      // Not kept: fine.
    }
  }
  return (
    <>
      <div className="pane-switch" role="group" aria-label="Show">
        {modes.map(({ mode: m, label }) => (
          <button key={m} type="button" aria-pressed={mode === m} className={mode === m ? "active" : undefined} onClick={() => choose(m)}>
            {label}
          </button>
        ))}
      </div>
      <div className={`run-panes run-panes-${mode}`}>
        {mode !== "graph" && transcript}
        {mode !== "transcript" && graph}
      </div>
    </>
  );
}
