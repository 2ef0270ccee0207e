import "../features/browser/browser.css";
import { useId, useMemo, useState } from "react";
import { bytes, hasBrowserActivity, lastPageNode, latestArtifact, pageInfo } from "../features/browser/browser";
import { PageLine } from "../features/browser/NodeArtifacts";
import { Shot } from "../features/browser/Shot";
import { useApp, useServices } from "../store/context";
import type { OmittedArtifact } from "./recording";

// PlayerBrowser is the Browser panel of a recording. The app's panel polls
// the live browser while a run is live; a recording has no live browser, so
// this one shows, at the event shown, the latest screenshot taken so far,
// and once the run made it, the browser's video (or the note that says the
// video was left out of the page, and how to get it).
export function PlayerBrowser({ runId, omitted, isEmbedded }: { runId: string; omitted: readonly OmittedArtifact[]; isEmbedded: (name: string) => boolean }) {
  const used = useApp((s) => hasBrowserActivity(s.stream.runs[runId]));
  if (!used) return null;
  return <Body runId={runId} omitted={omitted} isEmbedded={isEmbedded} />;
}

function Body({ runId, omitted, isEmbedded }: { runId: string; omitted: readonly OmittedArtifact[]; isEmbedded: (name: string) => boolean }) {
  const { api } = useServices();
  const artifacts = useApp((s) => s.stream.runs[runId]?.artifacts);
  const pageNode = useApp((s) => lastPageNode(s.stream.runs[runId]));
  const [open, setOpen] = useState(true);
  const bodyId = useId();

  const page = useMemo(() => (pageNode ? pageInfo(pageNode) : {}), [pageNode]);
  const shot = latestArtifact(artifacts, "screenshot");
  const video = latestArtifact(artifacts, "video");
  const frames = latestArtifact(artifacts, "frames");
  const left = video ? omitted.find((o) => o.name === video.name) : undefined;
  const playable = video && isEmbedded(video.name) ? video : undefined;

  return (
    <section className="browser-panel" aria-label="Browser" data-testid="browser-panel">
      <button type="button" className="browser-toggle" aria-expanded={open} aria-controls={bodyId} onClick={() => setOpen((o) => !o)}>
        <span aria-hidden="true">{open ? "▾" : "▸"}</span> Browser
        {video && <span className="browser-badge">recording</span>}
        {!open && (page.title || page.url) && <span className="browser-toggle-page muted"> · {page.title || page.url}</span>}
      </button>
      <div id={bodyId} className="browser-body" hidden={!open}>
        <div className="browser-media">
          {playable ? (
            <video
              className="browser-video"
              controls
              preload="metadata"
              src={api.artifactUrl(runId, playable.name)}
              aria-label="Recording of the run's browser"
              data-testid="browser-video"
            />
          ) : shot ? (
            <Shot runId={runId} shot={shot} size="medium" caption={video ? "Last screenshot" : "Latest screenshot at this point of the run"} />
          ) : (
            <p className="browser-empty muted" data-testid="browser-empty">
              No screenshot yet at this point of the run.
            </p>
          )}
        </div>
        <div className="browser-facts">
          {(page.url || page.title) && <PageLine url={page.url} title={page.title} />}
          {playable && (
            <p className="muted">
              Recording{" "}
              <a href={api.artifactUrl(runId, playable.name)} download={playable.name.split("/").pop()} aria-label={`Download the recording ${playable.name}`}>
                {playable.name}
              </a>{" "}
              ({bytes(playable.size)}){playable.description ? ` · ${playable.description}` : ""}
            </p>
          )}
          {left && (
            <p className="browser-note" role="note" data-testid="video-left-out">
              <strong>The browser video is not in this page.</strong> {left.note}
            </p>
          )}
          {frames && !video && (
            <p className="browser-note" role="note" data-testid="browser-frames">
              <strong>The recording was not made into a video.</strong> {frames.description || "Its frames were kept on the machine that ran it."}
            </p>
          )}
        </div>
      </div>
    </section>
  );
}
