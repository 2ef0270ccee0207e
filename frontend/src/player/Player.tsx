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
import { useStore } from "zustand";
import type { StoreApi } from "zustand/vanilla";
import { useApp } from "../store/context";
import { PaneContext, useMaximisedPane } from "../ui/PaneHeader";
import type { PlayerLoad } from "./boot";
import { PlayerBrowser } from "./PlayerBrowser";
import { PlayerHeader } from "./PlayerHeader";
import type { Recording } from "./recording";
import { TimelineBar } from "./TimelineBar";

type Props = {
  rec: Recording;
  session: StoreApi<PlayerLoad>;
  isEmbedded: (name: string) => boolean;
};

// Player is a recorded run laid out as the app's run view, read-only: the
// header with the run's facts and the replay bar, its plan and browser, the
// transcript and graph side by side (or the files it changed, with diffs),
// and the audit of its decisions. The views are the app's own, reading the
// app's store, which the replay bar moves through the log. While the page
// is still being read, a line says how far in place of the replay bar.
export function Player({ rec, session, isEmbedded }: Props) {
  const facts = useStore(session, (s) => s.facts);
  const playback = useStore(session, (s) => s.playback);
  const error = useStore(session, (s) => s.error);
  const runId = facts.runId;
  const filesCount = useApp((s) => s.stream.runs[runId]?.files.paths.length ?? 0);
  const panes = useMaximisedPane(); // Escape restores, as in the app
  const maximised = panes.maximised;

  if (error) return <PlayerError message={error} />;
  return (
    <div className="player">
      <main className="player-main">
        <PaneContext.Provider value={panes}>
          <div className={`run-view${maximised ? " run-view-maximised" : ""}`}>
            <PlayerHeader facts={facts} manifest={rec.manifest}>
              {playback ? <TimelineBar playback={playback} events={rec.events} /> : <LoadingBar session={session} />}
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

// LoadingBar says how much of the recording is read.
function LoadingBar({ session }: { session: StoreApi<PlayerLoad> }) {
  const loaded = useStore(session, (s) => s.loaded);
  const total = useStore(session, (s) => s.total);
  return (
    <div className="timeline" role="status" data-testid="recording-loading">
      Reading the recording: {loaded.toLocaleString("en")} of {total.toLocaleString("en")} events
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
