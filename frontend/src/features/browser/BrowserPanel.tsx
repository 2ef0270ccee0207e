import "./browser.css";
import { useId, useMemo, useState } from "react";
import { artifactUrl, browserFrameUrl } from "../../api/client";
import { useApp, useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";
import type { ArtifactRecord } from "../../store/reducer";
import { terminalStatuses } from "../../store/status";
import { selectRun } from "../../store/store";
import { liveRun } from "../controls/liveRun";
import { browserNodeIds, bytes, hasBrowserActivity, lastBrowserNode, lastPageNode, latestArtifact, pageInfo } from "./browser";
import { PageLine } from "./NodeArtifacts";
import { Shot } from "./Shot";
import { framePollMs, useBrowserFrame, type FrameState } from "./useBrowserFrame";

// BrowserPanel shows the run's browser, between its plan and its panes,
// once the run used it (a browser call or a file produced): while the run
// is live, the browser's screen (its latest screencast frame, polled about
// once a second, or the latest screenshot when there is no frame); once
// it ended, the recording's video, or the last screenshot; the page it is
// on; and, when the recording could not be encoded, what to install. A
// line until opened, like the decisions; closed, it asks the server
// nothing.
export function BrowserPanel({ runId }: { runId: string }) {
  const used = useApp((s) => hasBrowserActivity(s.stream.runs[runId]));
  if (!used) return null;
  return <BrowserPanelBody runId={runId} />;
}

function BrowserPanelBody({ runId }: { runId: string }) {
  const status = useApp((s) => liveRun(selectRun(s, runId), s.stream.runs[runId]).status);
  const artifacts = useApp((s) => s.stream.runs[runId]?.artifacts);
  const pageNode = useApp((s) => lastPageNode(s.stream.runs[runId]));
  const acting = useApp((s) => {
    const n = lastBrowserNode(s.stream.runs[runId]);
    return n && (n.status === "running" || n.status === "waiting") ? n : undefined;
  });
  const [open, setOpen] = useState(true);
  const bodyId = useId();

  const ended = terminalStatuses.has(status);
  // A browser call starting or ending wakes a poll a 404 stopped; a run
  // that waits for a person or is paused moves nothing: polled slowly.
  const wake = useApp((s) => {
    const t = s.stream.runs[runId];
    return t ? `${browserNodeIds(t).length}:${lastBrowserNode(t)?.status ?? ""}` : "";
  });
  const still = status === "waiting" || status === "paused";
  const frame = useBrowserFrame(runId, open && !ended, still ? 5 * framePollMs : framePollMs, wake);
  const page = useMemo(() => (pageNode ? pageInfo(pageNode) : {}), [pageNode]);
  const shot = latestArtifact(artifacts, "screenshot");
  const video = latestArtifact(artifacts, "video");
  const frames = latestArtifact(artifacts, "frames");
  const live = frame.kind === "frame" || (frame.kind === "error" && !!frame.src);

  return (
    <section className="browser-panel" aria-label="Browser" data-testid="browser-panel">
      <button
        type="button"
        className="browser-toggle"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen((o) => !o)}
      >
        <span aria-hidden="true">{open ? "▾" : "▸"}</span> Browser
        {live && <span className="browser-badge browser-badge-live">live</span>}
        {video && <span className="browser-badge">recording</span>}
        {!open && (page.title || page.url) && <span className="browser-toggle-page muted"> · {page.title || page.url}</span>}
      </button>
      <div id={bodyId} className="browser-body" hidden={!open}>
        <div className="browser-media">
          <Screen runId={runId} ended={ended} frame={frame} shot={shot} video={video} />
        </div>
        <div className="browser-facts">
          {(page.url || page.title) && <PageLine url={page.url} title={page.title} />}
          {acting && (
            <p className="muted" data-testid="browser-acting">
              Now: <code>{acting.tool}</code> ({acting.status === "waiting" ? "waiting for approval" : "running"})
            </p>
          )}
          {video && (
            <p className="muted">
              Recording{" "}
              <a href={artifactUrl(runId, video.name)} download aria-label={`Download the recording ${video.name}`}>
                {video.name}
              </a>{" "}
              ({bytes(video.size)}){video.description ? ` · ${video.description}` : ""}
            </p>
          )}
          {!ended && live && <SoFar runId={runId} />}
          {frames && !video && (
            <p className="browser-note" role="note" data-testid="browser-frames">
              <strong>The recording was not made into a video.</strong>{" "}
              {frames.description || "Its frames were kept: install ffmpeg to make them a video."}
            </p>
          )}
        </div>
      </div>
    </section>
  );
}

