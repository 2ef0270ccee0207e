import { useContext, useState, type ReactNode } from "react";
import { useApp } from "../../store/context";
import type { Pane } from "../../store/store";
import { PaneContext } from "../../ui/PaneHeader";
import { Splitter } from "../../ui/Splitter";
import { maxRatio, minRatio, saveLayout, savedLayout, savedRatio, saveRatio, type Layout } from "./layoutPref";

const layouts: { mode: Layout; label: string; key: string }[] = [
  { mode: "transcript", label: "Transcript", key: "t" },
  { mode: "graph", label: "Graph", key: "g" },
  { mode: "both", label: "Both", key: "b" },
  { mode: "timeline", label: "Timeline", key: "w" },
];

type Props = {
  transcript: ReactNode;
  graph: ReactNode;
  timeline: ReactNode;
  files: ReactNode;
  // Distinct files the run changed, shown on the Files tab.
  filesCount: number;
};

// RunPanes shows a run's transcript, its graph, both side by side with a
// splitter between them, its timeline, or the files it changed. Which one is the store's,
// so a transcript card can open the Files tab and a change there can show
// its node in the graph; a maximised pane (the run view's) shows alone.
export function RunPanes({ transcript, graph, timeline, files, filesCount }: Props) {
  const [saved] = useState(savedLayout);
  const pane = useApp((s) => s.runView.pane) ?? saved;
  const showPane = useApp((s) => s.showPane);
  const { maximised, toggleMaximise } = useContext(PaneContext);
  const [ratio, setRatio] = useState(savedRatio);

  function choose(m: Pane) {
    if (maximised) toggleMaximise(maximised); // a chosen layout ends the maximised view
    showPane(m);
    saveLayout(m);
  }
  function resize(v: number) {
    setRatio(v);
    saveRatio(v);
  }

  const shown: Layout | "files" = maximised ?? pane;
  return (
    <>
      <div className="pane-switch" role="group" aria-label="Show">
        {layouts.map(({ mode: m, label, key }) => (
          <button
            key={m}
            type="button"
            aria-pressed={pane === m}
            className={pane === m ? "active" : undefined}
            title={`${label} (${key})`}
            onClick={() => choose(m)}
          >
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
      {shown === "files" ? (
        <div className="run-files">{files}</div>
      ) : shown === "timeline" ? (
        <div className="run-timeline">{timeline}</div>
      ) : (
        <div className={`run-panes run-panes-${shown}`} style={shown === "both" ? { ["--ratio" as string]: `${ratio}%` } : undefined}>
          {shown !== "graph" && transcript}
          {shown === "both" && (
            <Splitter
              value={ratio}
              min={minRatio}
              max={maxRatio}
              onChange={resize}
              label="Resize transcript and graph"
              data-testid="splitter"
            />
          )}
          {shown !== "transcript" && graph}
        </div>
      )}
    </>
  );
}
