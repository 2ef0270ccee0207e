import "./browser.css";
import { useApp, useServices } from "../../store/context";
import type { ArtifactRecord, TranscriptNode } from "../../store/reducer";
import { bytes, isBrowserNode, pageInfo } from "./browser";
import { Shot } from "./Shot";

// NodeArtifacts is what a node's details show of the browser: the page a
// browser call left the browser on and the screenshots it took (each opens
// full size in a new tab), and any other file the node produced. The
// call's snapshot is its output, which the details show below, scrollable.
// The node may be the one recorded by the server: the screenshots come
// from the live stream too, so one announced after the record was fetched
// still shows.
export function NodeArtifacts({ runId, n }: { runId: string; n: TranscriptNode }) {
  const live = useApp((s) => s.stream.runs[runId]?.nodes[n.id]?.artifacts);
  const artifacts = (live?.length ?? 0) >= (n.artifacts?.length ?? 0) ? live : n.artifacts;
  const page = isBrowserNode(n) && n.status === "succeeded" ? pageInfo(n) : undefined;
  const shots = artifacts?.filter((a) => a.kind === "screenshot") ?? [];
  const files = artifacts?.filter((a) => a.kind !== "screenshot") ?? [];
  if (!page?.url && !page?.title && shots.length === 0 && files.length === 0) return null;

  return (
    <div className="node-block node-artifacts" data-testid="node-artifacts">
      {(page?.url || page?.title) && (
        <>
          <h3>Page</h3>
          <PageLine url={page.url} title={page.title} />
        </>
      )}
      {shots.length > 0 && (
        <>
          <h3>{shots.length === 1 ? "Screenshot" : `Screenshots (${shots.length})`}</h3>
          <div className="shot-row">
            {shots.map((a) => (
              <Shot key={a.name} runId={runId} shot={a} size="medium" caption={a.description} />
            ))}
          </div>
        </>
      )}
      {files.length > 0 && (
        <>
          <h3>Files</h3>
          <ul className="artifact-files">
            {files.map((a) => (
              <ArtifactLine key={a.name} runId={runId} a={a} />
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

// PageLine is a page's title and URL; the URL is text, not a link: the
// page is the agent's, and may be one a person should not open blindly.
export function PageLine({ url, title }: { url?: string; title?: string }) {
  return (
    <p className="browser-page" data-testid="browser-page">
      {title && <span className="browser-title">{title}</span>}
      {url && <code className="browser-url">{url}</code>}
    </p>
  );
}

// ArtifactLine is one file; a recording's unencoded frames are a folder,
// not a file to open, and their description says what to install.
function ArtifactLine({ runId, a }: { runId: string; a: ArtifactRecord }) {
  const { api } = useServices();
  return (
    <li>
      <span className="artifact-kind">{a.kind}</span>{" "}
      {a.kind === "frames" ? (
        <code>{a.name}</code>
      ) : (
        <a href={api.artifactUrl(runId, a.name)} target="_blank" rel="noopener noreferrer" aria-label={`Open ${a.name} in a new tab`}>
          {a.name}
        </a>
      )}{" "}
      {a.size > 0 && <span className="muted">{bytes(a.size)}</span>}
      {a.description && <span className="muted"> · {a.description}</span>}
    </li>
  );
}
