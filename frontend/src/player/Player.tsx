import "../features/transcript/transcript.css";
import "./player.css";
import { DecisionsFold } from "../features/audit/DecisionsFold";
import { DivergenceBanner } from "../features/exchange/ReplayNotice";
import { FilesView } from "../features/files/FilesView";
import { GraphPanel } from "../features/graph/GraphPanel";
import { PlanPanel } from "../features/plan/PlanPanel";
import { TimelinePanel } from "../features/timeline/TimelinePanel";
import { RunPanes } from "../features/transcript/RunPanes";
import { Transcript } from "../features/transcript/Transcript";
import { useApp } from "../store/context";
import { PaneContext, useMaximisedPane } from "../ui/PaneHeader";
import type { RunFacts } from "./facts";
import type { Playback } from "./playback";
import { PlayerBrowser } from "./PlayerBrowser";
import { PlayerHeader } from "./PlayerHeader";
import type { Recording } from "./recording";
import { TimelineBar } from "./TimelineBar";

type Props = {
  rec: Recording;
  facts: RunFacts;
  playback: Playback;
  isEmbedded: (name: string) => boolean;
};

// Player is a recorded run laid out as the app's run view, read-only: the
// header with the run's facts and the replay bar, its plan and browser, the
// transcript and graph side by side (or the files it changed, with diffs),
// and the audit of its decisions. The views are the app's own, reading the
// app's store, which the replay bar moves through the log.
export function Player({ rec, facts, playback, isEmbedded }: Props) {
  const runId = facts.runId;
  const filesCount = useApp((s) => s.stream.runs[runId]?.files.paths.length ?? 0);
  const panes = useMaximisedPane(); // Escape restores, as in the app
  const maximised = panes.maximised;

  return (
    <div className="player">
      <main className="player-main">
        <PaneContext.Provider value={panes}>
          <div className={`run-view${maximised ? " run-view-maximised" : ""}`}>
            <PlayerHeader facts={facts} manifest={rec.manifest}>
              <TimelineBar playback={playback} events={rec.events} />
              <DivergenceBanner runId={runId} />
            </PlayerHeader>
            {!maximised && <PlanPanel runId={runId} />}
            {!maximised && <PlayerBrowser runId={runId} omitted={rec.omitted} isEmbedded={isEmbedded} />}
            <RunPanes
              transcript={<Transcript runId={runId} />}
              graph={<GraphPanel runId={runId} replay />}
              timeline={<TimelinePanel runId={runId} replay />}
              files={<FilesView runId={runId} />}
              filesCount={filesCount}
            />
            <DecisionsFold runId={runId} hidden={!!maximised} />
          </div>
        </PaneContext.Provider>
      </main>
    </div>
  );
}

// PlayerError is the page when it holds no recording it can show.
export function PlayerError({ message }: { message: string }) {
  return (
    <div className="player player-error" role="alert">
      <h1>Steward recording</h1>
      <p>{message}</p>
    </div>
  );
}
