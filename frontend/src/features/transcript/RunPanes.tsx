import { useState, type ReactNode } from "react";
import { useApp } from "../../store/context";
import type { Pane } from "../../store/store";

type Layout = Exclude<Pane, "files">;
const layouts: { mode: Layout; label: string }[] = [
  { mode: "transcript", label: "Transcript" },
  { mode: "graph", label: "Graph" },
  { mode: "both", label: "Both" },
];

// The layout outlives the page: it is how this person likes to look at runs.
// The Files tab is not kept: it is a review one goes to, not a way of
// watching runs.
const storageKey = "steward.runPanes";

function savedLayout(): Layout {
  try {
    const v = localStorage.getItem(storageKey);
    if (v === "transcript" || v === "graph" || v === "both") return v;
  } catch {
    // Storage off (private mode, tests): the default.
  }
  return "both";
}

type Props = {
  transcript: ReactNode;
  graph: ReactNode;
  files: ReactNode;
  // Distinct files the run changed, shown on the Files tab.
  filesCount: number;
};

// RunPanes shows a run's transcript, its graph, both side by side, or the
// files it changed. Which one is the store's, so a transcript card can open
// the Files tab and a change there can show its node in the graph.
export function RunPanes({ transcript, graph, files, filesCount }: Props) {
  const [saved] = useState(savedLayout);
  const pane = useApp((s) => s.runView.pane) ?? saved;
  const showPane = useApp((s) => s.showPane);
  function choose(m: Pane) {
    showPane(m);
    if (m === "files") return;
    try {
      localStorage.setItem(storageKey, m);
    } catch {
      // Not kept: fine.
    }
  }
  return (
    <>
      <div className="pane-switch" role="group" aria-label="Show">
        {layouts.map(({ mode: m, label }) => (
          <button key={m} type="button" aria-pressed={pane === m} className={pane === m ? "active" : undefined} onClick={() => choose(m)}>
            {label}
          </button>
        ))}
        <button
          type="button"
          data-testid="files-tab"
          aria-pressed={pane === "files"}
          className={pane === "files" ? "active" : undefined}
          onClick={() => choose("files")}
          title={filesCount ? `${filesCount} file${filesCount === 1 ? "" : "s"} changed in this run` : "No file changed in this run yet"}
        >
          Files
          {filesCount > 0 && (
            <span className="pane-count" data-testid="files-count" aria-label={`${filesCount} changed`}>
              {filesCount}
            </span>
          )}
        </button>
      </div>
      {pane === "files" ? (
        files
      ) : (
        <div className={`run-panes run-panes-${pane}`}>
          {pane !== "graph" && transcript}
          {pane !== "transcript" && graph}
        </div>
      )}
    </>
  );
}
