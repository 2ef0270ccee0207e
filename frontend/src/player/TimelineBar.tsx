import { useEffect, useSyncExternalStore } from "react";
import type { Event } from "../api/types";
import { fastFrames, type Playback } from "./playback";
import { baseRate, maxGapMs, speedLabel, speeds, type Speed } from "./timeline";

// TimelineBar replays the run: a scrubber over its events (dragged, the
// views show the run as it was at that event), play and pause, a step back
// and forward, and the speed. Space plays or pauses; with the scrubber
// focused, the arrow keys step.
export function TimelineBar({ playback, events }: { playback: Playback; events: readonly Event[] }) {
  const st = useSyncExternalStore(playback.subscribe, playback.getState);
  const n = playback.length;
  const e = events[st.at - 1];
  const start = events[0]?.ts ?? 0;

  useEffect(() => {
    const onKey = (ev: KeyboardEvent) => {
      if (ev.key !== " " || ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey) return;
      // Space types a space or presses the focused control: only elsewhere does it play.
      const el = ev.target as HTMLElement | null;
      if (el?.closest("input, textarea, select, button, summary, [contenteditable=true], a")) return;
      ev.preventDefault();
      playback.toggle();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [playback]);

  const where = e ? `${e.type}${e.node_id ? ` · ${e.node_id}` : ""}` : "";
  return (
    <div className="timeline" role="group" aria-label="Replay" data-testid="timeline" data-at={st.at} data-playing={st.playing}>
      <button type="button" className="timeline-step" aria-label="Step back" title="One event back" disabled={st.at <= 1} onClick={() => playback.step(-1)}>
        <span aria-hidden="true">◂</span>
      </button>
      <button
        type="button"
        className="timeline-play primary"
        data-testid="timeline-play"
        aria-label={st.playing ? "Pause" : "Play"}
        title={st.playing ? "Pause (Space)" : st.at >= n ? "Replay the run from its start (Space)" : "Play from here (Space)"}
        onClick={playback.toggle}
      >
        <span aria-hidden="true">{st.playing ? "❚❚" : "▶"}</span>
      </button>
      <button type="button" className="timeline-step" aria-label="Step forward" title="One event forward" disabled={st.at >= n} onClick={() => playback.step(1)}>
        <span aria-hidden="true">▸</span>
      </button>
      <input
        type="range"
        className="timeline-scrubber"
        data-testid="timeline-scrubber"
        aria-label="Event"
        aria-valuetext={`Event ${st.at} of ${n}${where ? `: ${where}` : ""}`}
        min={1}
        max={n}
        step={1}
        value={st.at}
        onChange={(ev) => playback.seek(Number(ev.currentTarget.value))}
      />
      <span className="timeline-pos" data-testid="timeline-position">
        {st.at.toLocaleString()} / {n.toLocaleString()}
      </span>
      <span className="timeline-event muted" title={e ? new Date(e.ts).toLocaleString() : undefined}>
        {where}
        {e && <> · {offset(e.ts - start)}</>}
      </span>
      <label className="timeline-speed">
        <span className="muted">Speed</span>
        <select
          aria-label="Speed"
          title={`1× is ${baseRate} events a second; as fast as possible plays the whole run in about ${fastFrames} frames; real time waits as the run did, pauses over ${maxGapMs / 1000} s shortened`}
          value={String(st.speed)}
          onChange={(ev) => playback.setSpeed(parseSpeed(ev.currentTarget.value))}
        >
          {speeds.map((s) => (
            <option key={String(s)} value={String(s)}>
              {speedLabel(s)}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

function parseSpeed(v: string): Speed {
  return speeds.find((s) => String(s) === v) ?? 16;
}

// offset is the time since the run's first event: +1:05, +1:02:03.
export function offset(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `+${h}:${String(m).padStart(2, "0")}:${ss}` : `+${m}:${ss}`;
}
