import "./browser.css";
import { useState, type ReactNode } from "react";
import { useServices } from "../../store/context";
import type { ArtifactRecord, TranscriptNode } from "../../store/reducer";
import { latestArtifact } from "./browser";

// Shot is a screenshot the run kept, as a link that opens it full size in
// a new tab: a thumbnail in a transcript card, larger in the node details
// and the browser panel. Its height is fixed by its size class, so a list
// of cards does not move when the image arrives.
export function Shot({
  runId,
  shot,
  size,
  caption,
}: {
  runId: string;
  shot: ArtifactRecord;
  size: "thumb" | "medium";
  caption?: ReactNode;
}) {
  const url = useServices().api.artifactUrl(runId, shot.name);
  const [failed, setFailed] = useState(false);
  return (
    <figure className={`shot shot-${size}`} data-testid="screenshot" data-name={shot.name}>
      <a
        href={url}
        target="_blank"
        rel="noopener noreferrer"
        aria-label={`Open screenshot ${shot.name} full size in a new tab`}
        title="Open full size in a new tab"
      >
        {failed ? (
          <span className="shot-missing">Screenshot {shot.name} could not be loaded</span>
        ) : (
          <img src={url} alt={shot.description || `Screenshot ${shot.name}`} loading="lazy" onError={() => setFailed(true)} />
        )}
      </a>
      {caption && <figcaption className="muted">{caption}</figcaption>}
    </figure>
  );
}

// ToolScreenshot is the thumbnail of the screenshot a tool call took, for
// its transcript card; nothing when it took none.
export function ToolScreenshot({ runId, n }: { runId: string; n: TranscriptNode }) {
  const shot = latestArtifact(n.artifacts, "screenshot");
  if (!shot) return null;
  return <Shot runId={runId} shot={shot} size="thumb" />;
}
