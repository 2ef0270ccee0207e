import type { ReactNode } from "react";
import { useApp } from "../store/context";
import { duration } from "../ui/format";
import { DemoLabel, StatusBadge } from "../ui/StatusBadge";
import type { RunFacts } from "./facts";
import type { Manifest } from "./recording";

// Instructions longer than this show their start, and open to the rest.
const shortInstructions = 180;

// PlayerHeader is the recording's header: the run's status at the event
// shown (as the app's header would have shown it then), the facts of the
// whole run, who recorded it and when, what was redacted, and the replay
// bar below.
export function PlayerHeader({ facts, manifest, children }: { facts: RunFacts; manifest?: Manifest | null; children: ReactNode }) {
  const status = useApp((s) => s.stream.runs[facts.runId]?.status) ?? "queued";
  const model = facts.demo ? "none (demo script)" : [facts.provider, facts.model].filter(Boolean).join("/") || "unknown";
  const redacted = (manifest?.redactions ?? []).reduce((sum, r) => sum + r.count, 0);
  return (
    <header className={`run-header player-header run-header-${status}`}>
      <div className="run-header-main">
        <StatusBadge status={status} data-testid="run-status" className="large" title="The run's status at the event shown" />
        <h1>{facts.agentName || "Run"}</h1>
        {facts.demo && <DemoLabel />}
        <span className="player-badge" title="A recording of a run: it replays, it cannot be changed">
          Recording
        </span>
        <code className="run-id">{facts.runId}</code>
        <span className="spacer" />
        <span className="player-made muted" data-testid="recorded-with">
          {recordedWith(manifest)}
        </span>
      </div>
      <dl className="run-facts" data-testid="run-facts">
        <dt>Model</dt>
        <dd>{model}</dd>
        <dt>Outcome</dt>
        <dd>
          {facts.status}
          {facts.reason ? `: ${facts.reason}` : ""}
        </dd>
        <dt>Started</dt>
        <dd>{facts.startedAt ? new Date(facts.startedAt).toLocaleString() : "—"}</dd>
        <dt>Took</dt>
        <dd>{duration(facts.endedAt - facts.startedAt)}</dd>
        <dt>Steps</dt>
        <dd>{facts.steps}</dd>
        <dt>Tokens</dt>
        <dd>
          {facts.inputTokens} in / {facts.outputTokens} out
          {facts.costUsd ? ` · $${facts.costUsd.toFixed(4)}` : ""}
        </dd>
        <dt>Workspace</dt>
        <dd>
          <code>{facts.workspace}</code>
        </dd>
        {facts.forkedFrom ? (
          <>
            <dt>Fork of</dt>
            <dd>
              <code>{facts.forkedFrom}</code>
            </dd>
          </>
        ) : (
          <>
            <dt>Mode</dt>
            <dd>
              {facts.mode || "—"}
              {facts.unattended ? " · unattended" : ""}
            </dd>
          </>
        )}
        {facts.replayOf && (
          <>
            <dt>Replay of</dt>
            <dd>
              <code>{facts.replayOf}</code>
            </dd>
          </>
        )}
        <dt>Instructions</dt>
        <dd className="player-instructions" data-testid="run-instructions">
          <Instructions text={facts.instructions} />
        </dd>
      </dl>
      {redacted > 0 && (
        <p className="player-redacted muted" title={(manifest?.redactions ?? []).map((r) => `${r.count} ${r.kind} in ${r.where}`).join("\n")}>
          {redacted} secret{redacted === 1 ? " was" : "s were"} removed before this recording left the machine (shown as [REDACTED:…]).
        </p>
      )}
      {children}
    </header>
  );
}

function Instructions({ text }: { text: string }) {
  if (text.length <= shortInstructions && !text.includes("\n")) return <>{text || "—"}</>;
  return (
    <details>
      <summary>{text.slice(0, shortInstructions).split("\n")[0]}…</summary>
      <p className="player-instructions-all">{text}</p>
    </details>
  );
}

// recordedWith says which Steward made the recording, and when.
function recordedWith(m: Manifest | null | undefined): string {
  const version = m?.steward ? ` ${m.steward}` : "";
  const when = m?.created_at ? ` on ${new Date(m.created_at).toLocaleString()}` : "";
  return `Recorded with Steward${version}${when}`;
}