// Screen is the panel's picture: the live frame while the run is live, the
// recording once it ended, otherwise the latest screenshot, or a sentence
// saying why there is nothing to show yet.
function Screen({
  runId,
  ended,
  frame,
  shot,
  video,
}: {
  runId: string;
  ended: boolean;
  frame: FrameState;
  shot?: ArtifactRecord;
  video?: ArtifactRecord;
}) {
  const src = frame.kind === "frame" || frame.kind === "error" ? frame.src : undefined;
  if (!ended && src) {
    const time = frame.kind === "frame" ? frame.time : undefined;
    return (
      <figure className="shot shot-medium" data-testid="browser-live">
        <a href={browserFrameUrl(runId)} target="_blank" rel="noopener noreferrer" aria-label="Open the browser's latest frame in a new tab">
          <img src={src} alt="The run's browser, live" />
        </a>
        <figcaption className="muted">
          {frame.kind === "error" ? `Live view stalled: ${frame.message}. Retrying…` : `Live${time ? ` · ${new Date(time).toLocaleTimeString()}` : ""}`}
        </figcaption>
      </figure>
    );
  }
  if (video) {
    return (
      <video
        className="browser-video"
        controls
        preload="metadata"
        src={artifactUrl(runId, video.name)}
        aria-label="Recording of the run's browser"
        data-testid="browser-video"
      />
    );
  }
  if (shot) {
    const caption = ended ? "Last screenshot" : `Latest screenshot · ${frameNote(frame)}`;
    return <Shot runId={runId} shot={shot} size="medium" caption={caption} />;
  }
  return (
    <p className="browser-empty muted" data-testid="browser-empty" role={frame.kind === "error" ? "status" : undefined}>
      {ended ? "The run ended without a screenshot or a recording." : frameWhy(frame)}
    </p>
  );
}

// frameWhy says why a live run shows no live frame, and nothing else.
function frameWhy(frame: FrameState): string {
  switch (frame.kind) {
    case "none":
      return "No live frame yet: the browser shows here once the agent opens a page.";
    case "error":
      return `Could not load the live view (${frame.message}); retrying every second.`;
    default:
      return "Connecting to the live view…";
  }
}

// frameNote says, under a screenshot shown instead, why there is no live frame.
function frameNote(frame: FrameState): string {
  switch (frame.kind) {
    case "none":
      return "no live frame";
    case "error":
      return `live view unavailable (${frame.message})`;
    default:
      return "connecting to the live view…";
  }
}

// SoFar makes a video of the recording as it is now, for a person who wants
// to see the work before the run ends.
function SoFar({ runId }: { runId: string }) {
  const { api } = useServices();
  const [state, setState] = useState<{ busy?: boolean; url?: string; error?: string }>({});
  const make = async () => {
    setState({ busy: true });
    try {
      const a = await api.recordingSoFar(runId);
      // The same name each time: the time makes the browser fetch it anew.
      setState({ url: `${artifactUrl(runId, a.name)}?t=${Date.now()}` });
    } catch (err) {
      setState({ error: errorMessage(err) });
    }
  };
  return (
    <div className="browser-so-far">
      <button type="button" disabled={state.busy} onClick={() => void make()} data-testid="browser-so-far">
        {state.busy ? "Making the video…" : "Video of the work so far"}
      </button>
      {state.url && (
        <video src={state.url} controls preload="metadata" className="shot shot-medium" aria-label="Video of the run's browser so far" />
      )}
      {state.error && (
        <p className="form-error" role="alert">
          {state.error}
        </p>
      )}
    </div>
  );
}
