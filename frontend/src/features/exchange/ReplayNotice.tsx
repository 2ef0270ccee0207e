import "./exchange.css";
import { useApp } from "../../store/context";
import type { Divergence } from "../../store/reducer";
import { selectRun } from "../../store/store";

// How much of a recorded or replayed value a sentence shows; the whole is in
// its title and under "Both values in full".
const shown = 200;

// clip is a value on one line, cut to max characters with an ellipsis.
export function clip(v: string, max = shown): string {
  const s = v.replace(/\s+/g, " ").trim();
  return s.length > max ? s.slice(0, max - 1) + "…" : s;
}

// useReplayOf is the run a run replays: the REST copy's replay_of, or its
// run.created's before the copy arrives.
function useReplayOf(runId: string): string | undefined {
  return useApp((s) => selectRun(s, runId)?.replay_of || s.stream.runs[runId]?.replayOf);
}

// ReplayOf names the run a replay replays: a link that opens it when this
// Steward has it, else its id as text (a recording made elsewhere, replayed
// by `steward replay FILE`).
export function ReplayOf({ runId }: { runId: string }) {
  const src = useReplayOf(runId);
  const known = useApp((s) => !!src && (s.runs.some((r) => r.id === src) || !!s.runDetail[src]));
  const select = useApp((s) => s.select);
  if (!src) return null;
  return (
    <span className="replay-of" data-testid="replay-of">
      replay of{" "}
      {known ? (
        <button type="button" className="link run-link" aria-label={`Open run ${src}`} title="Open the run this one replays" onClick={() => select(src)}>
          {src}
        </button>
      ) : (
        <code title="recorded elsewhere">{src}</code>
      )}
    </span>
  );
}

// DivergenceBanner says where a replay first sent the model something other
// than its recording did. Information, not a failure: the run went on. It
// shows nothing before that (or ever, for a replay that kept to its
// recording).
export function DivergenceBanner({ runId }: { runId: string }) {
  const d = useApp((s) => s.stream.runs[runId]?.diverged);
  if (!d) return null;
  const long = clip(d.recorded) !== d.recorded || clip(d.got) !== d.got;
  return (
    <section className="run-banner banner-diverged" aria-label="Replay diverged" data-testid="replay-diverged">
      <p className="diverged-text">
        This replay diverged from its recording at model call {d.step}: <code>{d.field}</code> — recorded “
        <span className="diverged-value" data-testid="diverged-recorded" title={d.recorded}>
          {clip(d.recorded)}
        </span>
        ”, got “
        <span className="diverged-value" data-testid="diverged-got" title={d.got}>
          {clip(d.got)}
        </span>
        ”
      </p>
      {long && (
        <details className="diverged-full">
          <summary>Both values in full</summary>
          <FullValues d={d} />
        </details>
      )}
    </section>
  );
}

function FullValues({ d }: { d: Divergence }) {
  return (
    <dl>
      <dt>Recorded</dt>
      <dd>
        <pre>{d.recorded}</pre>
      </dd>
      <dt>Got</dt>
      <dd>
        <pre>{d.got}</pre>
      </dd>
    </dl>
  );
}

// DivergenceRow marks in the transcript where the replay diverged: after
// the node that started last before the difference was found.
export function DivergenceRow({ runId }: { runId: string }) {
  const d = useApp((s) => s.stream.runs[runId]?.diverged);
  if (!d) return null;
  return (
    <div className="t-diverged" role="note" data-testid="transcript-diverged" title={`recorded “${clip(d.recorded)}”, got “${clip(d.got)}”`}>
      Diverged from the recording here, at model call {d.step}: <code>{d.field}</code>
    </div>
  );
}
